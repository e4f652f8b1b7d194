"""GitHub Copilot CLI's adapter: its hook events, its payloads in the neutral shape, its output, its session log lines.

Facts: vendor-notes/copilot-cli.md (Copilot CLI 1.0.102). On the hooks' hot path: only `os` (already loaded) and
the Codex adapter's patch reader (no imports of its own).
"""

import os

from .codex import patch_files

NAME = "copilot"
# Copilot event (camelCase: the CLI's own payloads, fact 5) -> (neutral event, matcher, timeout in seconds). Every
# event's context reaches the model in camelCase (fact 7); the PascalCase names get Claude Code's payloads but
# drop most of their context (fact 6).
EVENTS: dict[str, tuple[str, "str | None", int]] = {
    "sessionStart": ("session-start", None, 10),
    "userPromptSubmitted": ("user-prompt-submit", None, 10),
    # Every tool: an anchor may name any tool; the handler reads one small file and returns at once (SPEC §4.11).
    "preToolUse": ("pre-tool-use", None, 10),
    "postToolUse": ("post-tool-use", None, 10),
    "postToolUseFailure": ("post-tool-use-failure", None, 10),
    "preCompact": ("pre-compact", None, 10),
    "agentStop": ("stop", None, 10),
    "sessionEnd": ("session-end", None, 5),
}
# Copilot's tool names -> the neutral (Claude Code) names (fact 9): the claude-family models get view/create/edit,
# the gpt-5 family apply_patch (its argument is the patch text, as Codex's).
TOOLS = {"bash": "Bash", "powershell": "Bash", "view": "Read", "create": "Write", "edit": "Edit",
         "apply_patch": "Edit", "grep": "Grep", "rg": "Grep", "glob": "Glob"}
# Copilot names an MCP tool <server>-<tool> (fact 12); Claude Code mcp__<server>__<tool>.
CLAUDE_TOOL_PREFIX, TOOL_PREFIX = "mcp__agentctx__", "agentctx-"
CLAUDE_TOOLS = ("mcp__agentctx__ctx_search(query) returns a compact index, mcp__agentctx__ctx_get(ids) full records, "
                "mcp__agentctx__ctx_related(file) what is known about a file (load them with ToolSearch if deferred).")
CONTEXT_TOOLS = ("agentctx-ctx_search(query) returns a compact index, agentctx-ctx_get(ids) full records, "
                 "agentctx-ctx_related(file) what is known about a file.")
# The shell tool's result ends with this line, whatever the exit code (fact 10): `<shellId: 0 completed with exit
# code 2>`.
_SHELL_TAIL = "<shellId: "
_EXIT = " completed with exit code "
SOURCES = {"new": "startup", "startup": "startup", "resume": "resume"}


def home() -> str:
    """Copilot's user directory: `$COPILOT_HOME`, else ~/.copilot (fact 2)."""
    return os.environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")


def transcript(session_id: str) -> str:
    """Where the CLI keeps a session's event log (fact 14): agentStop names it; the other events do not."""
    plain = session_id and os.sep not in session_id and "/" not in session_id and not session_id.startswith(".")
    return os.path.join(home(), "session-state", session_id, "events.jsonl") if plain else ""  # never outside it


def echoes_claude(data: dict) -> bool:  # type: ignore[type-arg]
    """A Claude Code-shaped payload that Copilot CLI sent: in a trusted folder it runs the repository's
    .claude/settings.json hooks too (fact 4), ours among them when `init --project` wrote them there; Claude Code
    itself always sends `transcript_path`. With our own Copilot hooks registered, that second run stands aside."""
    return (os.environ.get("COPILOT_CLI") == "1" and "transcript_path" not in data
            and os.path.exists(os.path.join(home(), "hooks", "agentctx.json")))


def shell_exit(text: str) -> "tuple[str, int | None]":
    """The shell tool's output without its closing `<shellId: N completed with exit code C>` line, and C (None
    without such a line: a command still running in the background)."""
    lines = text.rstrip("\n").split("\n")
    last = lines[-1]
    if not (last.startswith(_SHELL_TAIL) and _EXIT in last):
        return text, None
    code = last.rpartition(_EXIT)[2].rstrip(">").strip()
    body = "\n".join(lines[:-1])
    return body, int(code) if code.isdigit() else None


def tool_name(name: object) -> str:
    if not isinstance(name, str):
        return ""
    if name.startswith(TOOL_PREFIX):
        return CLAUDE_TOOL_PREFIX + name[len(TOOL_PREFIX):]
    return TOOLS.get(name, name)


def tool_input(name: object, args: object) -> object:
    """A tool's arguments as Claude Code's tool of that name takes them (the fields capture and delivery read)."""
    if name == "apply_patch":
        patch = args.get("input") if isinstance(args, dict) else args
        return {"file_paths": patch_files(patch if isinstance(patch, str) else "")}
    if not isinstance(args, dict):
        return args
    if name in ("view", "create", "edit") and isinstance(args.get("path"), str):
        out = {k: v for k, v in args.items() if k != "path"}
        out["file_path"] = args["path"]
        if name == "create" and "file_text" in args:
            out["content"] = out.pop("file_text")
        if name == "edit":
            out["old_string"], out["new_string"] = out.pop("old_str", ""), out.pop("new_str", "")
        return out
    return args


def payload(event: str, data: dict) -> "dict | None":  # type: ignore[type-arg]
    """Copilot's stdin as the neutral payload: camelCase names as Claude Code's, tools and their arguments mapped. A
    shell call that exited nonzero still comes as postToolUse, "success" with the code in its last line (fact 10):
    its output becomes `error`, as Claude Code's PostToolUseFailure gives it ("Exit code N", then the output)."""
    session = data.get("sessionId") if isinstance(data.get("sessionId"), str) else ""
    path, source = data.get("transcriptPath"), data.get("source")
    out: dict = {"session_id": session, "cwd": data.get("cwd"),  # type: ignore[type-arg]
                 "transcript_path": path if isinstance(path, str) and path else transcript(session),
                 "source": SOURCES.get(source, source) if isinstance(source, str) else "",
                 "prompt": data.get("prompt"), "reason": data.get("reason"), "trigger": data.get("trigger"),
                 "stop_hook_active": data.get("stop_hook_active")}
    if event in ("pre-tool-use", "post-tool-use", "post-tool-use-failure"):
        name = data.get("toolName")
        out["tool_name"] = tool_name(name)
        out["tool_input"] = tool_input(name, data.get("toolArgs"))
        error = data.get("error")
        if isinstance(error, dict):
            error = error.get("message")
        if event == "post-tool-use-failure":
            out["error"] = error if isinstance(error, str) and error else "the tool call failed"
        elif event == "post-tool-use":
            result = data.get("toolResult")
            text = result.get("textResultForLlm") if isinstance(result, dict) else None
            text = text if isinstance(text, str) else ""
            code = None
            if name in ("bash", "powershell"):
                text, code = shell_exit(text)
            out["tool_response"] = {"output": text, "exit_code": code or 0}
            if code is None and name in ("bash", "powershell"):
                out["exit_unknown"] = True
            failed = isinstance(result, dict) and result.get("resultType") not in (None, "success")
            if code or failed:
                out["error"] = "\n".join(p for p in (f"Exit code {code}" if code else "", text) if p)
    return out


def _names(text: str) -> str:
    """Context that names our MCP tools as Claude Code's model reaches them, named as Copilot's does."""
    return text.replace(CLAUDE_TOOLS, CONTEXT_TOOLS).replace(CLAUDE_TOOL_PREFIX, TOOL_PREFIX)


def output(event: str, out: "dict | None") -> "dict | None":  # type: ignore[type-arg]
    """Copilot's output (fact 7): `additionalContext` at the top level for every event that takes context, and
    preToolUse's `permissionDecision` with its reason (the reason reaches the model; `ask` is a prompt in an
    interactive session and a denial with the reason in `-p`, fact 8). Claude Code's `systemMessage` has no
    counterpart: left out."""
    specific = out.get("hookSpecificOutput") if out else None
    if not isinstance(specific, dict):
        return None
    result: dict = {}  # type: ignore[type-arg]
    text = specific.get("additionalContext")
    if isinstance(text, str) and text:
        result["additionalContext"] = _names(text)
    decision = specific.get("permissionDecision")
    if event == "pre-tool-use" and decision in ("ask", "deny"):
        result["permissionDecision"] = decision
        result["permissionDecisionReason"] = _names(str(specific.get("permissionDecisionReason") or ""))
    return result or None


# --- the session log (~/.copilot/session-state/<id>/events.jsonl, fact 14) -------------------------------------

def is_line(line: dict) -> bool:  # type: ignore[type-arg]
    """An event line: `{"type": "user.message", "data": {...}, "id", "timestamp", "parentId"}`."""
    kind = line.get("type")
    return isinstance(kind, str) and "." in kind and isinstance(line.get("data"), dict) and "message" not in line


def line_cwd(line: dict) -> "str | None":  # type: ignore[type-arg]
    """The session's directory, from its first line (`session.start`, `data.context.cwd`)."""
    context = line["data"].get("context") if line.get("type") == "session.start" else None
    cwd = context.get("cwd") if isinstance(context, dict) else None
    return cwd if isinstance(cwd, str) else None


def line_turn(line: dict) -> "tuple[str, str] | None":  # type: ignore[type-arg]
    """(role, text) of what the developer typed (`user.message`'s `content`: without the date and the hook context
    the CLI adds into `transformedContent`) or the assistant wrote; None for everything else."""
    kind, data = line.get("type"), line["data"]
    text = data.get("content")
    if not isinstance(text, str) or not text.strip():
        return None
    if kind == "user.message":
        return "developer", text.strip()
    if kind == "assistant.message":
        return "assistant", text.strip()
    return None


def line_key(line: dict) -> "str | None":  # type: ignore[type-arg]
    """Events are appended once each: nothing is rewritten."""
    return None


# The guard decisions whose answer the session log shows (hooks/arrival.py): a denied call's reason, as the tool's
# result (an `ask` is denied in `-p`, fact 8; a record marked "before" is a deny too). A preToolUse context reaches
# the model (fact 7) but the log keeps it nowhere (1.0.102, observed: its `hook.end` has no `output`, and no other
# event carries it), so a plain delivery is neither arrived nor not found.
ARRIVAL_LOGGED = frozenset({"deny", "ask"})


def line_context(line: dict) -> "list[str]":  # type: ignore[type-arg]
    """Where an event line holds what a hook gave the model: a `tool.execution_complete` whose call was denied
    ("Denied by preToolUse hook: R", fact 8, in `error.message`); a `hook.end` output is the hook's stdout, not it."""
    data = line.get("data")
    if line.get("type") != "tool.execution_complete" or not isinstance(data, dict):
        return []
    error = data.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    return [message[:65536]] if isinstance(message, str) else []
