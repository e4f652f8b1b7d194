"""A trivial hook for the Codex / Gemini CLI smoke tests: `python log_hook.py EVENT`.

It appends one JSON line to $AGENTCTX_E2E_HOOK_LOG: {"event", "stdin" (the parsed JSON the CLI wrote), "cwd",
"env" (the names of the variables it was given)}. For the events that can add context it prints
`{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": "E2E-CONTEXT <EVENT>"}}` (both CLIs want
`hookEventName`: Codex rejects the output without it); for Copilot CLI's camelCase events that take context,
`{"additionalContext": "E2E-CONTEXT <event>"}` (its own shape). It always exits 0: any other code blocks Gemini's
turn.
"""

import json
import os
import sys

CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "PostToolUse", "BeforeAgent", "AfterTool"}
COPILOT_CONTEXT_EVENTS = {"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse"}


def marker(event: str) -> str:
    return f"E2E-CONTEXT {event}"


def main() -> None:
    event = sys.argv[1]
    raw = sys.stdin.read()
    try:
        data = json.loads(raw)
    except ValueError:
        data = {"_unparsed": raw}
    with open(os.environ["AGENTCTX_E2E_HOOK_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"event": event, "stdin": data, "cwd": os.getcwd(), "env": sorted(os.environ)}) + "\n")
    if event in CONTEXT_EVENTS:
        print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": marker(event)}}))
    elif event in COPILOT_CONTEXT_EVENTS:
        print(json.dumps({"additionalContext": marker(event)}))


if __name__ == "__main__":
    main()
