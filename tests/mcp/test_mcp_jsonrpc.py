from agentctx.mcp import jsonrpc
from agentctx.mcp.jsonrpc import Fault, Request


def test_parse_request_and_notification():
    req = jsonrpc.parse_line(b'{"jsonrpc":"2.0","id":7,"method":"ping"}\n')
    assert req == Request("ping", None, 7)
    note = jsonrpc.parse_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert isinstance(note, Request) and note.is_notification


def test_blank_line_and_stray_response_are_ignored():
    assert jsonrpc.parse_line(b"  \r\n") is None
    assert jsonrpc.parse_line(b'{"jsonrpc":"2.0","id":1,"result":{}}') is None


def test_parse_errors():
    for line in (b"{nope", b"\xff\xfe{}", b'{"jsonrpc":"2.0","method":"x"'):
        fault = jsonrpc.parse_line(line)
        assert isinstance(fault, Fault) and fault.code == jsonrpc.PARSE_ERROR and fault.id is None


def test_invalid_requests_keep_a_usable_id():
    cases = {
        b"42": None,
        b"[]": None,
        b'{"jsonrpc":"1.0","id":3,"method":"ping"}': 3,
        b'{"jsonrpc":"2.0","id":4}': 4,
        b'{"jsonrpc":"2.0","id":5,"method":""}': 5,
        b'{"jsonrpc":"2.0","id":null,"method":"ping"}': None,
        b'{"jsonrpc":"2.0","id":true,"method":"ping"}': None,
        b'{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}': 6,
    }
    for line, rid in cases.items():
        fault = jsonrpc.parse_line(line)
        assert isinstance(fault, Fault) and fault.code == jsonrpc.INVALID_REQUEST, line
        assert fault.id == rid, line


def test_encode_is_one_line():
    data = jsonrpc.encode(jsonrpc.result(1, {"text": "a\nb\u2028c"}))
    assert data.endswith(b"\n") and data.count(b"\n") == 1
