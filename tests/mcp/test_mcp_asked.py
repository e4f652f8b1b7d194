"""ctx_record and ctx_supersede take how a record will be asked (questions, aliases); ctx_get returns them (issue 25)."""

from agentctx.mcp.tools import TOOLS

SECRET = "sk-ant-api03-" + "B" * 60


def _ok(result):
    assert result["isError"] is False, result
    return result["structuredContent"]


def test_the_writing_tools_ask_the_calling_model_for_them():
    by_name = TOOLS
    for name in ("ctx_record", "ctx_supersede"):
        tool = by_name[name]
        props = tool.input_schema["properties"]
        assert props["questions"]["type"] == "array" and props["questions"]["items"]["type"] == "string"
        assert props["aliases"]["type"] == "array" and props["aliases"]["maxItems"] == 16
        assert "questions" not in tool.input_schema.get("required", [])  # optional: old callers keep working
        assert "questions" in tool.description and "aliases" in tool.description
    get_record = by_name["ctx_get"].output_schema
    assert "records" in get_record["properties"]


def test_recorded_questions_are_stored_searched_and_returned(ctx_a, helpers):
    rec = _ok(helpers.call(ctx_a, "ctx_record", {
        "type": "discovery", "title": "Unset HTTPS_PROXY before running pytest",
        "body": "The HTTP client picks up the corporate proxy from the environment.",
        "questions": ["why does the test suite freeze on the vpn?", f"is {SECRET} the proxy password?"],
        "aliases": ["corporate network"]}))
    found = _ok(helpers.call(ctx_a, "ctx_search", {"query": "test suite freezes on the vpn"}))
    assert found["results"][0]["id"] == rec["id"]
    got = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [rec["id"]]}))["records"][0]
    assert got["questions"][0] == "why does the test suite freeze on the vpn?"
    assert SECRET[:30] not in got["questions"][1] and "[REDACTED" in got["questions"][1]
    assert got["aliases"] == ["corporate network"]


def test_supersede_keeps_them_unless_given(ctx_a, helpers):
    v1 = _ok(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "Queue choice", "body": "Use Redis.",
                                                "questions": ["which queue do we use?"], "aliases": ["broker"]}))
    v2 = _ok(helpers.call(ctx_a, "ctx_supersede", {"old_id": v1["id"], "new_body": "Use RabbitMQ.",
                                                   "rationale": "durable queues"}))
    got = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [v2["new_id"]]}))["records"][0]
    assert got["questions"] == ["which queue do we use?"] and got["aliases"] == ["broker"]
    v3 = _ok(helpers.call(ctx_a, "ctx_supersede", {"old_id": v2["new_id"], "new_body": "Use SQS.",
                                                   "rationale": "managed", "aliases": ["aws queue"]}))
    got = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [v3["new_id"]]}))["records"][0]
    assert got["questions"] == ["which queue do we use?"] and got["aliases"] == ["aws queue"]


def test_bad_items_are_a_structured_error_and_the_loop_survives(ctx_a, helpers):
    bad = helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "t", "body": "b", "questions": [1]})
    assert bad["isError"] is True and "questions" in bad["content"][0]["text"]
    many = helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "t", "body": "b",
                                              "aliases": [f"a{i}" for i in range(40)]})
    assert many["isError"] is True and "limit is 16" in many["content"][0]["text"]
    _ok(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "t", "body": "b"}))
