"""Gemini CLI's adapter: its hook events, its payloads in the neutral shape, its output, its chat transcript lines.

Facts: vendor-notes/gemini-cli.md (Gemini CLI 0.61.0). On the hooks' hot path: no imports at all.
"""

NAME = "gemini"
# Gemini event -> (neutral event, matcher, timeout in MILLISECONDS, fact 17). BeforeAgent is the prompt hook and
# AfterAgent the end of a turn (the CLI's own map of Claude Code's events, fact 9). PreCompress is left out: it
# fires before every model request, compressed or not (fact 12), so it says nothing about compaction.
EVENTS: dict[str, tuple[str, "str | None", int]] = {
    "SessionStart": ("session-start", None, 10_000),
    "BeforeAgent": ("user-prompt-submit", None, 10_000),
    # Every tool: an anchor may name any tool. Its context is not read (fact 22): AfterTool delivers it.
    "BeforeTool": ("pre-tool-use", None, 10_000),
    # The tools whose results carry a delivery (read_file, read_many_files: the rule reaches the model with the file
    # it is about to change) and whose effects we capture.
    "AfterTool": ("post-tool-use", "^(run_shell_command|write_file|replace|read_file|read_many_files|"
                                   "mcp_agentctx_ctx_get)$", 10_000),
    "AfterAgent": ("stop", None, 10_000),
    "SessionEnd": ("session-end", None, 5_000),
}
# Neutral event -> the name Gemini wants back as `hookEventName` (fact 14).
OUTPUT_EVENTS = {neutral: event for event, (neutral, _, _) in EVENTS.items()}
# Gemini's tool names -> the neutral (Claude Code) names capture knows (fact 11).
TOOLS = {"run_shell_command": "Bash", "write_file": "Write", "replace": "Edit", "read_file": "Read",
         "read_many_files": "Read"}
# The neutral names of the tools AfterTool runs for (the matcher above): only their deliveries can reach the model,
# so a record picked before any other tool is neither shown nor logged as delivered (SPEC §4.11).
CARRIED = frozenset({"Bash", "Write", "Edit", "Read"})
_GLOB = "*?[{"


def _read_many(tool_input: object) -> "dict | None":  # type: ignore[type-arg]
    """read_many_files' `include` (files and globs, the CLI's tool schema) as the neutral `file_paths`: the plain files only."""
    data = tool_input if isinstance(tool_input, dict) else {}
    listed = data.get("include")
    names = [n for n in listed if isinstance(n, str) and not any(c in n for c in _GLOB)] if isinstance(listed, list) \
        else []
    return {"file_paths": names[:128]}
OPEN, CLOSE = "<hook_context>", "</hook_context>"
# Gemini names an MCP tool mcp_<server>_<tool> (fact 21); Claude Code and Codex mcp__<server>__<tool>.
CLAUDE_TOOL_PREFIX, TOOL_PREFIX = "mcp__agentctx__", "mcp_agentctx_"
# How the context names our MCP tools for Claude Code (memory/digest.py MCP_TOOLS, hooks/prompt.py HEADER), and for
# Gemini: interactive and `--approval-mode yolo` sessions offer them; a plain `gemini -p` (default or auto_edit)
# offers no MCP tool at all (fact 6). The hook cannot tell which, so the context names them only as a possibility.
CLAUDE_TOOLS = ("mcp__agentctx__ctx_search(query) returns a compact index, mcp__agentctx__ctx_get(ids) full records, "
                "mcp__agentctx__ctx_related(file) what is known about a file (load them with ToolSearch if deferred).")
CONTEXT_TOOLS = ("when agentctx's tools are among yours, mcp_agentctx_ctx_search(query) returns a compact index, "
         "mcp_agentctx_ctx_get(ids) full records, mcp_agentctx_ctx_related(file) what is known about a file.")
CLAUDE_HEADER = ("Relevant project context (agentctx project memory; search it with mcp__agentctx__ctx_search, whole "
                 "records with mcp__agentctx__ctx_get):")
CONTEXT_HEADER = "Relevant project context (agentctx project memory):"
CLAUDE_MORE, CONTEXT_MORE = (" did not fit here: ctx_search finds them.)",  # memory/digest.py, when a section is cut
                             " did not fit here; when agentctx's tools are among yours, mcp_agentctx_ctx_search finds "
                             "them.)")
_WRAP = ("<untrusted_context>", "</untrusted_context>")


def strip_context(text: str) -> str:
    """`text` without the `<hook_context>…</hook_context>` blocks a hook added in front of it (SessionStart's
    context is prepended to the prompt headless, fact 14): what the developer typed."""
    rest = text.lstrip()
    while rest.startswith(OPEN):
        end = rest.find(CLOSE)
        if end < 0:
            break
        rest = rest[end + len(CLOSE):].lstrip()
    return rest


def _unwrap(text: str) -> str:
    """A tool's output without the `<untrusted_context>` wrapper, its `Output: ` label and the process-group line
    (fact 11); the `Exit Code: N` line stays (`exit_code` reads it)."""
    text = text.strip()
    if text.startswith(_WRAP[0]) and text.endswith(_WRAP[1]):
        text = text[len(_WRAP[0]):-len(_WRAP[1])].strip()
    lines = [ln for ln in text.split("\n") if not ln.startswith("Process Group PGID:")]
    text = "\n".join(lines)
    return text[8:] if text.startswith("Output: ") else text  # the command's own first line starts after it


def exit_code(text: str) -> int:
    """The `Exit Code: N` line Gemini adds after a shell command's output when N is not 0 (fact 11); 0 without one.
    The last such line: the command's own output comes before it."""
    for line in reversed(text.split("\n")[-8:]):
        if line.startswith("Exit Code: ") and line[11:].strip().isdigit():
            return int(line[11:].strip())
    return 0


def _tool_output(response: object) -> "dict | str":  # type: ignore[type-arg]
    """AfterTool's `tool_response` ({llmContent, returnDisplay, error?}) as output capture reads: the model's copy
    (without Gemini's own lines), else what was displayed, any error, and the exit code Gemini reported."""
    if not isinstance(response, dict):
        return response if isinstance(response, str) else ""
    content = response.get("llmContent")
    if isinstance(content, list):
        content = "\n".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    text = _unwrap(content) if isinstance(content, str) else ""
    code = exit_code(text)
    if code:
        text = "\n".join(ln for ln in text.split("\n") if ln != f"Exit Code: {code}").strip("\n")
    if not text and isinstance(response.get("returnDisplay"), str):
        text = response["returnDisplay"]
    error = response.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    return {"output": text, "error": error if isinstance(error, str) else "", "exit_code": code}


def payload(event: str, data: dict) -> "dict | None":  # type: ignore[type-arg]
    """Gemini's stdin as the neutral payload: the prompt without hook context, tool names and results mapped. A
    command that exited nonzero, or a tool that reported an error, is a failed call: its output becomes `error`, as
    Claude Code's PostToolUseFailure gives it ("Exit code N", then the output)."""
    out = dict(data)
    if event == "user-prompt-submit" and isinstance(data.get("prompt"), str):
        out["prompt"] = strip_context(data["prompt"])
    elif event in ("pre-tool-use", "post-tool-use"):
        name = data.get("tool_name")
        out["tool_name"] = TOOLS.get(name, name) if isinstance(name, str) else ""
        if name == "read_many_files":
            out["tool_input"] = _read_many(data.get("tool_input"))
        if event == "post-tool-use":
            result = _tool_output(data.get("tool_response"))
            out["tool_response"] = result
            text, code, failure = (result["output"], result["exit_code"], result["error"]) if isinstance(result, dict) \
                else (result, 0, "")
            if code or failure:
                out["error"] = "\n".join(p for p in (f"Exit code {code}" if code else "", failure, text) if p)
    return out


def output(event: str, out: "dict | None") -> "dict | None":  # type: ignore[type-arg]
    """Gemini's output: the same JSON object, named by Gemini's own event (BeforeAgent, AfterTool, fact 14)."""
    if not out:
        return out
    if event == "pre-tool-use":
        return _before_tool(out)
    specific = out.get("hookSpecificOutput")
    if isinstance(specific, dict) and event in OUTPUT_EVENTS:
        specific = {**specific, "hookEventName": OUTPUT_EVENTS[event]}
        text = specific.get("additionalContext")
        if isinstance(text, str):  # the context names our MCP tools as Claude Code's model reaches them
            text = (text.replace(CLAUDE_TOOLS, CONTEXT_TOOLS).replace(CLAUDE_HEADER, CONTEXT_HEADER)
                    .replace(CLAUDE_MORE, CONTEXT_MORE))
            specific["additionalContext"] = text.replace(CLAUDE_TOOL_PREFIX, TOOL_PREFIX)
        out = {**out, "hookSpecificOutput": specific}
    return out


def _before_tool(out: dict) -> "dict | None":  # type: ignore[type-arg]
    """BeforeTool's output (fact 22): a guard's `decision` (`ask` or `deny`) with its `reason`; nothing else, since
    BeforeTool's `additionalContext` is never read (the record goes out with the tool's result, from AfterTool)."""
    specific = out.get("hookSpecificOutput")
    decision = specific.get("permissionDecision") if isinstance(specific, dict) else None
    if decision not in ("ask", "deny"):
        return None
    why = str(specific.get("permissionDecisionReason") or "").replace(CLAUDE_TOOL_PREFIX, TOOL_PREFIX)  # type: ignore[union-attr]
    result: dict = {"decision": decision, "reason": why}  # type: ignore[type-arg]
    if decision == "ask":
        result["systemMessage"] = why  # what the confirmation shows the user
    return result


def is_line(line: dict) -> bool:  # type: ignore[type-arg]
    """A chat JSONL line (fact 19): the header, a `$set` update or a message record (`type` user or gemini, with
    `content` and no Claude Code `message`)."""
    if "message" in line:
        return False
    return "sessionId" in line or "$set" in line or line.get("type") in ("user", "gemini", "info", "error")


def line_key(line: dict) -> "str | None":  # type: ignore[type-arg]
    """A record's id: the CLI rewrites a record by appending it again with the same id, so the last one counts."""
    key = line.get("id")
    return key if isinstance(key, str) else None


def _texts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
            and "functionResponse" not in p]


def line_turn(line: dict) -> "tuple[str, str] | None":  # type: ignore[type-arg]
    """(role, text) of a user or model record; None for the rest. A user record's text loses any hook context (ours
    included) and the CLI's own `<session_context>`; a tool result (a functionResponse) is not the developer."""
    kind = line.get("type")
    if kind == "user":
        parts = [strip_context(t).strip() for t in _texts(line.get("content"))]
        text = "\n".join(p for p in parts if p and not p.startswith(("<session_context>", OPEN))).strip()
        return ("developer", text) if text else None
    if kind == "gemini":
        text = "\n".join(_texts(line.get("content"))).strip()
        return ("assistant", text) if text else None
    return None


def line_cwd(line: dict) -> "str | None":  # type: ignore[type-arg]
    """The chat file records no working directory (its header has a project hash only): the hooks' cwd is used."""
    return None


def line_context(line: dict) -> "list[str]":  # type: ignore[type-arg]
    """Where a chat line holds what a hook gave the model (hooks/arrival.py): a function response (AfterTool's
    `<hook_context>` is appended to its output, fact 24; a deny reason is its error)."""
    out: list[str] = []
    parts = line.get("content") if line.get("type") == "user" else None
    calls = line.get("toolCalls") if line.get("type") == "gemini" else None
    for part in (parts if isinstance(parts, list) else [])[:64]:
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
            out.append(str(part["functionResponse"].get("response"))[:65536])
    for call in (calls if isinstance(calls, list) else [])[:64]:
        if isinstance(call, dict) and call.get("result") is not None:
            out.append(str(call.get("result"))[:65536])
    return out
