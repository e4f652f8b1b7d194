"""The terminal the interactive commands talk to (review, forget, import): one seam that tests replace."""

from __future__ import annotations

import sys


def is_terminal() -> bool:
    """Whether a person can answer: stdin is a terminal. Tests replace this function to drive the flows."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


class Terminal:
    """Questions and answers on stdin/stdout, looked up at call time (so a replaced sys.stdin is used)."""

    def say(self, text: str = "") -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def ask(self, prompt: str) -> str | None:
        """One answer line without its newline; None at end of input (treated as "stop" by every flow)."""
        sys.stdout.write(prompt)
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
