import pytest

from agentctx.mcp.schema import validate
from agentctx.mcp.tools import TOOLS

SEARCH = TOOLS["ctx_search"].input_schema
GET = TOOLS["ctx_get"].input_schema

CASES = [
    (SEARCH, {"query": "x"}),
    (SEARCH, {}),
    (SEARCH, {"query": 5}),
    (SEARCH, {"query": ""}),
    (SEARCH, {"query": "x", "limit": 3}),
    (SEARCH, {"query": "x", "limit": 0}),
    (SEARCH, {"query": "x", "limit": 2.0}),
    (SEARCH, {"query": "x", "limit": 2.5}),
    (SEARCH, {"query": "x", "limit": True}),
    (SEARCH, {"query": "x", "type": "memo"}),
    (SEARCH, {"query": "x", "scope": "global"}),
    (SEARCH, {"query": "x", "extra": 1}),
    (GET, {"ids": []}),
    (GET, {"ids": ["a"] * 11}),
    (GET, {"ids": "abc"}),
    (GET, {"ids": ["a", 3]}),
    (GET, {"ids": ["a", "b"]}),
    (TOOLS["ctx_record"].input_schema, {"type": "decision", "title": "t" * 121, "body": "b"}),
    (TOOLS["ctx_record"].input_schema, {"type": "decision", "title": "t" * 120, "body": "b" * 2000}),
    (TOOLS["ctx_project"].input_schema, {}),
    (TOOLS["ctx_project"].input_schema, {"x": 1}),
]


@pytest.mark.parametrize("schema,value", CASES)
def test_agrees_with_jsonschema(schema, value):
    jsonschema = pytest.importorskip("jsonschema")
    expected = jsonschema.Draft202012Validator(schema).is_valid(value)
    assert (not validate(value, schema)) == expected


def test_messages_name_the_field():
    assert validate({"query": 5}, SEARCH) == ["query must be string, not integer"]
    assert validate({}, SEARCH) == ["query is required"]
    assert "ids[1] must be string" in validate({"ids": ["a", 3]}, GET)[0]
    assert "ids has 11 items" in validate({"ids": ["a"] * 11}, GET)[0]


def test_output_schemas_are_valid_json_schema():
    jsonschema = pytest.importorskip("jsonschema")
    for tool in TOOLS.values():
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
