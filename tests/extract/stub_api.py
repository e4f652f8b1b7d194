"""A local stub of the Messages API on 127.0.0.1 for the real `anthropic` client (its answers are HAND-WRITTEN).

It checks what a real endpoint would care about (path, headers, model, output schema) and records every request;
`scripted_model` plays the model: it answers from the request's NEW TRANSCRIPT with rule-based entries.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Reply = tuple[int, dict[str, Any], dict[str, str]]


def usage_for(body: dict[str, Any], text: str) -> dict[str, Any]:
    """Usage in the API's shape, sized from the request and answer (chars / 4), no caching (prefix < 4,096 t)."""
    sent = len(json.dumps(body.get("system", ""))) + len(json.dumps(body.get("messages", "")))
    return {"input_tokens": sent // 4, "output_tokens": max(1, len(text) // 4), "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0, "cache_creation": {"ephemeral_5m_input_tokens": 0,
                                                             "ephemeral_1h_input_tokens": 0},
            "service_tier": "standard"}


def reply(body: dict[str, Any], data: dict[str, Any] | str) -> Reply:
    text = data if isinstance(data, str) else json.dumps(data)
    return 200, {"id": f"msg_stub{int(time.time() * 1e6) % 10**8:08d}", "type": "message", "role": "assistant",
                 "model": "claude-haiku-4-5-20251001", "content": [{"type": "text", "text": text}],
                 "stop_reason": "end_turn", "stop_sequence": None, "usage": usage_for(body, text)}, {}


def new_part(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    return content.split("NEW TRANSCRIPT:\n", 1)[1] if "NEW TRANSCRIPT:\n" in content else ""


def carry_part(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    m = re.search(r"EARLIER CONTEXT \(already processed\):\n(.*?)\n\nNEW TRANSCRIPT:", content, re.DOTALL)
    return m.group(1) if m else ""


def developer_lines(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^Developer: (.+)$", text, re.MULTILINE)]


def scripted_model(body: dict[str, Any]) -> Reply:
    """HAND-WRITTEN behaviour: "we decided to X" → an explicit decision quoting it; "next: Y" → active_work."""
    if "Chunk 1 extraction:" in body["messages"][0]["content"]:
        return synthesis(body)
    decisions, task, steps = [], "", []
    for line in developer_lines(new_part(body)):
        m = re.search(r"we decided to ([^.]+)", line)
        if m:
            decisions.append({"what": m.group(1).strip().capitalize(), "rationale": "", "supersedes": None,
                              "confidence": "explicit", "evidence": m.group(0)})
        m = re.search(r"next: ([^.]+)", line)
        if m:
            task, steps = m.group(1).strip(), [m.group(1).strip()]
    data = {"decisions": decisions, "preferences": [], "conventions": [], "gotchas": [],
            "active_work": {"current_task": task, "blockers": [], "next_steps": steps, "open_questions": []},
            "flush_ok": not decisions and not task}
    return reply(body, data)


def synthesis(body: dict[str, Any]) -> Reply:
    chunks = [json.loads(m) for m in re.findall(r"Chunk \d+ extraction:\n(\{.*\})", body["messages"][0]["content"])]
    merged: dict[str, Any] = {"decisions": [], "preferences": [], "conventions": [], "gotchas": [],
                              "active_work": chunks[-1]["active_work"], "flush_ok": all(c["flush_ok"] for c in chunks)}
    for c in chunks:
        merged["decisions"] += c["decisions"]
    return reply(body, merged)


class StubAPI:
    """`with StubAPI(handler) as api:` serves on api.base_url; api.requests holds (path, headers, body) tuples."""

    def __init__(self, handler: Callable[[dict[str, Any]], Reply] = scripted_model, delay: float = 0.0) -> None:
        self.handler, self.delay = handler, delay
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self.raw: list[bytes] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                body = json.loads(raw)
                stub.raw.append(raw)
                stub.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if stub.delay:
                    time.sleep(stub.delay)
                status, data, headers = stub.handler(body)
                out = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("request-id", "req_stub")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "StubAPI":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def bodies(self) -> list[dict[str, Any]]:
        return [b for _, _, b in self.requests]
