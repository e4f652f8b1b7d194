"""The working state of a session without an LLM: recent prompts from the transcript tail plus the capture log."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..base.redact import scrub_text
from . import keep_digests_fresh

keep_digests_fresh()  # this module writes records: their digests are rebuilt after each write

TAIL_BYTES = 256 * 1024
PROMPT_CHARS = 600
BODY_MAX = 2000


def _user_text(entry: dict[str, Any]) -> str:
    """A developer's own words: user lines that are not meta, tool results, compact summaries or command wrappers
    (another agent's transcript line: what its adapter says the developer wrote)."""
    from ..agents import line_adapter

    agent = line_adapter(entry)
    if agent is not None:
        found = agent.line_turn(entry)
        return found[1] if found and found[0] == "developer" else ""
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary") or entry.get("isSidechain"):
        return ""
    content = (entry.get("message") or {}).get("content") if isinstance(entry.get("message"), dict) else None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    else:
        return ""
    text = text.strip()
    if not text or text.startswith(("<command-", "<local-command", "<system-reminder>")):
        return ""
    return text


def recent_prompts(transcript: str, limit: int = 3) -> list[str]:
    """The last `limit` developer prompts within the final 256 KB of the transcript (partial first line skipped)."""
    from ..base.safeio import read_tail

    try:
        raw, size = read_tail(transcript, TAIL_BYTES)  # a regular file only: never a device or a FIFO
    except OSError:
        return []
    lines = raw.decode("utf-8", "replace").splitlines()
    if size > TAIL_BYTES:
        lines = lines[1:]
    prompts: list[str] = []
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        text = _user_text(entry) if isinstance(entry, dict) else ""
        if text:
            prompts.append(text)
            if len(prompts) >= limit:
                break
    return list(reversed(prompts))


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _relative(path: str, root: str | None) -> str:
    """A file as the next session reads it: relative to the repository (another checkout, another machine, the
    team's handover read the same), absolute only outside it."""
    import os

    if not root:
        return path
    for base, target in ((root, path), (os.path.realpath(root), os.path.realpath(path))):
        base = base.rstrip("/")
        if target.startswith(base + "/"):
            return target[len(base) + 1:]
    return path


def command_head(command: str) -> str:
    """What makes two commands the same step for a retry: the program and the first word after it that is not an
    option (`npm run`, `node scripts/migrate.js`, `agentctx record`, `cargo build`)."""
    words = command.split()
    if not words:
        return ""
    rest = next((w for w in words[1:] if not w.startswith("-")), "")
    return f"{words[0]} {rest}".strip()


def open_errors(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The errors of the log that no later step fixed: a later call of the same command (its head) succeeded or
    ran its tests to a pass. agentctx's own commands are never the project's errors (logs written before capture
    left them out may hold them)."""
    from .capture.testruns import own_command

    out: list[dict[str, Any]] = []
    for i, e in enumerate(log):
        if e.get("kind") != "error" or own_command(str(e.get("command") or "")):
            continue
        head = command_head(str(e.get("command") or ""))
        fixed = bool(head) and any(command_head(str(later.get("command") or "")) == head
                                   and (later.get("kind") == "ok" or later.get("outcome") == "passed")
                                   for later in log[i + 1:])
        if not fixed:
            out.append(e)
    return out


def compose(prompts: list[str], log: list[dict[str, Any]], *, when: str, root: str | None = None) -> str:
    """A handover body: what was being asked, files touched (relative to `root`, the repository), branch, commits,
    the last test verdict, the last error nothing later fixed."""
    parts = [f"Snapshot taken {when} (no model involved)."]
    if prompts:
        parts.append("Recent requests:\n" + "\n".join(f"- {_clip(scrub_text(p), PROMPT_CHARS)}" for p in prompts))
    files = list(dict.fromkeys(_relative(str(e.get("path")), root) for e in log
                               if e.get("kind") == "file" and e.get("path")))
    if files:
        parts.append("Files changed:\n" + "\n".join(f"- {f}" for f in files[-12:]))
    branches = [e.get("detail") for e in log if e.get("kind") == "branch" and e.get("detail")]
    if branches:
        parts.append(f"Branch: {branches[-1]}")
    commits = [f"- {e.get('detail')}" for e in log if e.get("kind") == "commit"]
    if commits:
        parts.append("Commits:\n" + "\n".join(commits[-5:]))
    tests = [e for e in log if e.get("kind") == "test"]
    if tests:
        last = tests[-1]
        verdict = f"Last test run: `{last.get('command')}` {last.get('outcome')}"
        if last.get("outcome") == "failed" and last.get("detail"):
            verdict += f" ({_clip(str(last.get('detail')), 200)})"
        parts.append(verdict)
    errors = open_errors(log)
    if errors:
        parts.append(f"Last error: {_clip(str(errors[-1].get('detail')), 200)}"
                     + (f" (from `{_clip(str(errors[-1].get('command')), 120)}`)" if errors[-1].get("command") else ""))
    if len(parts) == 1:
        return ""
    body = "\n\n".join(parts)
    return body if len(body) <= BODY_MAX else body[: BODY_MAX - 1] + "…"


def save(conn: "sqlite3.Connection", project_id: str, session_id: str | None, body: str, title: str,
         log: "list[dict[str, Any]] | None" = None) -> bool:
    """Store a snapshot handover unless an extracted or explicit handover is current (it says more), or `body`
    holds no working state (only requests) while a snapshot is current; it carries forward what the current
    snapshot knew and `body` lacks (as `handover_body`). True if written. Used by PreCompact and by the drain of a
    snapshot PreCompact had to queue."""
    from ..base.models import NewRecord
    from ..store import records

    current = records.current(conn, project_id, types=["handover"], own_only=True, limit=1)
    if current and current[0].source != "hook_observation":
        return False
    if current:
        same_session = bool(session_id) and current[0].session_id == session_id
        if not same_session and not any(h in sections(body) for h in SECTIONS[1:]):
            # Another session that only asked questions: the current snapshot stays the last real working state.
            # The same session's later snapshot always replaces its own earlier one (its requests moved on).
            return False
        if body == current[0].body:
            return False
        body = carry_forward(body, current[0].body, log)
    records.insert(conn, NewRecord(type="handover", title=title, body=body, project_id=project_id,
                                   source="hook_observation", session_id=session_id or None))
    return True


def leave_for_compaction(session_id: str, body: str) -> None:
    """Keep PreCompact's snapshot for the SessionStart (source "compact") that follows it, whatever the store keeps."""
    import os

    from ..base import paths, safeio

    target = paths.compact_file(session_id)
    paths.ensure_private_dir_str(paths.state_dir_str())
    tmp = f"{target}.{os.getpid()}.tmp"
    fd = safeio.create_private(tmp)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(body)
    os.replace(tmp, target)


# The sections `compose` writes, in order. All but the first are working state a session observed itself.
SECTIONS = ("Recent requests:", "Files changed:", "Branch:", "Commits:", "Last test run:", "Last error:")
WORK_KINDS = frozenset(("file", "branch", "commit", "test", "error"))
CARRIED_HEADER = "Carried forward from an earlier snapshot (still the last known state):"


def did_work(log: list[dict[str, Any]]) -> bool:
    """Whether the session's capture log holds working state (files, branch, commits, tests, errors)."""
    return any(e.get("kind") in WORK_KINDS for e in log)


def sections(body: str) -> dict[str, str]:
    """A snapshot body's sections by heading; the first of a heading wins (own sections precede carried ones)."""
    found: dict[str, str] = {}
    for part in body.split("\n\n"):
        for heading in SECTIONS:
            if part.startswith(heading):
                found.setdefault(heading, part)
    return found


def _settled(section: str, log: "list[dict[str, Any]]") -> bool:
    """A carried `Last error:` this session's log shows fixed (the same command succeeded), or one of agentctx's
    own commands (snapshots written before capture left them out: "agentctx record: error: …")."""
    from .capture.testruns import own_command

    if not section.startswith("Last error:"):
        return False
    detail = section[len("Last error:"):].strip()
    if own_command(detail.split(":", 1)[0]) or detail.startswith(("agentctx:", "usage: agentctx")):
        return True
    at = detail.rfind(" (from `")
    if at < 0:
        return False
    head = command_head(detail[at + len(" (from `"):].rstrip(")`"))
    return bool(head) and any(command_head(str(e.get("command") or "")) == head
                              and (e.get("kind") == "ok" or e.get("outcome") == "passed") for e in log)


def carry_forward(body: str, previous: str, log: "list[dict[str, Any]] | None" = None) -> str:
    """`body` plus the sections of the previous snapshot it lacks: the branch a session created stays known when
    the next session only edited files, and so on. A carried error this session's `log` shows fixed is left."""
    own, old = sections(body), sections(previous)
    missing = [old[h] for h in SECTIONS if h in old and h not in own and not _settled(old[h], log or [])]
    if not missing:
        return body
    body = "\n\n".join([body, CARRIED_HEADER, *missing])
    return body if len(body) <= BODY_MAX else body[: BODY_MAX - 1] + "…"


def handover_body(prompts: list[str], log: list[dict[str, Any]], *, when: str, current: str | None,
                  current_is_snapshot: bool, root: str | None = None) -> str:
    """The snapshot to write now, or "" to keep the current handover (`current`, its body, or None).

    A session that observed no working state of its own (it only asked questions) adds nothing: the current
    handover, which holds the last real working state, stays. Otherwise the new snapshot carries forward what a
    current snapshot knew and this session did not observe."""
    if current is not None and not did_work(log):
        return ""
    body = compose(prompts, log, when=when, root=root)
    if body and current is not None and current_is_snapshot:
        body = carry_forward(body, current, log)
    return body
