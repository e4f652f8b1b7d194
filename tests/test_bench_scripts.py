"""The quality benchmarks run on any data in the shared sets' formats (the project is also scored on kept-apart sets
of other repositories): optional keys missing or null, a BOM, blank lines, a superseded or untitled decision."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

ADRS = [
    {"id": "acme/1", "repo": "acme/shop", "title": "Use Kafka for domain events", "status": "Accepted",
     "context": "Several services consume order and payment events at their own pace; we need a durable, ordered "
                "log of domain events that a consumer can replay.", "decision": "Kafka, three brokers, one topic "
                "per aggregate.", "consequences": "Ops must run Kafka."},
    {"title": "Store sessions in Redis", "context": "Web sessions must survive a restart of one app server.",
     "decision": None},  # no id, repo, status or consequences
    {"id": "acme/3", "repo": "acme/shop", "title": "Old queue", "status": "Superseded by ADR 1",
     "context": "We used to poll a table.", "decision": "Poll."},
    {"id": "acme/4", "repo": "acme/shop", "title": "  ", "context": "A decision without a title.", "decision": "?"},
]
QUESTIONS = [
    {"question": "which tool carries our domain events between services?", "title": "Use Kafka for domain events",
     "repo": "acme/shop", "style": "paraphrase"},
    {"question": "where do web sessions live?", "title": "Store sessions in Redis"},  # no repo or style
    {"question": "about a decision not in the store", "title": "Nope"},
]
PROMPTS = [{"prompt": "the navbar overlaps the hero image on small screens, fix the css"},
           {"prompt": "", "source_repo": "someone/else"}, {"prompt": "rename getUser to fetchUser everywhere"}]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("\ufeff" + "\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    return path


def _run(args: list[str], tmp_path: Path) -> str:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "AGENTCTX_HOME": str(tmp_path / "home" / ".agentctx")}
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_injection_bench_runs_on_other_data(tmp_path):
    out = _run(["bench/injection.py", "--adrs", str(_write(tmp_path / "adrs.jsonl", ADRS)),
                "--questions", str(_write(tmp_path / "questions.jsonl", QUESTIONS)),
                "--prompts", str(_write(tmp_path / "prompts.jsonl", PROMPTS)), "--no-cases"], tmp_path)
    summary = dict(pair.split("=") for pair in out.strip().splitlines()[-1].split())
    assert summary["records"] == "2"  # the superseded and the untitled decisions are not records
    assert set(summary) >= {"unrelated_injected", "long_hit", "long120_hit", "question_hit", "mean_chars"}
    assert 0.0 <= float(summary["unrelated_injected"]) <= 1.0


def test_injection_bench_keeps_only_the_repositories_asked_for(tmp_path):
    out = _run(["bench/injection.py", "--adrs", str(_write(tmp_path / "adrs.jsonl", ADRS)), "--questions", "",
                "--prompts", str(_write(tmp_path / "prompts.jsonl", PROMPTS)), "--no-cases", "--repos", "acme/shop",
                "--brief"], tmp_path)
    assert out.strip().endswith("records=1")  # Kafka; the Redis decision names no repository


def _kept_dir() -> Path:
    return Path(os.environ.get("AGENTCTX_KEPT_DIR") or ROOT / "bench" / ".kept")


def test_the_harvester_says_so_without_snapshots(tmp_path):
    # CI has no fetched snapshots: the harvester says so and succeeds, writing nothing.
    done = subprocess.run([sys.executable, "tools/harvest_kept.py", "--check", "--mirror", str(tmp_path / "none"),
                           "--out", str(tmp_path / "kept")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "no mirror" in done.stdout and not (tmp_path / "kept").exists()


def test_the_kept_apart_sets_carry_their_provenance():
    # The sets the gate is fitted and cross-validated on beside the shared development sets, harvested at run time
    # from fetched snapshots by tools/harvest_kept.py and never committed.
    data = _kept_dir()
    if not (data / "kept-adrs.jsonl").is_file() or not (data / "kept-prompts.jsonl").is_file():
        pytest.skip(f"no harvested kept-apart sets in {data} (python tools/harvest_kept.py needs fetched snapshots)")
    adrs = [json.loads(line) for line in (data / "kept-adrs.jsonl").read_text(encoding="utf-8").splitlines()]
    prompts = [json.loads(line) for line in (data / "kept-prompts.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len({a["id"] for a in adrs}) == len(adrs) >= 200 and len({a["repo"] for a in adrs}) >= 9
    assert all(len(a["commit"]) == 40 and a["path"].endswith(".md") and a["context"] and a["decision"] for a in adrs)
    assert len({p["source_repo"] for p in prompts}) >= 12 and all(len(p["commit"]) == 40 for p in prompts)
    assert all(len(p["prompt"]) <= 600 and "/Users/" not in p["prompt"] for p in prompts)
    hand = ROOT / "bench" / "data" / "kept-expansions-handwritten.jsonl"
    assert {json.loads(line)["id"] for line in hand.read_text().splitlines()} <= {a["id"] for a in adrs}


def test_the_kept_apart_sets_are_not_committed():
    assert not list((ROOT / "bench" / "data").glob("kept-adrs*")) and not list((ROOT / "bench" / "data").glob(
        "kept-prompts*"))
    assert "bench/.kept/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()


def test_retrieval_bench_runs_on_other_decisions(tmp_path):
    out = _run(["bench/retrieval.py", "--adr", str(_write(tmp_path / "adrs.jsonl", ADRS))], tmp_path)
    last = dict(pair.split("=") for pair in out.strip().splitlines()[-1].split())
    assert last["n"] == "2" and 0.0 <= float(last["recall@5"]) <= 1.0


def test_retrieval_bench_reads_conversations_one_per_file_or_upstreams_list(tmp_path):
    turns = [{"speaker": "Ann", "dia_id": f"D1:{i}", "text": text} for i, text in enumerate([
        "I adopted a grey cat named Bailey last week.", "Work has been busy, we ship the release on Friday.",
        "My sister visits Lisbon in June.", "The cat sleeps on my keyboard all day."], 1)]
    conv = {"speaker_a": "Ann", "speaker_b": "Bob", "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns}
    qa = [{"question": "What is the name of Ann's cat?", "answer": "Bailey", "evidence": ["D1:1"], "category": 4},
          {"question": "Where does Ann's sister go?", "answer": "Lisbon", "evidence": ["D1:3"], "category": 1},
          {"question": "An adversarial one", "adversarial_answer": "x", "category": 5}]
    one = tmp_path / "one"
    one.mkdir()
    (one / "conv-a.json").write_text(json.dumps({**conv, "qa": qa}), encoding="utf-8")
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    (upstream / "locomo10.json").write_text(json.dumps([{"sample_id": "conv-a", "conversation": conv, "qa": qa}]),
                                            encoding="utf-8")
    lines = [_run(["bench/retrieval.py", "--data", str(d)], tmp_path).strip().splitlines()[-1] for d in (one, upstream)]
    assert lines[0] == lines[1] and lines[0].endswith("n=2")


EXPANSIONS = [  # written by hand in the format of adr-dev/expansions.jsonl, with items past the store's limits
    {"id": "acme/1", "questions": ["how do services hear about new orders?", "do we use rabbitmq?", "x" * 300],
     "terms": ["message bus", "event streaming", "pub/sub"] + [f"t{i}" for i in range(20)]},
    {"id": "Store sessions in Redis", "questions": ["where do web sessions live?"], "terms": ["cache"]},
]


def test_both_benches_take_recorded_expansions(tmp_path):
    adrs = str(_write(tmp_path / "adrs.jsonl", ADRS))
    exp = str(_write(tmp_path / "expansions.jsonl", EXPANSIONS))
    out = _run(["bench/injection.py", "--adrs", adrs, "--questions", str(_write(tmp_path / "q.jsonl", QUESTIONS)),
                "--prompts", str(_write(tmp_path / "p.jsonl", PROMPTS)), "--no-cases", "--expansions", exp], tmp_path)
    summary = dict(pair.split("=") for pair in out.strip().splitlines()[-1].split())
    assert summary["records"] == "2" and float(summary["question_hit"]) == 1.0
    out = _run(["bench/retrieval.py", "--adr", adrs, "--expansions", exp, "--no-baselines"], tmp_path)
    assert dict(pair.split("=") for pair in out.strip().splitlines()[-1].split())["n"] == "2"
