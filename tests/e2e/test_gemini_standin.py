"""The Gemini API stand-in speaks the streaming format Gemini CLI reads (vendor-notes/gemini-cli.md, "The model
API"), checked with a raw SSE reader."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from gemini_standin import GeminiStandIn, fill_schema, scripted_model

SHELL = {"functionDeclarations": [{"name": "run_shell_command", "parametersJsonSchema": {"type": "object"}},
                                  {"name": "mcp_agentctx_ctx_search", "parametersJsonSchema": {"type": "object"}}]}
STREAM = "/v1beta/models/gemini-standin:streamGenerateContent?alt=sse"


def _user(text: str) -> dict:
    return {"role": "user", "parts": [{"text": text}]}


def _post(url: str, body: dict, path: str = STREAM) -> tuple[int, str, str]:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", "x-goog-api-key": "k"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers["content-type"], resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["content-type"], err.read().decode()


def _chunks(raw: str) -> list[dict]:
    blocks = [b for b in raw.split("\r\n\r\n") if b.strip()]
    assert all(b.startswith("data: ") for b in blocks)
    return [json.loads(b[len("data: "):]) for b in blocks]


def test_a_streamed_shell_call_comes_in_chunks_the_last_one_finished():
    body = {"contents": [_user("please create the branch feature/x now")], "tools": [SHELL]}
    with GeminiStandIn() as api:
        status, ctype, raw = _post(api.base_url, body)
        assert api.bodies() == [body] and api.turn_bodies() == [body]
    assert status == 200 and ctype == "text/event-stream"
    chunks = _chunks(raw)
    parts = [c["candidates"][0]["content"]["parts"][0] for c in chunks]
    assert "".join(p.get("text", "") for p in parts) == "Running it."
    assert len([p for p in parts if "text" in p]) == 2  # split: clients must accumulate
    call = parts[-1]["functionCall"]
    assert call["name"] == "run_shell_command" and call["args"]["command"] == "git checkout -b feature/x"
    assert all(c["candidates"][0]["content"]["role"] == "model" for c in chunks)
    assert [c["candidates"][0].get("finishReason") for c in chunks] == [None, None, "STOP"]
    assert "usageMetadata" in chunks[-1] and all("usageMetadata" not in c for c in chunks[:-1])
    assert len({c["responseId"] for c in chunks}) == 1


def test_the_script_ends_after_a_function_response_calls_mcp_tools_and_fills_json_schemas():
    after = {"contents": [_user("create the branch x"),
                          {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": {}}}]},
                          {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command",
                                                                           "response": {"output": "ok"}}}]}],
             "tools": [SHELL]}
    assert scripted_model(after) == [{"type": "text", "text": "Done: the command ran."}]
    (call,) = scripted_model({"contents": [_user("call the tool mcp_agentctx_ctx_search")], "tools": [SHELL]})
    assert call == {"type": "function_call", "name": "mcp_agentctx_ctx_search", "args": {}}
    router = {"type": "OBJECT", "properties": {"complexity_reasoning": {"type": "STRING"},
                                               "complexity_score": {"type": "INTEGER"}},
              "required": ["complexity_reasoning", "complexity_score"]}
    assert fill_schema(router) == {"complexity_reasoning": "stand-in", "complexity_score": 1}
    speaker = {"type": "object", "properties": {"reasoning": {"type": "string"},
                                                "next_speaker": {"type": "string", "enum": ["model", "user"]}},
               "required": ["reasoning", "next_speaker"]}
    assert fill_schema(speaker)["next_speaker"] == "user"
    side = {"contents": [_user("x")], "generationConfig": {"responseMimeType": "application/json",
                                                           "responseJsonSchema": router}}
    assert json.loads(scripted_model(side)[0]["text"]) == fill_schema(router)


def test_generate_content_count_tokens_and_errors():
    with GeminiStandIn() as api:
        status, ctype, raw = _post(api.base_url, {"contents": [_user("hello")]},
                                   path="/v1beta/models/m:generateContent")
        assert status == 200 and ctype.startswith("application/json")
        answer = json.loads(raw)["candidates"][0]
        assert answer["content"]["parts"] == [{"text": "OK."}] and answer["finishReason"] == "STOP"
        status, _, raw = _post(api.base_url, {"contents": []}, path="/v1beta/models/m:countTokens")
        assert status == 200 and json.loads(raw)["totalTokens"] >= 1
        status, _, raw = _post(api.base_url, {})
        assert status == 400 and json.loads(raw)["error"]["status"] == "INVALID_ARGUMENT"
        status, _, raw = _post(api.base_url, {"contents": []}, path="/v1/models/m:embedContent")
        assert status == 404 and json.loads(raw)["error"]["code"] == 404
