"""The rule before the action end to end with the REAL Gemini CLI (pinned) against the Gemini API stand-in (issue 43).

Gemini CLI reads context only from AfterTool (vendor-notes/gemini-cli.md fact 24): the record anchored to a file
the model reads goes out with read_file's result, in the request the model answers with its edit. The stand-in's
HAND-WRITTEN model: read_file src/payments/charge.py, replace in it, `sed -i` config/app.ini, write_file
src/api/users.py (a record marked "before") twice, then read_file vendor/lib.py (a guard denies edits there).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import agentctx, hooks_log, prepare, read_ledger, seed_read_records
from gemini_sandbox import GeminiSandbox, gemini_bin
from gemini_standin import GeminiStandIn, contents, offers_tool, wants_json

GEMINI, WHY_NOT = gemini_bin()
pytestmark = pytest.mark.skipif(GEMINI is None, reason=WHY_NOT)


def _responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p["functionResponse"] for c in contents(body) for p in c.get("parts") or []
            if isinstance(p, dict) and "functionResponse" in p]


def model_for(repo: str):
    users = {"file_path": f"{repo}/src/api/users.py", "content": "SCHEMA = {}\n"}
    steps = [("read_file", {"file_path": f"{repo}/src/payments/charge.py"}),
             ("replace", {"file_path": f"{repo}/src/payments/charge.py", "old_string": "AMOUNT = 1.0",
                          "new_string": "AMOUNT = 100", "instruction": "integer cents"}),
             ("run_shell_command", {"command": "sed -i 's/debug = true/debug = false/' config/app.ini",
                                    "description": "config"}),
             ("write_file", users), ("write_file", users),
             ("read_file", {"file_path": f"{repo}/vendor/lib.py"})]

    def model(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: one call per request, in order, then a closing text."""
        if wants_json(body) is not None:
            return [{"type": "text", "text": "{}"}]
        done = len(_responses(body))
        if done < len(steps) and offers_tool(body, steps[done][0]):
            name, args = steps[done]
            return [{"type": "function_call", "name": name, "args": args}]
        return [{"type": "text", "text": "Done."}]
    return model


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = GeminiSandbox(tmp_path_factory.mktemp("gemini-read"), str(GEMINI))
    prepare(box, str(GEMINI))
    box.configure(mcp=False)
    agentctx(box, "init", "--agent", "gemini")
    ids = seed_read_records(box)
    with GeminiStandIn(model_for(str(box.repo))) as api:
        run = box.run("Fix the amount, the config and add the users API", api.base_url)
        bodies = [b for b in api.turn_bodies() if wants_json(b) is None]
    return {"box": box, "run": run, "bodies": bodies, "ids": ids}


def _after(bodies: list[dict[str, Any]], n: int) -> str:
    return json.dumps(contents(next(b for b in bodies if len(_responses(b)) == n)))


def _response(bodies: list[dict[str, Any]], n: int) -> str:
    return json.dumps(_responses(next(b for b in bodies if len(_responses(b)) == n))[-1])


def test_the_run_succeeds_and_no_hook_fails(world):
    assert world["run"].returncode == 0, world["run"].stderr
    assert hooks_log(world["box"]) == ""


def test_the_record_is_in_the_request_answered_with_the_edit_and_not_again(world):
    ids = world["ids"]
    after_read = _after(world["bodies"], 1)
    assert "integer cents, never floats" in after_read and ids["cents"] in after_read
    after_edit = _after(world["bodies"], 2)
    assert after_edit.count(f"(id {ids['cents']})") == after_read.count(f"(id {ids['cents']})")
    assert (world["box"].repo / "src/payments/charge.py").read_text() == "AMOUNT = 100\n"


def test_a_sed_i_of_an_anchored_file_gets_its_record(world):
    assert world["ids"]["config"] in _response(world["bodies"], 3)
    assert (world["box"].repo / "config/app.ini").read_text() == "debug = false\n"


def test_the_new_file_under_a_before_record_is_denied_once_and_the_retry_goes_through(world):
    first = _response(world["bodies"], 4)
    assert world["ids"]["schema"] in first and "stopped this call once" in first
    assert "stopped this call once" not in _response(world["bodies"], 5)
    assert (world["box"].repo / "src/api/users.py").read_text() == "SCHEMA = {}\n"


def test_a_guard_never_stops_a_read(world):
    last = _response(world["bodies"], 6)
    assert "VERSION = 1" in last and world["ids"]["vendor"] in last


def test_the_ledger_says_each_delivery_arrived(world):
    stats = read_ledger(world["box"], world["ids"])
    rows = {r["id"]: r for r in stats["records"]}
    assert rows[world["ids"]["schema"]]["stops"] == 1 and rows[world["ids"]["schema"]]["retries"] == 1
    assert all(rows[i]["not_found"] == 0 for i in world["ids"].values())
    assert stats["arrival"]["gemini"]["arrived"] >= 4
