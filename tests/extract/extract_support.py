"""Helpers for extraction tests: HAND-WRITTEN model answers and a duck-typed fake client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

FIXTURES = Path(__file__).parent / "fixtures"


def answer(**fields: Any) -> dict[str, Any]:
    """A HAND-WRITTEN model answer in the schema's shape; unspecified fields are empty."""
    base: dict[str, Any] = {"decisions": [], "preferences": [], "conventions": [], "gotchas": [],
                            "active_work": {"current_task": "", "blockers": [], "next_steps": [], "open_questions": []},
                            "flush_ok": False}
    base.update(fields)
    return base


def message(data: dict[str, Any] | str, usage: dict[str, int] | None = None,
            model: str = "claude-haiku-4-5-20251001") -> dict[str, Any]:
    """A HAND-WRITTEN Messages API response (structured output as a text block)."""
    text = data if isinstance(data, str) else json.dumps(data)
    return {"id": "msg_test", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": usage or {"input_tokens": 1000, "output_tokens": 500, "cache_creation_input_tokens": 0,
                               "cache_read_input_tokens": 0}}


class _Obj(dict):  # attribute access like the SDK's models
    def __getattr__(self, name: str) -> Any:
        value = self[name] if name in self else None
        if isinstance(value, dict):
            return _Obj(value)
        if isinstance(value, list):
            return [_Obj(v) if isinstance(v, dict) else v for v in value]
        return value


class FakeClient:
    """Duck-typed `anthropic.Anthropic`: `messages.create(**kw)` returns what `respond(kw)` gives."""

    def __init__(self, respond: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self.calls: list[dict[str, Any]] = []
        outer = self

        class Messages:
            def create(self, **kwargs: Any) -> Any:
                outer.calls.append(kwargs)
                return _Obj(respond(kwargs))

        self.messages = Messages()

    def user_texts(self) -> list[str]:
        return [c["messages"][0]["content"] for c in self.calls]
