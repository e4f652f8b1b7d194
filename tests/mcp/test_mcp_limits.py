"""Every MCP request is bounded (issue 16, item 3): argument sizes are capped with a clear tool error, a request's
cost stays linear, an over-long line gets a structured parse error and the loop goes on."""

from __future__ import annotations

import json
import time

import pytest

from agentctx.mcp import server
from agentctx.mcp.tools import MAX_PATH_CHARS, TOOLS


def _strings_and_arrays(schema, where=""):
    """Every string and array schema inside a tool's input schema, with where it sits."""
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or ())
    if "string" in kinds and "enum" not in schema:
        yield where, "string", schema
    if "array" in kinds:
        yield where, "array", schema
        yield from _strings_and_arrays(schema.get("items") or {}, where + "[]")
    for name, sub in (schema.get("properties") or {}).items():
        yield from _strings_and_arrays(sub, f"{where}.{name}")


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_string_and_array_argument_has_a_cap(name):
    schema = TOOLS[name].input_schema
    assert schema.get("additionalProperties") is False
    for where, kind, sub in _strings_and_arrays(schema):
        assert ("maxLength" if kind == "string" else "maxItems") in sub, f"{name}{where} has no cap"


@pytest.mark.parametrize("tool", ["ctx_related", "ctx_search"])
def test_a_huge_file_argument_is_refused_at_once_with_a_clear_error(ctx_a, helpers, tool):
    file = "a/" * 262_144  # took 11 s to resolve before the cap
    args = {"file": file} if tool == "ctx_related" else {"query": "storage", "file": file}
    started = time.monotonic()
    result = helpers.call(ctx_a, tool, args)
    assert time.monotonic() - started < 2
    assert result["isError"] is True
    message = result["structuredContent"]["error"]
    assert f"the limit is {MAX_PATH_CHARS}" in message and "file" in message
    assert len(message) < 500  # the error does not echo the argument


def test_the_longest_file_argument_allowed_is_answered_quickly(ctx_a, helpers):
    started = time.monotonic()
    result = helpers.call(ctx_a, "ctx_related", {"file": ("a/" * MAX_PATH_CHARS)[:MAX_PATH_CHARS]})
    assert result["isError"] is False and result["structuredContent"]["results"] == []
    assert time.monotonic() - started < 2


def test_a_file_argument_with_a_nul_byte_is_a_clear_error(ctx_a, helpers):
    result = helpers.call(ctx_a, "ctx_related", {"file": "src/a\x00b.py"})
    assert result["isError"] is True
    assert "internal error" not in result["structuredContent"]["error"]
    assert "NUL" in result["structuredContent"]["error"]


def test_validation_messages_never_echo_a_huge_value(ctx_a, helpers):
    big = "x" * 300_000
    for args in ({"query": "q", "type": big}, {"query": "q", big: 1}):
        result = helpers.call(ctx_a, "ctx_search", args)
        assert result["isError"] is True and len(result["structuredContent"]["error"]) < 1000


def test_an_over_long_line_gets_a_structured_error_and_the_loop_survives(ctx_a, helpers):
    line = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"pad": "x" * server.MAX_LINE}})
    replies = helpers.rpc(ctx_a, [line.encode() + b"\n", helpers.msg("ping", id=8)])
    # Answered with its own id (issue 26, item 10): with id null the client waited for its answer forever.
    assert replies[0]["id"] == 7 and replies[0]["error"]["code"] == -32700
    assert replies[0]["error"]["data"] == {"max_line_bytes": server.MAX_LINE}
    assert replies[1] == {"jsonrpc": "2.0", "id": 8, "result": {}}


def test_an_over_long_request_with_its_id_last_is_answered_with_that_id(ctx_a, helpers):
    # The TypeScript SDK's order: method, params, jsonrpc, id (a 1 MB ctx_search query, as a user pasted it).
    line = ('{"method":"tools/call","params":{"name":"ctx_search","arguments":{"query":"' + "q" * server.MAX_LINE
            + '","limit":5}},"jsonrpc":"2.0","id":"req-41"}')
    replies = helpers.rpc(ctx_a, [line.encode() + b"\n", helpers.msg("ping", id=9)])
    assert replies[0]["id"] == "req-41" and replies[0]["error"]["code"] == -32700
    assert replies[1]["id"] == 9


def test_an_over_long_line_whose_id_cannot_be_read_is_answered_with_id_null(ctx_a, helpers):
    nested_only = '{"method":"x","params":{"id":3,"pad":"' + "p" * server.MAX_LINE + '"}}'
    replies = helpers.rpc(ctx_a, [nested_only.encode() + b"\n"])
    assert replies[0]["id"] is None


def test_the_line_cap_leaves_room_for_the_largest_valid_request():
    # A ctx_record body of 2,000 astral characters, each escaped as a surrogate pair (12 bytes), fits many times.
    body = "\U0001F600" * 2000
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "ctx_record", "arguments": {"type": "decision", "title": "t" * 120,
                                                                      "body": body}}})
    assert len(line) * 4 < server.MAX_LINE <= 1024 * 1024
