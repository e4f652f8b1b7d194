"""End to end with the REAL Claude Code CLI: the rule before the action (issue 43).

The stand-in's HAND-WRITTEN model, in one session: reads src/payments/charge.py (anchored), edits it, edits
config/app.ini through the shell (`sed -i`, anchored), writes the new file src/api/users.py (anchored to a record
marked "before"), writes it again unchanged, then reads vendor/lib.py (a guard denies every edit there). The tests
check the model's requests: the record is in the request the model answers with the edit (the one after the read),
and not again after the edit; the shell edit gets its record; the new file is denied once with its record quoted and
the identical retry goes through; the guard does not stop the read. And the ledger: each delivery found in the real
transcript ("arrived"), the stop and the retry counted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from claude_sandbox import Sandbox, claude_bin, wait_for
from messages_standin import MessagesStandIn, offers_tool

CLAUDE, WHY_NOT = claude_bin()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason=WHY_NOT)

CENTS = "Payments amounts are integer cents"
CONFIG = "Config values come from the environment"
SCHEMA = "Every module in src/api declares its schema"
VENDOR = "vendor/ is a pinned copy"
HEADER = "agentctx: project memory about what this tool call touches"


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in body.get("messages") or [] if isinstance(m.get("content"), list) for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"]


def model_for(repo: str):
    users = {"file_path": f"{repo}/src/api/users.py", "content": "SCHEMA = {}\n"}
    steps = [("Read", {"file_path": f"{repo}/src/payments/charge.py"}),
             ("Edit", {"file_path": f"{repo}/src/payments/charge.py", "old_string": "1.0", "new_string": "100"}),
             ("Bash", {"command": "sed -i 's/debug = true/debug = false/' config/app.ini", "description": "Edit"}),
             ("Write", users), ("Write", users),
             ("Read", {"file_path": f"{repo}/vendor/lib.py"})]

    def model(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: one tool call per request, in order, then a closing text."""
        done = len(_results(body))
        if done < len(steps) and offers_tool(body, steps[done][0]):
            name, args = steps[done]
            return [{"type": "tool_use", "id": f"toolu_standin_read{done}", "name": name, "input": args}]
        return [{"type": "text", "text": "Done."}]
    return model


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = Sandbox(tmp_path_factory.mktemp("claude-read"), str(CLAUDE))
    for rel, text in (("src/payments/charge.py", "AMOUNT = 1.0\n"), ("config/app.ini", "debug = true\n"),
                      ("vendor/lib.py", "VERSION = 1\n")):
        (box.repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (box.repo / rel).write_text(text, encoding="utf-8")
    box.agentctx("init")
    box.agentctx("config", "set", "llm", "false")
    ids = {}
    for name, title, body, anchor in (
            ("cents", CENTS, "Store and compute every amount in src/payments as integer cents, never floats.",
             "src/payments/**"),
            ("config", CONFIG, "Never hard-code a setting in config/: read it from the environment.", "config/**"),
            ("schema", SCHEMA, "A module under src/api starts with its SCHEMA dict, validated at import.",
             "src/api/**"),
            ("vendor", VENDOR, "Never edit vendor/: update the pin instead.", "vendor/**")):
        ids[name] = box.agentctx("record", "--type", "convention", "--title", title, "--body", body,
                                 "--anchor", anchor).stdout.strip()
    box.agentctx("before", ids["schema"])
    box.agentctx("guard", ids["vendor"], "--never", "path:vendor/**", "--deny")
    box.agentctx("consolidate")
    with MessagesStandIn(model_for(str(box.repo))) as api:
        run = box.run("Fix the amount, the config and add the users API", api.base_url,
                      allowed=("Read", "Edit", "Write"))
        bodies = api.message_bodies()
    return {"box": box, "run": run, "bodies": bodies, "ids": ids}


def _after(bodies: list[dict[str, Any]], n: int) -> str:
    """The messages of the first model request that carries the result of the n-th tool call (1-based)."""
    return json.dumps(next(b for b in bodies if len(_results(b)) == n)["messages"])


def test_the_run_succeeds_and_every_hook_exits_zero(world):
    run = world["run"]
    assert run.returncode == 0, run.stderr
    assert all(r["exit_code"] == 0 for r in run.hook_responses("PreToolUse"))
    assert len(world["bodies"]) >= 7


def test_the_record_is_in_the_request_answered_with_the_edit_and_not_again(world):
    after_read = _after(world["bodies"], 1)  # the model answers this request with the Edit
    assert CENTS in after_read and world["ids"]["cents"] in after_read and "never floats" in after_read
    after_edit = _after(world["bodies"], 2)
    assert after_edit.count(f"(id {world['ids']['cents']})") == after_read.count(f"(id {world['ids']['cents']})")
    assert (world["box"].repo / "src/payments/charge.py").read_text() == "AMOUNT = 100\n"


def test_a_sed_i_of_an_anchored_file_gets_its_record(world):
    after = _after(world["bodies"], 3)
    assert CONFIG in after and world["ids"]["config"] in after
    assert (world["box"].repo / "config/app.ini").read_text() == "debug = false\n"


def test_the_new_file_under_a_before_record_is_denied_once_and_the_retry_goes_through(world):
    first = _results(json.loads(json.dumps(next(b for b in world["bodies"] if len(_results(b)) == 4))))[-1]
    assert first.get("is_error") is True
    assert SCHEMA in json.dumps(first) and world["ids"]["schema"] in json.dumps(first)
    second = _results(next(b for b in world["bodies"] if len(_results(b)) == 5))[-1]
    assert not second.get("is_error")
    assert (world["box"].repo / "src/api/users.py").read_text() == "SCHEMA = {}\n"


def test_a_guard_never_stops_a_read(world):
    read = _results(next(b for b in world["bodies"] if len(_results(b)) == 6))[-1]
    assert not read.get("is_error") and "VERSION = 1" in json.dumps(read)


def test_the_ledger_counts_the_stop_and_says_each_delivery_arrived(world):
    box = world["box"]
    ids = world["ids"]

    def arrived() -> bool:
        stats = box.agentctx_json("stats")
        rows = {r["id"]: r for r in stats["records"]}
        return all(rows.get(ids[k], {}).get("arrived") for k in ("cents", "config", "schema", "vendor"))

    assert wait_for(arrived, timeout=30)
    stats = box.agentctx_json("stats")
    rows = {r["id"]: r for r in stats["records"]}
    assert rows[ids["schema"]]["stops"] == 1 and rows[ids["schema"]]["retries"] == 1
    assert all(rows[ids[k]]["not_found"] == 0 for k in ("cents", "config", "schema", "vendor"))
    assert stats["arrival"]["claude"]["not_found"] == 0 and stats["arrival"]["claude"]["arrived"] >= 4
