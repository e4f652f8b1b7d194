"""Codex CLI's adapter: its hook events, its payloads in the neutral shape, its output, its rollout transcript lines.

Facts: vendor-notes/codex-cli.md (Codex CLI 0.171.0). On the hooks' hot path: no imports at all.
"""

NAME = "codex"
# Codex event -> (neutral event, matcher, timeout in seconds). The matcher of a tool event is a regex on the tool
# name (fact 11): the shell (`Bash`, Claude Code's name) and apply_patch, the only two whose effects we capture.
# SessionEnd is clamped to 3 s whatever we ask (fact 18): the handler only queues a row and spawns.
EVENTS: dict[str, tuple[str, "str | None", int]] = {
    "SessionStart": ("session-start", None, 10),
    "UserPromptSubmit": ("user-prompt-submit", None, 10),
    # Every tool: an anchor may name any tool; the handler reads one small file and returns at once (SPEC §4.11).
    "PreToolUse": ("pre-tool-use", None, 10),
    "PostToolUse": ("post-tool-use", "^(Bash|apply_patch|mcp__agentctx__ctx_get)$", 10),
    "PreCompact": ("pre-compact", None, 10),
    "Stop": ("stop", None, 10),
    "SessionEnd": ("session-end", None, 3),
}
# Patch headers that name a file the patch writes (apply_patch's grammar; fact 13).
_PATCH_FILES = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
# User-role items Codex writes itself, not the developer (fact 20): the environment and AGENTS.md instructions.
_HARNESS = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>",
            "<turn_aborted>", "<user_shell_command>")


def patch_files(patch: str) -> list[str]:
    """The files an apply_patch text adds, updates, deletes or moves to, in order, each once."""
    found: list[str] = []
    for line in patch.splitlines():
        for head in _PATCH_FILES:
            if line.startswith(head):
                path = line[len(head):].strip()
                if path and path not in found:
                    found.append(path)
    return found


def payload(event: str, data: dict) -> "dict | None":  # type: ignore[type-arg]
    """Codex's stdin as the neutral payload: the same field names as Claude Code's (fact 12) but for apply_patch,
    whose files are only in the patch text (fact 13), and a null `transcript_path` (`--ephemeral`). A shell call's
    PostToolUse fires whatever its exit code and carries none (fact 13): `exit_unknown`."""
    out = dict(data)
    if out.get("transcript_path") is None:
        out["transcript_path"] = ""
    if event == "post-tool-use" and data.get("tool_name") == "Bash":
        out["exit_unknown"] = True
    if event in ("pre-tool-use", "post-tool-use") and data.get("tool_name") == "apply_patch":
        tool_input = data.get("tool_input")
        patch = tool_input.get("command") if isinstance(tool_input, dict) else tool_input
        out["tool_name"] = "Edit"
        out["tool_input"] = {"file_paths": patch_files(patch if isinstance(patch, str) else "")}
    return out


# How the context names our MCP tools for Claude Code (memory/digest.py MCP_TOOLS, hooks/prompt.py HEADER), and for
# Codex: its model finds MCP tools as a deferred namespace, `mcp__agentctx`, with the tools by their bare names, and
# reaches them through `tool_search` or, on the code-mode models, from `exec` (fact 22). Which of the two a session
# has the hook cannot know: the context names the namespace and the tools, and says nothing of how to load them.
CLAUDE_TOOLS = ("mcp__agentctx__ctx_search(query) returns a compact index, mcp__agentctx__ctx_get(ids) full records, "
                "mcp__agentctx__ctx_related(file) what is known about a file (load them with ToolSearch if deferred).")
CONTEXT_TOOLS = ("agentctx's MCP tools (namespace mcp__agentctx): ctx_search(query) returns a compact index, "
                 "ctx_get(ids) full records, ctx_related(file) what is known about a file.")
CLAUDE_HEADER = ("Relevant project context (agentctx project memory; search it with mcp__agentctx__ctx_search, whole "
                 "records with mcp__agentctx__ctx_get):")
CONTEXT_HEADER = ("Relevant project context (agentctx project memory; more with ctx_search and ctx_get, in the "
                  "mcp__agentctx tools):")


def output(event: str, out: "dict | None") -> "dict | None":  # type: ignore[type-arg]
    """Codex reads Claude Code's output shape (`hookSpecificOutput` with `hookEventName`, fact 15) as it is, but for
    the names of our tools, changed to how Codex's model reaches them, and for a guard that asks: its PreToolUse
    refuses `permissionDecision: ask` (fact 23), so the action is denied with the reason, which says so. A guard the
    user set must not be dropped."""
    specific = out.get("hookSpecificOutput") if out else None
    if not isinstance(specific, dict):
        return out
    if event == "pre-tool-use" and specific.get("permissionDecision") == "ask":
        why = str(specific.get("permissionDecisionReason") or "")
        text = specific.get("additionalContext")
        if isinstance(text, str):
            specific = {**specific, "additionalContext": text.replace("GUARD (asks the user)", "GUARD (denied)")}
        specific = {**specific, "permissionDecision": "deny",
                    "permissionDecisionReason": why + " (Codex CLI cannot ask before a tool call: agentctx denied it;"
                                                      " run it yourself if you mean it)"}
    text = specific.get("additionalContext")
    if isinstance(text, str) and "mcp__agentctx__" in text:
        specific = {**specific, "additionalContext": text.replace(CLAUDE_TOOLS, CONTEXT_TOOLS)
                    .replace(CLAUDE_HEADER, CONTEXT_HEADER)}
    return {**out, "hookSpecificOutput": specific}  # type: ignore[dict-item]


def is_line(line: dict) -> bool:  # type: ignore[type-arg]
    """A rollout line: `{"timestamp", "type", "payload"}` (fact 20)."""
    return "payload" in line and isinstance(line.get("type"), str) and "message" not in line


def line_cwd(line: dict) -> "str | None":  # type: ignore[type-arg]
    """The session's working directory, from the rollout's first line (`session_meta`)."""
    body = line.get("payload")
    if line.get("type") == "session_meta" and isinstance(body, dict) and isinstance(body.get("cwd"), str):
        return body["cwd"]
    return None


def line_turn(line: dict) -> "tuple[str, str] | None":  # type: ignore[type-arg]
    """(role, text) of a message the developer or the assistant wrote; None for everything else: developer-role
    items (instructions and hook context, our own included), Codex's environment items, tool calls and events."""
    body = line.get("payload")
    if line.get("type") != "response_item" or not isinstance(body, dict) or body.get("type") != "message":
        return None
    content = body.get("content")
    parts = [content] if isinstance(content, str) else content if isinstance(content, list) else []
    text = "\n".join(p if isinstance(p, str) else str(p.get("text") or "") for p in parts
                     if isinstance(p, str) or (isinstance(p, dict) and p.get("type") in ("input_text", "output_text",
                                                                                         "text"))).strip()
    if not text:
        return None
    if body.get("role") == "user":
        return None if text.startswith(_HARNESS) else ("developer", text)
    if body.get("role") == "assistant":
        return "assistant", text
    return None


def line_key(line: dict) -> "str | None":  # type: ignore[type-arg]
    """Rollout items are appended once each: nothing is rewritten."""
    return None


def line_context(line: dict) -> "list[str]":  # type: ignore[type-arg]
    """Where a rollout line holds what a hook gave the model (hooks/arrival.py): a developer message (a hook's
    context, fact 23), or a call's output (a deny reason takes its place)."""
    body = line.get("payload")
    if line.get("type") != "response_item" or not isinstance(body, dict):
        return []
    kind = body.get("type")
    if kind == "message" and body.get("role") == "developer":
        content = body.get("content")
        parts = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        return [p if isinstance(p, str) else str(p.get("text") or "") for p in parts[:64]
                if isinstance(p, (str, dict))]
    if kind in ("function_call_output", "custom_tool_call_output"):
        out = body.get("output")
        return [out[:65536]] if isinstance(out, str) else [str(out)[:65536]] if out is not None else []
    return []
