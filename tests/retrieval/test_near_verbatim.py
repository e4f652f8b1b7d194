"""A prompt that says most of what a record says is not refused (issue 25): the near-verbatim rule of the prompt
hook's decision, through the real search and the fitted gate. The store holds the hand-written benchmark records
(bench/data/handwritten-records.jsonl) plus the records below, written by hand in the words of real reports."""

import json
from pathlib import Path

import pytest

from agentctx.base import paths
from agentctx.base.models import NewRecord
from agentctx.retrieval import relevance
from agentctx.store import db, records

P = "proj"
CASES = Path(__file__).resolve().parents[2] / "bench" / "data" / "handwritten-records.jsonl"

VPN = ("discovery", "Unset HTTPS_PROXY before running pytest",
       "On the corporate VPN the test suite hangs: the HTTP client picks up the VPN's proxy from HTTPS_PROXY and "
       "waits on it forever. Unset HTTPS_PROXY and HTTP_PROXY before running pytest.")
OWN = [
    VPN,
    ("bugfix", "Fixed: Celery workers leaked Redis connections after a restart",
     "Every worker restart leaked the Redis connections of the old pool until the server refused new ones; the "
     "pool is now closed in the worker_shutdown signal."),
    ("decision", "Timestamps are stored in UTC and converted at the edge",
     "All timestamps are stored as UTC in PostgreSQL; the API and the templates convert to the user's time zone."),
    ("convention", "Scanner plugins live under scanners/ with one module per format",
     "Each scanner plugin scans one input format and registers itself in scanners/__init__.py."),
]


@pytest.fixture
def store():
    conn = db.connect(paths.db_path(), create=True)
    for line in CASES.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        records.insert(conn, NewRecord(type=r["type"], title=r["title"], body=r["body"], project_id=P,
                                       confidence="explicit"))
    for type_, title, body in OWN:
        records.insert(conn, NewRecord(type=type_, title=title, body=body, project_id=P, confidence="explicit"))
    yield conn
    conn.close()


def injected(conn, prompt):
    return [a.hit.record.title for a in relevance.decide(conn, prompt, P) if a.inject]


@pytest.mark.parametrize("prompt, title", [
    ("The test suite just hangs when I'm connected to the VPN", VPN[1]),
    ("after restarting the celery workers redis runs out of connections again, can you look?", OWN[1][1]),
    ("are timestamps stored in UTC in postgres or in the user's time zone?", OWN[2][1]),
])
def test_a_prompt_saying_what_a_record_says_is_injected(store, prompt, title):
    assert title in injected(store, prompt)


def test_the_vpn_case_passes_by_the_near_verbatim_rule_not_by_the_gate(store):
    weighed = relevance.decide(store, "The test suite just hangs when I'm connected to the VPN", P)
    lead = next(a for a in weighed if a.hit.record.title == VPN[1])
    assert lead.inject and lead.reason.startswith("near-verbatim")
    assert lead.p < relevance.threshold(lead.klass)  # the fitted gate alone refuses it


def test_without_the_rule_the_vpn_case_is_refused(store, monkeypatch):
    monkeypatch.setattr(relevance, "VERBATIM_COVER", 2.0)
    assert VPN[1] not in injected(store, "The test suite just hangs when I'm connected to the VPN")


def test_generic_words_alone_are_not_near_verbatim(store):
    # A real prompt (prompts-dev) whose three content words a record happens to hold: none of them is rare.
    assert injected(store, "Scan the project to understand it.") == []
    feats = {"text_cover": 1.0, "telling": 3.0, "rare": 0.0}
    assert not relevance.near_verbatim(feats)
    assert relevance.near_verbatim({**feats, "rare": 1.0})
