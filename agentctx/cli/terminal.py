"""The terminal the interactive commands talk to (review, forget, import): one seam that tests replace."""

from __future__ import annotations

import sys

# C0 controls but tab and newline, DEL, and C1 controls (0x9b is a one-byte CSI on many terminals): stored text comes
# from MCP clients, teammates' team files and transcripts, and must not move the cursor, retitle the window or ring.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0))}
# In JSON, json.dumps escapes C0 itself; DEL and C1 pass through raw unless ensure_ascii.
_JSON_CONTROLS = {c: f"\\u{c:04x}" for c in range(0x7f, 0xa0)}


def printable(text: str) -> str:
    """`text` with every control character but tab and newline shown as a visible escape (`\\x1b`): what every
    terminal printer of stored text writes."""
    return text.translate(_CONTROLS)


def printable_json(text: str) -> str:
    """Serialized JSON with DEL and C1 characters escaped (`\\u009b`): the same value, nothing raw on a terminal."""
    return text.translate(_JSON_CONTROLS)


def is_terminal() -> bool:
    """Whether a person can answer: stdin is a terminal. Tests replace this function to drive the flows."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


class Terminal:
    """Questions and answers on stdin/stdout, looked up at call time (so a replaced sys.stdin is used)."""

    def say(self, text: str = "") -> None:
        sys.stdout.write(printable(text) + "\n")
        sys.stdout.flush()

    def ask(self, prompt: str) -> str | None:
        """One answer line without its newline; None at end of input (treated as "stop" by every flow)."""
        sys.stdout.write(printable(prompt))
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            return None
        return line.rstrip("\r\n")

    def ask_lines(self, prompt: str) -> list[str] | None:
        """Lines until an empty one (a multi-line body); None at end of input."""
        self.say(prompt)
        lines: list[str] = []
        while True:
            line = self.ask("> ")
            if line is None:
                return None
            if not line.strip():
                return lines
            lines.append(line)

    def yes(self, question: str) -> bool:
        answer = self.ask(f"{question} [y/N] ")
        return answer is not None and answer.strip().lower() in ("y", "yes")
