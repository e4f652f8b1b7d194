"""What the prompt hook injects of records that cannot be trusted as they are (SPEC §3.9)."""

from __future__ import annotations

from agentctx.retrieval import search
from agentctx.base.project import detect
from agentctx.store import trust


def _text(out):
    return out["hookSpecificOutput"]["additionalContext"] if out else ""


def test_a_record_waiting_for_review_is_searchable_but_never_injected(hook, conn, add, repo):
    r = add("Payments retry with exponential backoff", "The payments client retries with exponential backoff.",
            confidence="inferred")
    trust.set_mark(conn, r.id, "review", "inferred by extraction: waiting for your review")
    prompt = {"session_id": "s1", "cwd": str(repo), "prompt": "how does the payments client retry with backoff?"}
    assert "exponential backoff" not in _text(hook("user-prompt-submit", prompt))
    assert [h.record.id for h in search.search(conn, "payments retry backoff", detect(repo).id).hits] == [r.id]
    trust.clear_mark(conn, r.id, "review")
    assert "exponential backoff" in _text(hook("user-prompt-submit", {**prompt, "session_id": "s2"}))


def test_an_unverified_record_is_injected_only_when_the_prompt_names_its_code_and_then_flagged(hook, conn, add, repo):
    r = add("Payments retry with exponential backoff", "The payments client retries with exponential backoff "
            "(src/payments/retry.py).")
    trust.set_mark(conn, r.id, "unverified", "src/payments/retry.py: deleted")
    general = {"session_id": "s1", "cwd": str(repo), "prompt": "how does the payments client retry with backoff?"}
    assert "exponential backoff" not in _text(hook("user-prompt-submit", general))
    named = {"session_id": "s2", "cwd": str(repo),
             "prompt": "why does retry.py no longer do the payments exponential backoff retry?"}
    text = _text(hook("user-prompt-submit", named))
    assert "Payments retry with exponential backoff (code changed since: src/payments/retry.py)" in text


def test_before_an_action_an_unverified_record_is_flagged_and_one_waiting_for_review_is_not_delivered(
        hook, conn, add, repo):
    from agentctx.memory import anchormap, consolidate

    flagged = add("Payments use integer cents", "Amounts are integer cents.", anchors=("path:src/payments/**",))
    waiting = add("Payments log every refund", "Each refund is logged.", anchors=("path:src/payments/**",),
                  confidence="inferred")
    trust.set_mark(conn, flagged.id, "unverified", "src/payments/charge.py: rewritten (20% of its lines remain)")
    trust.set_mark(conn, waiting.id, "review", "inferred by extraction: waiting for your review")
    consolidate.run(detect(repo))  # the root cache the hooks read, and the map
    assert [e["flag"] for e in anchormap.read(detect(repo).id)] == ["(code changed since: src/payments/charge.py)"]
    out = hook("pre-tool-use", {"session_id": "s1", "cwd": str(repo), "hook_event_name": "PreToolUse",
                                "tool_name": "Edit", "tool_input": {"file_path": str(repo / "src/payments/x.py")}})
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "Payments use integer cents (code changed since: src/payments/charge.py)" in text
    assert "refund" not in text
