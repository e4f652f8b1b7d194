"""The coding agents agentctx serves beside Claude Code (Codex CLI, Gemini CLI, GitHub Copilot CLI): one adapter per
agent for its hook payloads, its output shape, its transcript lines and its settings files, behind one seam the
agent-neutral hooks call.

May import: base (and the stash). The hot path loads this package and one adapter module; registration
(`codex_setup`, `gemini_setup`, `copilot_setup`) and `files` load only for `init`, `doctor` and `uninstall`.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

# Every agent `agentctx hook --agent NAME` and `init --agent NAME` accept, Claude Code first (no adapter module:
# the neutral payload and output are Claude Code's own shapes, vendor-notes/claude-code-hooks.md).
NAMES = ("claude", "codex", "gemini", "copilot")
LABELS = {"claude": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI", "copilot": "Copilot CLI"}


def adapter(name: str) -> "ModuleType | None":
    """The hook-side adapter of agent `name` (payload, output, transcript lines); None for Claude Code and unknowns."""
    if name == "codex":
        from . import codex

        return codex
    if name == "gemini":
        from . import gemini

        return gemini
    if name == "copilot":
        from . import copilot

        return copilot
    return None


def line_adapter(line: dict) -> "ModuleType | None":  # type: ignore[type-arg]
    """The adapter whose transcript wrote this (parsed) JSONL line; None for a Claude Code line. Each adapter reads
    its lines with `line_turn` (role and text, or None), `line_key` (a record rewritten under the same key replaces
    the earlier one) and `line_cwd` (the session's directory, where the line records it)."""
    from . import codex, copilot, gemini

    for module in (codex, gemini, copilot):
        if module.is_line(line):
            return module
    return None
