"""Raw protocol: framing, lifecycle, every error code, ordering, large and broken input, EOF."""

import json
import subprocess
import time

import pytest

from agentctx.mcp import jsonrpc
from agentctx.mcp.server import PROTOCOL_VERSIONS, negotiate, project_root
from agentctx.mcp.tools import TOOLS

SPEC_ORDER = ["ctx_search", "ctx_get", "ctx_record", "ctx_supersede", "ctx_project", "ctx_related",
              "ctx_sync_claudemd"]


def init(h, version="2025-11-25", id=0):
    return h.msg("initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}}, id=id)


@pytest.mark.parametrize("asked,answered", [
    ("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"), ("2025-06-18", "2025-06-18"),
    ("2025-11-25", "2025-11-25"), ("2026-07-28", "2025-11-25"), ("1999-01-01", "2025-11-25"),
])
def test_initialize_negotiates(ctx_a, helpers, asked, answered):
    (reply,) = helpers.rpc(ctx_a, [init(helpers, asked)])
    result = reply["result"]
    assert result["protocolVersion"] == answered
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "agentctx"
    assert len(result["instructions"].encode()) <= 2048


def test_negotiate_never_fails():
    assert negotiate(None) == PROTOCOL_VERSIONS[0]
    assert negotiate(20251125) == PROTOCOL_VERSIONS[0]


def test_ping_and_notifications(ctx_a, helpers):
    replies = helpers.rpc(ctx_a, [
        init(helpers),
        helpers.msg("notifications/initialized"),
        helpers.msg("notifications/cancelled", {"requestId": 99, "reason": "gone"}),
        helpers.msg("notifications/whatever"),
        helpers.msg("ping", id="p"),
    ])
    assert [r["id"] for r in replies] == [0, "p"]
    assert replies[1]["result"] == {}


def test_tools_list_is_the_table(ctx_a, helpers):
    (reply,) = helpers.rpc(ctx_a, [helpers.msg("tools/list", {}, id=1)])
    tools = reply["result"]["tools"]
    assert [t["name"] for t in tools] == SPEC_ORDER == list(TOOLS)
    assert "nextCursor" not in reply["result"]
    for t in tools:
        assert t["title"] and len(t["description"].encode()) <= 2048
        assert t["inputSchema"]["type"] == "object" and t["outputSchema"]["type"] == "object"
        assert isinstance(t["annotations"]["readOnlyHint"], bool)
    read_only = {t["name"] for t in tools if t["annotations"]["readOnlyHint"]}
    assert read_only == {"ctx_search", "ctx_get", "ctx_project", "ctx_related", "ctx_sync_claudemd"}


def codes(replies):
    return [(r["id"], r.get("error", {}).get("code")) for r in replies]


def test_every_error_code(ctx_a, helpers):
    lines = [
        b"{not json\n",                                                           # -32700
        b"[1, 2]\n",                                                              # -32600 (batch)
        b"42\n",                                                                  # -32600
        b'{"jsonrpc":"1.0","id":1,"method":"ping"}\n',                            # -32600
        helpers.msg("server/discover", {}, id=2),                                 # -32601
        helpers.msg("resources/list", {}, id=3),                                  # -32601
        helpers.msg("tools/call", {"arguments": {}}, id=4),                       # -32602 no name
        helpers.msg("tools/call", {"name": "ctx_nope", "arguments": {}}, id=5),   # -32602 unknown tool
        helpers.msg("tools/call", {"name": "ctx_search", "arguments": [1]}, id=6),  # -32602
        helpers.msg("tools/list", {"cursor": "abc"}, id=7),                       # -32602 bad cursor
        helpers.msg("initialize", {}, id=8),                                      # -32602 no version
        helpers.msg("tools/list", ["positional"], id=9),                          # -32602
    ]
    replies = helpers.rpc(ctx_a, lines)
    assert codes(replies) == [
        (None, -32700), (None, -32600), (None, -32600), (1, -32600), (2, -32601), (3, -32601),
        (4, -32602), (5, -32602), (6, -32602), (7, -32602), (8, -32602), (9, -32602),
    ]


def test_internal_error_is_answered_and_loop_continues(ctx_a, helpers, monkeypatch):
    from agentctx.mcp import server

    def boom(session, req):
        raise RuntimeError("bug")

    monkeypatch.setitem(server.METHODS, "ping", boom)
    replies = helpers.rpc(ctx_a, [helpers.msg("ping", id=1), helpers.msg("tools/list", id=2)])
    assert codes(replies) == [(1, -32603), (2, None)]


def test_tool_failures_are_results_not_errors(ctx_a, helpers):
    result = helpers.call(ctx_a, "ctx_search", {"query": 5})
    assert result["isError"] is True
    assert result["structuredContent"]["error"].startswith("invalid arguments for ctx_search")
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_thousand_pipelined_requests_answered_in_order(ctx_a, helpers):
    lines = [init(helpers)]
    for i in range(1, 1001):
        if i % 3 == 0:
            lines.append(helpers.msg("tools/call", {"name": "ctx_search", "arguments": {"query": f"q{i}"}}, id=i))
        else:
            lines.append(helpers.msg("ping", id=i))
    replies = helpers.rpc(ctx_a, lines)
    assert [r["id"] for r in replies] == list(range(0, 1001))


def test_a_large_line_under_the_cap(ctx_a, helpers):
    big = "x" * (512 * 1024)
    replies = helpers.rpc(ctx_a, [
        helpers.msg("tools/call", {"name": "ctx_search", "arguments": {"query": big}}, id=1),
        helpers.msg("ping", {"pad": big}, id=2),
    ])
    assert replies[0]["result"]["isError"] is True  # over the query's maxLength, answered as a tool error
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_over_long_line_is_skipped(ctx_a, helpers, monkeypatch):
    from agentctx.mcp import server

    monkeypatch.setattr(server, "MAX_LINE", 1000)
    replies = helpers.rpc(ctx_a, [b"{" + b" " * 5000 + b"}\n", helpers.msg("ping", id=1)])
    assert codes(replies) == [(None, -32700), (1, None)]


def test_invalid_utf8_then_recovers(ctx_a, helpers):
    replies = helpers.rpc(ctx_a, [b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}\n', helpers.msg("ping", id=2)])
    assert codes(replies) == [(None, -32700), (2, None)]


def test_last_line_without_newline(ctx_a, helpers):
    (reply,) = helpers.rpc(ctx_a, [helpers.msg("ping", id=1).rstrip(b"\n")])
    assert reply["id"] == 1


def test_project_root_precedence(tmp_path):
    assert project_root({"CLAUDE_PROJECT_DIR": "/p"}, "/explicit") == type(tmp_path)("/explicit")
    assert project_root({"CLAUDE_PROJECT_DIR": "/p"}) == type(tmp_path)("/p")
    assert project_root({}) == type(tmp_path).cwd()


def test_subprocess_closed_stdin_exits_cleanly(store, repo_a, helpers):
    proc = helpers.start(repo_a)
    start = time.monotonic()
    out, err = proc.communicate(b"", timeout=20)
    assert proc.returncode == 0 and out == b""
    assert time.monotonic() - start < 10


def test_subprocess_stdout_is_protocol_only(store, repo_a, helpers):
    proc = helpers.start(repo_a)
    payload = init(helpers) + b"garbage\n" + helpers.msg("tools/list", id=1) + helpers.msg(
        "tools/call", {"name": "ctx_record", "arguments": {"type": "decision", "title": "Use SQLite", "body": "WAL"}}, id=2)
    out, err = proc.communicate(payload, timeout=20)
    assert proc.returncode == 0
    replies = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in replies] == [0, None, 1, 2]
    assert replies[3]["result"]["isError"] is False


def test_subprocess_without_store_reports_tool_error(repo_a, helpers):
    proc = helpers.start(repo_a)
    out, _ = proc.communicate(init(helpers) + helpers.msg("tools/call", {"name": "ctx_project"}, id=1), timeout=20)
    result = json.loads(out.splitlines()[1])["result"]
    assert result["isError"] is True and "agentctx init" in result["structuredContent"]["error"]


def test_sdk_variant_without_the_extra(ctx_a, monkeypatch):
    import sys

    from agentctx.base.errors import MissingExtraError
    from agentctx.mcp import sdk_server

    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(MissingExtraError) as info:
        sdk_server.build(ctx_a)
    assert "mcp-sdk" in str(info.value)


@pytest.mark.parametrize("argv", [["mcp", "--sdk"], ["-C", "{repo}", "mcp", "--sdk"]])
def test_mcp_sdk_without_the_extra_is_one_line_and_a_status(store, repo_a, monkeypatch, capsys, argv):
    """Issue 42 item 11: `agentctx mcp --sdk` without the extra ended in a traceback (its fast path skipped the CLI's
    error handling)."""
    import io
    import sys

    from agentctx import cli

    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.chdir(repo_a)
    rc = cli.main([a.replace("{repo}", str(repo_a)) for a in argv])
    err = capsys.readouterr().err
    assert rc != 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "[mcp-sdk] extra" in err
