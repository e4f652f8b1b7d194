"""Which extraction backend runs, and why: the Messages API, the user's own Claude Code CLI, or none."""

from __future__ import annotations

import os
from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Backend = Literal["api", "claude-code", "off"]

# Set in the environment of the `claude` child an extraction runs: any agentctx hook it would start does nothing.
CHILD_ENV = "AGENTCTX_EXTRACTION_CHILD"


# A named tuple, not a dataclass: the Stop hook asks this on every turn, and dataclasses load `inspect` (~8 ms).
class Choice(namedtuple("Choice", "backend reason claude", defaults=(None,))):
    """The backend extraction uses now (api, claude-code or off), why, and for claude-code the executable it runs."""

    __slots__ = ()

    @property
    def on(self) -> bool:
        return self.backend != "off"

    def describe(self) -> str:
        return f"{self.backend} ({self.reason})"


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_claude(configured: "str | None") -> "str | None":
    """The Claude Code executable: the path `init` recorded when it is still there, else `claude` on PATH."""
    if configured and _executable(configured):
        return configured
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory or ".", "claude")
        if directory and _executable(candidate):
            return os.path.abspath(candidate)
    return None


def _api_ready() -> "tuple[bool, str]":
    from importlib.util import find_spec

    if not os.environ.get("ANTHROPIC_API_KEY", "").strip():
        return False, "no ANTHROPIC_API_KEY"
    if find_spec("anthropic") is None:
        return False, "the [llm] extra is not installed"
    return True, "the [llm] extra and ANTHROPIC_API_KEY"


def choose(settings: "dict[str, Any] | None" = None) -> Choice:
    """The backend for `settings` (config.json when None). Cheap: no subprocess, no network (the Stop hook asks)."""
    if settings is None:
        from ..base import config

        settings = config.load()
    wanted = settings.get("extraction", "auto")
    if not settings.get("llm", True) or wanted == "off":
        why = "config llm=false" if not settings.get("llm", True) else "config extraction=off"
        return Choice("off", why)
    api_ok, api_why = _api_ready()
    claude = find_claude(settings.get("claudeCodePath")) if wanted in ("auto", "claude-code") else None
    if wanted == "api":
        return Choice("api", api_why) if api_ok else Choice("off", f"extraction=api but {api_why}")
    if wanted == "claude-code":
        if claude:
            return Choice("claude-code", f"config extraction=claude-code; {claude}", claude)
        return Choice("off", "extraction=claude-code but no `claude` executable was found (PATH, claudeCodePath)")
    if api_ok:
        return Choice("api", api_why)
    if claude:
        return Choice("claude-code", f"{api_why}; your Claude Code CLI at {claude}", claude)
    return Choice("off", f"{api_why}, and no Claude Code CLI was found")


def how_to_turn_on(settings: "dict[str, Any]", install_llm: str) -> str:
    """What turns extraction on, in words, for a user whose choice came out off (not by their config). When Claude
    Code is installed, "install Claude Code" would be wrong: with `extraction api` the way is back to `auto`."""
    claude = find_claude(settings.get("claudeCodePath"))
    if claude and settings.get("extraction") == "api":
        return (f"set ANTHROPIC_API_KEY (with the [llm] extra: {install_llm}), or extract through your Claude Code "
                f"CLI at {claude}: `agentctx config set extraction auto`")
    if claude:
        return f"set ANTHROPIC_API_KEY with the [llm] extra ({install_llm})"
    return ("install Claude Code (`claude` on PATH, or `agentctx config set claudeCodePath PATH`) or set "
            f"ANTHROPIC_API_KEY with the [llm] extra ({install_llm})")
