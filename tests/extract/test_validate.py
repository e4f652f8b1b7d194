"""Validation of answers: schema per entry, body limit, evidence grounding, explicit only for direct statements."""

from __future__ import annotations

from agentctx.extract import validate
from extract_support import answer

SAID = "We store everything in SQLite, no server. Use pytest for tests, never unittest.\n\nOk."


def _d(what="Use SQLite for storage", evidence="We store everything in SQLite", **kw):
    return {"what": what, "rationale": "no server", "supersedes": None, "confidence": "explicit",
            "evidence": evidence, **kw}


def test_maps_each_kind_to_records():
    data = answer(
        decisions=[_d()],
        preferences=[{"category": "tooling", "rule": "Use pytest, never unittest", "confidence": "explicit",
                      "scope": "global", "supersedes": None, "evidence": "Use pytest for tests, never unittest"}],
        conventions=[{"scope": "module", "convention": "Tests use pytest", "confidence": "inferred",
                      "supersedes": None, "evidence": "use pytest for tests"}],
        gotchas=[{"pattern": "No server available", "why_it_matters": "everything is local",
                  "evidence": "no server"}],
        active_work={"current_task": "Export", "blockers": [], "next_steps": ["tests"], "open_questions": []})
    ex = validate.check(data, SAID)
    assert ex.dropped == ()
    kinds = {e.kind: e for e in ex.entries}
    assert kinds["decision"].body == "Use SQLite for storage\n\nRationale: no server"
    assert kinds["preference"].scope == "global" and "Category: tooling" in kinds["preference"].body
    assert kinds["convention"].body.endswith("Applies to: module")
    assert kinds["gotcha"].type == "discovery" and kinds["gotcha"].confidence == "inferred"
    assert ex.handover_title == "Handover: Export" and "Next steps:\n- tests" in ex.handover_body


def test_ungrounded_and_invalid_entries_are_dropped():
    data = answer(decisions=[
        _d(evidence="We will use Redis as a cache"),  # not what the developer said
        _d(evidence=""),
        _d(what=""),
        _d(confidence="certain"),
        _d(what="x" * 2001),
        "not an object",
    ])
    ex = validate.check(data, SAID)
    assert ex.entries == ()
    assert sorted(r for _, r in ex.dropped) == ["body_too_long", "schema", "schema", "schema", "ungrounded",
                                                "ungrounded"]


def test_grounding_is_word_exact_but_punctuation_and_case_tolerant():
    corpus = validate.corpus(SAID)
    assert validate.grounded("“we store everything in sqlite — no server”", corpus)
    assert validate.grounded("We store everything ... never unittest", corpus)
    assert not validate.grounded("We store everything in Postgres", corpus)
    assert not validate.grounded("SQLite", corpus)  # one word is not a quote
    assert not validate.grounded("store ever", corpus)  # partial words do not count


def test_explicit_needs_a_direct_statement():
    ex = validate.check(answer(decisions=[_d(evidence="no server")]), SAID)
    assert ex.entries[0].confidence == "inferred"


def test_flush_and_empty_active_work_and_decode():
    assert validate.check({"flush_ok": True, "decisions": [_d()]}, SAID).flush
    assert validate.check(answer(), SAID).handover_title is None
    assert validate.decode('```json\n{"flush_ok": true}\n```') == {"flush_ok": True}
    assert validate.decode('```{"a": 1}```') == {"a": 1}
    assert validate.decode("Here is the JSON you asked for") is None
    assert validate.decode("[1, 2]") is None
