"""What the model API stand-ins share (Messages, Responses, Gemini): a threaded HTTP server on 127.0.0.1 that records
every request, a JSON body reader (gzip too), JSON and server-sent-event answers, and the `delay`/`hold` knobs tests
use to slow a turn down or keep a request in flight. Each API's stand-in says what a POST gets (`answer`) and how
its errors look (`error_body`)."""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up (or was killed) is no news
            super().handle_error(request, client_address)


class Exchange:
    """One request being answered: its path (no query), parsed body, and the ways to answer it."""

    def __init__(self, handler: BaseHTTPRequestHandler, standin: "StandIn", path: str, body: Any) -> None:
        self.handler, self.standin, self.path, self.body = handler, standin, path, body

    def json(self, status: int, data: dict[str, Any]) -> None:
        h = self.handler
        out = json.dumps(data).encode()
        h.send_response(status)
        h.send_header("content-type", self.standin.json_type)
        for name, value in self.standin.extra_headers():
            h.send_header(name, value)
        h.send_header("content-length", str(len(out)))
        h.end_headers()
        h.wfile.write(out)

    def error(self, status: int, kind: str, text: str, **extra: Any) -> None:
        self.json(status, self.standin.error_body(status, kind, text, **extra))

    def sse(self, frames: Iterable[bytes]) -> None:
        """A streamed answer: each frame is one server-sent event, written and flushed as it comes."""
        h = self.handler
        h.send_response(200)
        h.send_header("content-type", "text/event-stream")
        h.send_header("cache-control", "no-cache")
        for name, value in self.standin.extra_headers():
            h.send_header(name, value)
        h.send_header("connection", "close")
        h.end_headers()
        h.close_connection = True
        for frame in frames:
            h.wfile.write(frame)
            h.wfile.flush()

    def held(self, status: int, kind: str) -> bool:
        """Wait `delay`; a request `hold` accepts waits for `release` and is answered with an error. True when held."""
        standin = self.standin
        if standin.delay:
            time.sleep(standin.delay)
        if standin.hold is not None and standin.hold(self.body):
            standin.holding.set()
            standin.release.wait(60)
            self.error(status, kind, "held by the test")
            return True
        return False


class StandIn:
    """`with SomeStandIn() as api:` serves on api.base_url; api.requests holds (method, path, headers, body)."""

    json_type = "application/json"
    url_path = ""  # appended to the base URL clients are given

    def __init__(self, script: Callable[[dict[str, Any]], Any], *, delay: float = 0.0,
                 hold: Callable[[dict[str, Any]], bool] | None = None) -> None:
        """`delay`: seconds before each answer. `hold`: requests it accepts are not answered until `release` is set
        (or the stand-in stops): `holding` is set when one arrives, so a test can kill the client mid-turn."""
        self.script, self.delay, self.hold = script, delay, hold
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.lock = threading.Lock()
        self.holding, self.release = threading.Event(), threading.Event()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _log(self, body: Any) -> None:
                with standin.lock:
                    standin.requests.append((self.command, self.path,
                                             {k.lower(): v for k, v in self.headers.items()}, body))

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self._log(None)
                standin.not_found(Exchange(self, standin, self.path.split("?", 1)[0], None), "GET")

            do_HEAD = do_GET  # noqa: N815

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                if (self.headers.get("content-encoding") or "").lower() == "gzip":
                    raw = gzip.decompress(raw)
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {"_unparsed": raw[:4000].decode("utf-8", "replace"),
                            "_content_encoding": self.headers.get("content-encoding")}
                self._log(body)
                standin.answer(Exchange(self, standin, self.path.split("?", 1)[0], body))

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}{self.url_path}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # What each API's stand-in defines.
    def answer(self, ex: Exchange) -> None:
        raise NotImplementedError

    def error_body(self, status: int, kind: str, text: str, **extra: Any) -> dict[str, Any]:
        raise NotImplementedError

    def not_found(self, ex: Exchange, method: str) -> None:
        ex.error(404, "not_found_error", f"the stand-in serves no {method} {ex.path}")

    def extra_headers(self) -> list[tuple[str, str]]:
        return []

    def __enter__(self) -> Any:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def posted(self, keep: Callable[[str], bool]) -> list[dict[str, Any]]:
        """The parsed bodies of the POSTs whose path (no query) `keep` accepts, in arrival order."""
        with self.lock:
            return [b for m, p, _, b in self.requests if m == "POST" and keep(p.split("?", 1)[0])]
