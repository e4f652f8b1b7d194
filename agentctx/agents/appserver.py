"""A minimal client of `codex app-server` (JSON-RPC over stdio): initialize, then requests answered in order, each
within a deadline, so a Codex that hangs cannot hang `agentctx init` or `doctor`."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from typing import Any

TIMEOUT_S = 30.0


class AppServer:
    """`with AppServer(codex, cwd) as s: s.call(method, params)`; RuntimeError when it fails or says no."""

    def __init__(self, executable: str, cwd: str, *, timeout: float = TIMEOUT_S) -> None:
        self.executable, self.cwd, self.timeout = executable, cwd, timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._next = 0

    def __enter__(self) -> "AppServer":
        self.proc = subprocess.Popen([self.executable, "app-server"], cwd=self.cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.call("initialize", {"clientInfo": {"name": "agentctx", "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "initialized"})
        return self

    def __exit__(self, *exc: Any) -> None:
        proc = self.proc
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        finally:
            if proc.stdout:
                proc.stdout.close()

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def _line(self, deadline: float) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise RuntimeError(f"codex app-server did not answer within {self.timeout:g} s")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise RuntimeError("codex app-server exited")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The result of one request (notifications and other messages in between are skipped)."""
        self._next += 1
        number = self._next
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                message = json.loads(self._line(deadline))
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"codex app-server {method}: {message['error'].get('message', message['error'])}")
                result = message.get("result")
                return result if isinstance(result, dict) else {}

    def hooks(self, cwd: str) -> list[dict[str, Any]]:
        """Every hook Codex sees for `cwd`, with its key, command, current hash and trust status (`hooks/list`)."""
        result = self.call("hooks/list", {"cwds": [cwd]})
        return [h for entry in result.get("data") or [] if isinstance(entry, dict)
                for h in entry.get("hooks") or [] if isinstance(h, dict)]
