"""PostToolUse capture, deterministic only: file and branch nodes, commits, test outcomes, error stubs; redacted."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from ..base import paths
from ..base.ids import now_iso
from ..base.models import TITLE_MAX, NewRecord
from ..store.db import atomic
from ..base.redact import scrub_text  # the one shared rule set (re-exported: snapshot uses it)
from ..store import graph, records
from ..store import capture as capture_sql
from . import keep_digests_fresh

keep_digests_fresh()  # this module writes records: their digests are rebuilt after each write

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
LOG_READ_LIMIT = 4 * 1024 * 1024  # the session's working log: a torn first line is skipped like any bad line
OUTPUT_CHARS = 200_000  # enough of a command's output to find its verdict; a huge log is not read whole
_TEST_CMD = re.compile(
    r"(?:^|[\s;&|(])(?:py\.?test|python[\d.]*\s+-m\s+(?:pytest|unittest)|tox|nox|go\s+test|cargo\s+(?:test|nextest)"
    r"|(?:npx\s+|pnpm\s+(?:exec\s+)?|yarn\s+)?(?:jest|vitest|mocha|playwright\s+test)"
    r"|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?::\S*)?)(?=\s|$|;|&|\|)")
# A failing test run. "0 failed" is not a failure: the count must start with 1-9.
_TEST_FAIL = re.compile(r"(?m)^.*(?:\bFAILED\b|^\s*FAIL\b|\bfailing\b|AssertionError|✗|✘|\b[1-9]\d*\s+(?:failed|failures?)\b"
                        r"|^--- FAIL:|test result: FAILED|\berrors?=[1-9]|\bFAILED \(|^ERROR:).*$")
_TEST_PASS = re.compile(r"(?m)\b\d+\s+passed\b|^OK\b|^ok\s+\S|test result: ok|^PASS\b|Tests:\s+\d+\s+passed|\b\d+\s+passing\b")
_ERROR = re.compile(r"(?im)^.*(?:\berror(?:\[\w+\])?:|\berr!|\bfatal:|\bpanic:|Traceback \(most recent|"
                    r"Unhandled(?:Promise)?Rejection|\b\w*(?:Error|Exception):).*$")
_PATH = re.compile(r"(?:^|[\s\"'(])((?:\.{0,2}/)?(?:[\w.@-]+/)*[\w.@-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|rb|java|kt|"
                   r"c|cc|cpp|h|hpp|cs|php|swift|vue|svelte|toml|json|ya?ml|sh|sql))(?=[\s:\"',)]|$)")
_BRANCH_CMD = re.compile(r"\bgit\s+(?:checkout|switch)\s+(.*)")
_COMMIT_OUT = re.compile(r"(?m)^\[([^\s\]]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$")


@dataclass(frozen=True)
class Observation:
    """What one tool call showed: the kind of event and its (already redacted) details."""

    kind: str  # file | branch | commit | test | error
    command: str = ""
    detail: str = ""
    outcome: str = ""  # test: passed | failed
    path: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "command": self.command, "detail": self.detail, "outcome": self.outcome,
                "path": self.path}


def _output(response: Any) -> str:
    if isinstance(response, str):
        return response[:OUTPUT_CHARS]
    if isinstance(response, dict):
        parts = [response.get(k) for k in ("stdout", "stderr", "output", "error")]
        return "\n".join(p for p in parts if isinstance(p, str) and p)[:OUTPUT_CHARS]
    return ""


def _resolve(path: str, cwd: str) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd or ".", path))


def branch_target(command: str) -> str | None:
    """The branch a `git checkout|switch` moves to: the first non-flag after optional -b/-c; `--` means files."""
    m = _BRANCH_CMD.search(command.split("&&")[0].split(";")[0])
    if not m:
        return None
    for token in m.group(1).split():
        if token == "--":
            return None
        if token.startswith("-"):
            continue
        return token.strip("'\"") or None
    return None


def observe(tool_name: str, tool_input: Any, tool_response: Any, cwd: str) -> list[Observation]:
    """The observations in one PostToolUse payload; pure (no I/O), everything redacted."""
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    if tool_name in WRITE_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        if isinstance(path, str) and path:
            return [Observation("file", path=_resolve(path, cwd))]
        # One call that wrote several files (an agent adapter's form of a patch: agents/codex.py, apply_patch).
        many = tool_input.get("file_paths")
        return [Observation("file", path=_resolve(p, cwd)) for p in many if isinstance(p, str) and p] \
            if isinstance(many, list) else []
    if tool_name != "Bash":
        return []
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip():
        return []
    command = scrub_text(command)
    first = command.strip().splitlines()[0][:300]
    output = _output(tool_response)
    found: list[Observation] = []
    branch = branch_target(command)
    if branch:
        found.append(Observation("branch", command=first, detail=branch))
    if re.search(r"\bgit\s+commit\b", command):
        for branch_name, sha, message in _COMMIT_OUT.findall(output):
            found.append(Observation("commit", command=first, detail=scrub_text(f"{sha} {message}"), path=branch_name))
    if _TEST_CMD.search(command):
        fail = _TEST_FAIL.search(output)
        if fail:
            line = scrub_text(fail.group(0).strip())[:400]
            found.append(Observation("test", command=first, detail=line, outcome="failed",
                                     path=_first_path(line, output, cwd)))
        elif _TEST_PASS.search(output):
            found.append(Observation("test", command=first, outcome="passed"))
        return found
    error = _ERROR.search(output)
    if error:
        line = scrub_text(error.group(0).strip())[:400]
        found.append(Observation("error", command=first, detail=line, path=_first_path(line, output, cwd)))
    return found


def _first_path(line: str, output: str, cwd: str) -> str:
    """The source file named in the failing line, else the first one in the output."""
    for text in (line, output[:20_000]):
        m = _PATH.search(text)
        if m:
            return _resolve(m.group(1), cwd)
    return ""


def _stub_title(prefix: str, command: str) -> str:
    title = f"{prefix}: {' '.join(command.split())}"
    return title if len(title) <= TITLE_MAX else title[: TITLE_MAX - 1] + "…"


def store(conn: sqlite3.Connection, project_id: str, session_id: str, observations: list[Observation]) -> list[str]:
    """Write nodes, links and stubs for the observations in one transaction; returns the ids of new stubs."""
    new_ids: list[str] = []
    with atomic(conn):
        session_ids = capture_sql.session_record_ids(conn, project_id, session_id) if session_id else []
        if session_id and any(ob.kind == "file" for ob in observations):
            # The records injected so far in this session were in front of the agent as it edited: link them too,
            # so ctx_related(file) and the graph have something without LLM extraction (the dedup file lists them).
            session_ids = list(dict.fromkeys(session_ids + capture_sql.current_of(conn, project_id,
                                                                                 _injected_so_far(session_id))))
        for ob in observations:
            if ob.kind == "file":
                node = graph.upsert_node(conn, project_id, "file", ob.path)
                capture_sql.link_all(conn, session_ids, [node])
            elif ob.kind in ("branch", "commit") and (ob.detail if ob.kind == "branch" else ob.path):
                graph.upsert_node(conn, project_id, "branch", ob.detail if ob.kind == "branch" else ob.path)
            elif ob.kind == "test" and ob.outcome == "passed":
                _resolve_stub(conn, project_id, session_id, _stub_title("Test failure", ob.command))
            elif ob.kind in ("test", "error"):
                stub = _stub(conn, project_id, session_id, ob)
                if stub:
                    new_ids.append(stub)
    return new_ids


def _injected_so_far(session_id: str) -> list[str]:
    """Ids the prompt hook injected in this session (its dedup file, read as a file we do not control)."""
    from ..base.safeio import read_ids

    return sorted(i for i in read_ids(paths.dedup_file(session_id), 64 * 1024) if len(i) == 26 and i.isalnum())


def _stub_anchors(ob: Observation) -> tuple[str, ...]:
    """What an error stub governs (inferred, like the stub itself): the file the error names, relative to its
    repository, so an edit of that file sees the stub first (SPEC §4.11). None outside a repository."""
    from ..base.errors import ValidationError
    from ..base.roots import git_root

    if not ob.path:
        return ()
    real = os.path.realpath(ob.path)
    root = git_root(os.path.dirname(real))
    if not root or not real.startswith(root.rstrip("/") + "/"):
        return ()
    try:
        return records.anchor_items([real[len(root.rstrip("/")) + 1:]])
    except ValidationError:
        return ()


def _stub(conn: sqlite3.Connection, project_id: str, session_id: str, ob: Observation) -> str | None:
    title = _stub_title("Test failure" if ob.kind == "test" else "Error observed", ob.command)
    existing = capture_sql.current_by_title(conn, project_id, "bugfix", title)
    record_id = existing.id if existing else None
    if existing is None:
        body = f"Command: {ob.command}\nObserved: {ob.detail}"
        record, _ = records.insert(conn, NewRecord(type="bugfix", title=title, body=body[:2000], project_id=project_id,
                                                   source="hook_observation", session_id=session_id or None,
                                                   anchors=_stub_anchors(ob)))
        record_id = record.id
    if ob.path:
        graph.link(conn, record_id, [graph.upsert_node(conn, project_id, "file", ob.path)])
    return None if existing else record_id


def _resolve_stub(conn: sqlite3.Connection, project_id: str, session_id: str, title: str) -> None:
    """A test command that failed before now passes: the stub gains its resolution (a superseding record)."""
    open_stub = capture_sql.current_by_title(conn, project_id, "bugfix", title)
    if open_stub is None or "\nResolved:" in open_stub.body:
        return
    body = f"{open_stub.body}\nResolved: the same command passed later ({now_iso()})."
    records.insert(conn, NewRecord(type="bugfix", title=title, body=body[:2000], project_id=project_id,
                                   source="hook_observation", session_id=session_id or None), supersedes=open_stub.id)


# --- the session's working log (derived; read by PreCompact and the rule-based handover) ----------------------

def log_path(session_id: str) -> "os.PathLike[str]":
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:128] or "_"
    return paths.home() / "state" / f"session-{safe}.jsonl"


def append_log(session_id: str, observations: list[Observation]) -> None:
    if not session_id or not observations:
        return
    path = log_path(session_id)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    lines = "".join(json.dumps({"at": now_iso(), "kind": o.kind, "command": o.command, "detail": o.detail,
                                "outcome": o.outcome, "path": o.path}, ensure_ascii=False) + "\n" for o in observations)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)


def read_log(session_id: str) -> list[dict[str, Any]]:
    from ..base.safeio import read_tail

    try:  # our own file, but read as any other: a regular file only, its newest LOG_READ_LIMIT bytes
        raw, _ = read_tail(os.fspath(log_path(session_id)), LOG_READ_LIMIT, follow=False)
    except OSError:
        return []
    lines = raw.decode("utf-8", "replace").splitlines()
    out = []
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def capture(conn: sqlite3.Connection, project_id: str, session_id: str, tool_name: str, tool_input: Any,
            tool_response: Any, cwd: str) -> list[Observation]:
    """Observe one tool call, store what it showed, and add it to the session's working log."""
    observations = observe(tool_name, tool_input, tool_response, cwd)
    if observations:
        store(conn, project_id, session_id, observations)
        append_log(session_id, observations)
    return observations
