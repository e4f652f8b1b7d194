"""The dashboard's HTTP server: loopback only, a per-run token, Host and fetch-metadata checks, a strict CSP."""

from __future__ import annotations

import hmac
import json
import secrets
import sqlite3
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from ..base import paths
from ..base.errors import AgentctxError
from ..base.project import Project
from ..store import db
from . import api

DEFAULT_PORT = 7377
LOOPBACK = ("127.0.0.1", "localhost", "::1")
TOKEN_HEADER = "X-Agentctx-Token"
MAX_BODY = 1 << 20
STATIC = {"/": ("index.html", "text/html; charset=utf-8"), "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/graph.js": ("graph.js", "text/javascript; charset=utf-8"),
          "/app.css": ("app.css", "text/css; charset=utf-8")}
# The page loads only its own files and talks only to its own origin; nothing may frame it.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


@dataclass(frozen=True)
class Settings:
    """What every request handler needs: the project, the token, and the Host values that name this server."""

    project: Project
    token: str
    hosts: frozenset[str]
    open_db: Callable[[], sqlite3.Connection]

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(f"http://{h}" for h in self.hosts)


def _static(name: str) -> bytes:
    return resources.files("agentctx.ui").joinpath("static", name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    """One request: checks first (Host, token, fetch metadata), then a route from `api.ROUTES` or a static file."""

    server_version = "agentctx-ui"
    sys_version = ""
    settings: Settings  # set on the subclass made per server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        pass  # no request log on the terminal: quiet, and nothing of the page's queries ends up in scrollback

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in {**SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False, default=str).encode(), "application/json; charset=utf-8")

    def _error(self, status: int, code: str, message: str) -> None:
        self._json(status, {"error": message, "code": code})

    def _host_ok(self) -> bool:
        # DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends Host: evil.example.
        return (self.headers.get("Host") or "").lower() in self.settings.hosts

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._handle("GET")

    def do_HEAD(self) -> None:  # noqa: N802
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._handle("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle("DELETE")

    def do_OPTIONS(self) -> None:  # noqa: N802
        # No CORS: a preflight gets no Access-Control-* headers, so browsers refuse cross-origin calls.
        if not self._host_ok():
            return self._error(421, "bad_host", "this server answers only to 127.0.0.1 and localhost")
        self._error(405, "method_not_allowed", "OPTIONS is not supported")

    def _handle(self, method: str) -> None:
        try:
            self._dispatch(method)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as exc:  # the server survives anything one request does
            try:
                self._error(500, "internal", f"{type(exc).__name__}: {str(exc)[:200]}")
            except OSError:
                pass

    def _dispatch(self, method: str) -> None:
        if not self._host_ok():
            return self._error(421, "bad_host", "this server answers only to 127.0.0.1 and localhost")
        url = urlsplit(self.path)
        if not url.path.startswith("/api/"):
            if method != "GET" or url.path not in STATIC:
                return self._error(404, "not_found", "no such page")
            name, content_type = STATIC[url.path]
            return self._send(200, _static(name), content_type)
        sent = self.headers.get(TOKEN_HEADER) or ""
        if not hmac.compare_digest(sent.encode(), self.settings.token.encode()):
            return self._error(401, "bad_token", f"missing or wrong {TOKEN_HEADER}: open the URL `agentctx ui` printed")
        found = api.route(method, url.path)
        if found is None:
            allowed = api.allowed_methods(url.path)
            if allowed:
                return self._error(405, "method_not_allowed", f"use {' or '.join(allowed)}")
            return self._error(404, "not_found", f"no API endpoint {url.path}")
        handler, args = found
        body: dict[str, Any] = {}
        if method != "GET":
            problem = self._cross_site()
            if problem:
                return self._error(403, "cross_site", problem)
            parsed = self._read_body()
            if isinstance(parsed, tuple):
                return self._error(*parsed)
            body = parsed
        params = parse_qs(url.query, keep_blank_values=False)
        conn = self.settings.open_db()
        try:
            data = handler(api.Request(conn, self.settings.project, params, body, args))
        except api.ApiError as exc:
            return self._error(exc.status, exc.code, str(exc))
        except AgentctxError as exc:
            return self._error(api.error_status(exc), exc.code, str(exc))
        except sqlite3.Error as exc:
            err = db.translate(exc, paths.db_path())
            return self._error(503, err.code, str(err))
        finally:
            conn.close()
        self._json(200, data)

    def _cross_site(self) -> str | None:
        """Why a mutating request is refused, or None: it must come from this page, not from another site."""
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site not in ("same-origin", "none"):
            return f"cross-site request refused (Sec-Fetch-Site: {site})"
        origin = self.headers.get("Origin")
        if origin is not None and origin.lower() not in self.settings.origins:
            return f"request from another origin refused (Origin: {origin})"
        return None

    def _read_body(self) -> dict[str, Any] | tuple[int, str, str]:
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return 415, "bad_content_type", "send the body as application/json"
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return 400, "bad_length", "Content-Length is not a number"
        if length < 0 or length > MAX_BODY:
            return 413, "too_large", f"the body is limited to {MAX_BODY} bytes"
        raw = self.rfile.read(length) if length else b"{}"
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return 400, "bad_json", f"the body is not valid JSON ({exc})"
        if not isinstance(data, dict):
            return 400, "bad_json", "the body must be a JSON object"
        return data


def make_server(project: Project, *, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                token: str | None = None, fallback: bool = True) -> tuple[ThreadingHTTPServer, Settings]:
    """Bind the server (falling back to a free port when the default is taken) without serving yet."""
    db_file = paths.db_path()

    def open_db() -> sqlite3.Connection:
        return db.connect(db_file)

    try:
        httpd = ThreadingHTTPServer((host, port), Handler)
    except OSError:
        if not fallback:
            raise
        httpd = ThreadingHTTPServer((host, 0), Handler)
    httpd.daemon_threads = True
    bound = httpd.server_address[1]
    names = {"127.0.0.1", "localhost"} if host in LOOPBACK else {host}
    settings = Settings(project, token or secrets.token_urlsafe(32),
                        frozenset(f"{n}:{bound}" for n in names), open_db)
    httpd.RequestHandlerClass = type("BoundHandler", (Handler,), {"settings": settings})
    return httpd, settings


def url_for(settings: Settings, httpd: ThreadingHTTPServer) -> str:
    """The URL to open: the token rides in the fragment, which browsers never send to a server."""
    host = "127.0.0.1" if "127.0.0.1:" + str(httpd.server_address[1]) in settings.hosts else next(iter(settings.hosts)).rsplit(":", 1)[0]
    return f"http://{host}:{httpd.server_address[1]}/#token={settings.token}"


def serve(project: Project, *, host: str = "127.0.0.1", port: int | None = None, open_browser: bool = True,
          out: Callable[[str], None] = print) -> int:
    """Serve until Ctrl-C; returns the exit status."""
    db.connect(paths.db_path()).close()  # a missing or damaged store fails here, with its own message
    httpd, settings = make_server(project, host=host, port=port or DEFAULT_PORT, fallback=port is None)
    url = url_for(settings, httpd)
    out(f"agentctx ui: {url}")
    out("(Ctrl-C to stop)")
    # Through a pipe stdout is block-buffered: without this the URL waits in the buffer until the server stops.
    sys.stdout.flush()
    if open_browser:
        import webbrowser

        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        httpd.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        out("agentctx ui: stopped")
    finally:
        httpd.server_close()
    sys.stdout.flush()
    return 0
