"""PostToolUse capture, deterministic only: file and branch nodes, commits, test outcomes, error stubs; redacted.

A package of its own inside memory/: what a shell command is and did (`testruns`, `gitcmd`) and the bug-fix stubs
it opens and closes (`stubs`) serve capture alone."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from ...base import paths
from ...base.ids import now_iso
from ...store.db import atomic
from ...base.redact import scrub_text  # the one shared rule set (re-exported: snapshot uses it)
from ...store import graph
from ...store import capture as capture_sql
from .. import keep_digests_fresh
from . import stubs
from .testruns import TEST_FAIL, TEST_PASS, failed_tests, own_command, passed_tests, runs_tests

keep_digests_fresh()  # this module writes records: their digests are rebuilt after each write

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
LOG_READ_LIMIT = 4 * 1024 * 1024  # the session's working log: a torn first line is skipped like any bad line
OUTPUT_CHARS = 200_000  # enough of a command's output to find its verdict; a huge log is not read whole
_ERROR = re.compile(r"(?im)^.*(?:\berror(?:\[\w+\])?:|\berr!|\bfatal:|\bpanic:|Traceback \(most recent|"
                    r"Unhandled(?:Promise)?Rejection|\b\w*(?:Error|Exception):).*$")
# An error line as tools print it, at the start of a line: what counts when the agent does not say whether the call
# failed (Codex). Source text (`    except AttributeError:`, a docstring's `TypeError: ...`) is indented.
_ERROR_AT_START = re.compile(r"(?m)^(?:(?i:error)(?:\[\w+\])?:|(?i:fatal):|(?i:panic):|npm ERR!|"
                             r"(?:[A-Za-z_][\w.]*)?(?:Error|Exception):).*$")
# A real Python traceback: the header at the start of a line, its `  File "…"` frames, and the exception line at the
# start of a line after them. A doctest in a file's text has `...` instead of frames, or is indented.
_TRACEBACK = re.compile(r'(?m)^Traceback \(most recent call last\):\n  File "[^\n]*\n(?:[ \t][^\n]*\n|\n)*?'
                        r"([A-Za-z_][\w.]*(?::[^\n]*)?)$")
_PATH = re.compile(r"(?:^|[\s\"'(])((?:\.{0,2}/)?(?:[\w.@-]+/)*[\w.@-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|rb|java|kt|"
                   r"c|cc|cpp|h|hpp|cs|php|swift|vue|svelte|toml|json|ya?ml|sh|sql))(?=[\s:\"',)]|$)")

@dataclass(frozen=True)
class Observation:
    """What one tool call showed: the kind of event and its (already redacted) details."""

    kind: str  # file | branch | commit | test | error | ok (a command that succeeded: the log only)
    command: str = ""
    detail: str = ""
    outcome: str = ""  # test: passed | failed
    path: str = ""
    subject: str = ""  # a failed test run: the failing tests' ids, one a line (the first names its stub)

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "command": self.command, "detail": self.detail, "outcome": self.outcome,
                "path": self.path, "subject": self.subject}


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
    """The branch the last `git checkout|switch` of `command` names (gitcmd.branch_target)."""
    from . import gitcmd

    return gitcmd.branch_target(command)


def error_line(output: str, failed: "bool | None") -> str | None:
    """The line that says what went wrong, or None when the call shows no error.

    A call that succeeded is never an error, whatever its output says (a `cat` or `sed` of a source file holds
    `except AttributeError:` lines), unless it printed a real traceback (`python x.py 2>&1 | tail` exits 0). A call
    that failed: its traceback's exception line, else its first error-like line. A call whose outcome the agent does
    not say (`failed` None): a traceback, or an error line as tools print one, at the start of a line."""
    tb = _TRACEBACK.search(output)
    if tb:
        return tb.group(1)
    if failed is False:
        return None
    m = (_ERROR if failed else _ERROR_AT_START).search(output)
    return m.group(0) if m else None


def observe(tool_name: str, tool_input: Any, tool_response: Any, cwd: str,
            failed: "bool | None" = False) -> list[Observation]:
    """The observations in one PostToolUse payload; pure (no I/O), everything redacted. `failed`: the call failed
    (PostToolUseFailure, a nonzero exit code), succeeded (False: Claude Code's PostToolUse), or the agent does not
    say (None: Codex's shell calls, vendor-notes/codex-cli.md fact 13)."""
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    if tool_name in WRITE_TOOLS:
        if failed:
            return []  # an edit that failed wrote nothing
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
    own = own_command(command)
    if "git" in command:
        from . import gitcmd

        branch = gitcmd.branch_after(command, output, failed)
        if branch:
            found.append(Observation("branch", command=first, detail=branch))
        for branch_name, sha, message in gitcmd.commits(command, output, failed):
            detail = f"{sha} {message}" if sha else message
            found.append(Observation("commit", command=first, detail=scrub_text(detail), path=branch_name))
    if runs_tests(command):
        fail = TEST_FAIL.search(output)
        if fail:
            ids = failed_tests(output)
            line = fail.group(0).strip()
            if ids and ids[0] not in line:  # the verdict line that names the first failing test, if there is one
                line = next((ln.strip() for ln in output.splitlines() if ids[0] in ln), line)
            line = scrub_text(line)[:400]
            found.append(Observation("test", command=first, detail=line, outcome="failed",
                                     path=_first_path(line, output, cwd), subject=scrub_text("\n".join(ids))))
        elif TEST_PASS.search(output):
            found.append(Observation("test", command=first, outcome="passed",
                                     subject=scrub_text("\n".join(passed_tests(command, output)))))
        return found
    error = None if own else error_line(output, failed)
    if error:
        line = scrub_text(error.strip())[:400]
        found.append(Observation("error", command=first, detail=line, path=_first_path(line, output, cwd)))
    return found


def _first_path(line: str, output: str, cwd: str) -> str:
    """The source file named in the failing line, else the first one in the output."""
    for text in (line, output[:20_000]):
        m = _PATH.search(text)
        if m:
            return _resolve(m.group(1), cwd)
    return ""


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
                stubs.resolve_stubs(conn, project_id, session_id, ob.command, [t for t in ob.subject.splitlines() if t])
            elif ob.kind in ("test", "error"):
                stub = stubs.write_stub(conn, project_id, session_id, ob)
                if stub:
                    new_ids.append(stub)
    return new_ids


def _injected_so_far(session_id: str) -> list[str]:
    """Ids the prompt hook injected in this session (its dedup file, read as a file we do not control)."""
    from ...base.safeio import read_ids

    return sorted(i for i in read_ids(paths.dedup_file(session_id), 64 * 1024) if len(i) == 26 and i.isalnum())


# --- the session's working log (derived; read by PreCompact and the rule-based handover) ----------------------

def log_path(session_id: str) -> "os.PathLike[str]":
    return paths.home() / "state" / f"session-{paths.session_token(session_id)}.jsonl"


def _log_file(session_id: str) -> str:
    """`log_path` as a string, without pathlib (~4 ms to import): what the hook's path reads."""
    return os.path.join(paths.state_dir_str(), f"session-{paths.session_token(session_id)}.jsonl")


def append_log(session_id: str, observations: list[Observation]) -> None:
    if not session_id or not observations:
        return
    path = _log_file(session_id)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    lines = "".join(json.dumps({"at": now_iso(), **o.to_dict()}, ensure_ascii=False) + "\n" for o in observations)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)


def note_success(session_id: str, tool_name: str, tool_input: Any) -> None:
    """A shell command that succeeded, in a session whose log holds an error (`ok`: no record, no database): what
    tells the handover that the retry fixed it (snapshot.open_errors). Nothing when the log holds no error."""
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not session_id or tool_name != "Bash" or not isinstance(command, str) or not command.strip():
        return
    path = _log_file(session_id)
    if not os.path.exists(path):  # a session that logged nothing yet: the common case, one stat
        return
    from ...base.safeio import read_tail

    try:
        raw, _ = read_tail(path, 32 * 1024)
    except OSError:
        return
    if b'"kind": "error"' not in raw:
        return
    append_log(session_id, [Observation("ok", command=scrub_text(command).strip().splitlines()[0][:300])])


def read_log(session_id: str) -> list[dict[str, Any]]:
    """The session's working log: our own file, but read as any other (a regular file only, its newest
    LOG_READ_LIMIT bytes)."""
    from ...base.safeio import jsonl_tail

    return jsonl_tail(_log_file(session_id), LOG_READ_LIMIT)


def capture(conn: sqlite3.Connection, project_id: str, session_id: str, tool_name: str, tool_input: Any,
            tool_response: Any, cwd: str, failed: "bool | None" = False) -> list[Observation]:
    """Observe one tool call, store what it showed, and add it to the session's working log."""
    observations = observe(tool_name, tool_input, tool_response, cwd, failed)
    if observations:
        store(conn, project_id, session_id, observations)
        append_log(session_id, observations)
    return observations
