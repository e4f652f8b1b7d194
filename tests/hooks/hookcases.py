"""What the hook tests share: a pre-action payload and the pending ledger's rows."""

import json

from agentctx.base import paths


def payload(repo, tool, tool_input, session="s1", **kw):
    return {"session_id": session, "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, **kw}


def pending():
    try:
        with open(paths.pending_ledger_file(), encoding="utf-8") as fh:
            return [json.loads(line) for line in fh]
    except FileNotFoundError:
        return []
