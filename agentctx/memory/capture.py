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
# The id of a failing test as each runner prints it: pytest's summary (`FAILED path::Class::test - …`) or its -v
# line, unittest's `FAIL: test (module.Class.test)`, `go test`'s `--- FAIL: TestX`, cargo's `test x ... FAILED`,
# vitest's ` FAIL file > name`, jest's `● Suite › name`.
_FAILED_TEST = re.compile(r"(?m)^(?:FAILED|ERROR) (\S+::\S+|\S+\.py)(?=\s|$)|^(\S+::\S+) (?:FAILED|ERROR)(?=\s|$)"
                          r"|^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)|^\s*--- FAIL: (\S+)|^test (\S+) \.\.\. FAILED$"
                          r"|^\s*FAIL (\S+\.\w+ > [^\n]+?)\s*$|^\s+● ([^\n]+ › [^\n]+?)\s*$")
FAILED_TESTS_KEPT = 20
# The tests a passing run shows it ran, as each runner prints them: pytest -v (`path::test PASSED`) and its -rA
# summary, unittest -v (`test_x (mod.Class.test_x) ... ok`), `go test -v`, cargo, vitest and jest (`✓ name`).
_PASSED_TEST = re.compile(r"(?m)^(\S+::\S+) PASSED(?=\s|$)|^PASSED (\S+::\S+)(?=\s|$)"
                          r"|^(\w+) \(([\w.]+)\) \.\.\. ok$|^\s*--- PASS: (\S+)|^test (\S+) \.\.\. ok$"
                          r"|^\s*[✓√] (\S+\.\w+ > [^\n]+?)(?:\s+\d+\s*ms)?\s*$")
# Options of a test runner that take a value (the value is not a test to run), and those that run only some of the
# tests a path names (then a path covers nothing by itself: only the tests the output shows passed).
_VALUE_OPTIONS = frozenset(("-k", "-m", "-p", "-c", "-n", "-o", "-W", "--deselect", "--ignore", "--rootdir",
                            "--maxfail", "--tb", "--durations", "-run", "--run", "-t", "--testNamePattern",
                            "--reporter", "--config", "--project", "-r"))
_SUBSET_OPTIONS = ("-k", "-m", "--lf", "--last-failed", "--deselect", "-run", "--run", "-t", "--testNamePattern",
                   "--sw", "--stepwise")
# Room kept at the end of a stub's body for nothing: the status line goes right after the command, never at the
# cut end, and the list of failing tests is what gets shortened (issue 42: a 2,000-character body lost it).
STUB_BODY_MAX = 2000
# agentctx's own command, however it is started: its errors are never the project's (issue 42 item 6).
_OWN = re.compile(r"^(?:\w+=\S*\s+)*(?:(?:uvx|pipx\s+run|uv\s+(?:tool\s+)?run)\s+(?:--\S+\s+)*"
                  r"|python[\d.]*\s+-m\s+|\S*/)?agentctx(?:\.exe)?(?=\s|$)")
# Where one command of a shell line ends (`2>&1` is a redirection, not an `&`).
_SEGMENTS = re.compile(r"\s*(?:&&|\|\||(?<![<>&])&(?!>)|[;|\n()])\s*")


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


def failed_tests(output: str) -> list[str]:
    """The ids of the failing tests a test run printed, in order, each once (at most FAILED_TESTS_KEPT)."""
    found: list[str] = []
    for m in _FAILED_TEST.finditer(output):
        groups = m.groups()
        if groups[2]:  # unittest: `test_x (pkg.mod.Class.test_x)` since 3.11, `(pkg.mod.Class)` before
            ident = groups[3] if groups[3].endswith("." + groups[2]) else f"{groups[3]}.{groups[2]}"
        else:
            ident = next(g for g in groups if g)
        if ident not in found:
            found.append(ident)
            if len(found) >= FAILED_TESTS_KEPT:
                break
    return found


def _segments(command: str) -> list[str]:
    return [seg for seg in _SEGMENTS.split(command) if seg.strip()]


def own_command(command: str) -> bool:
    """Whether `command` runs agentctx itself (`agentctx`, `python -m agentctx`, `uvx agentctx`, a path to it) in
    any of its parts: what it prints is about agentctx, never the project's error or test run."""
    return any(_OWN.match(seg.strip()) for seg in _segments(command))


def _selections(command: str) -> tuple[list[str], bool]:
    """The tests a test command names (paths, node ids, dotted names), and whether an option runs only some of
    them (`-k`, `--lf`, `-run`: then a path says nothing about the tests in it)."""
    import shlex

    segment = next((seg for seg in _segments(command) if _TEST_CMD.search(seg) and not own_command(seg)), "")
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    m = _TEST_CMD.search(segment)
    runner_words = len(segment[: m.end()].split()) if m else 0
    chosen, subset, skip = [], False, False
    for word in words[runner_words:]:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            name = word.split("=", 1)[0]
            subset = subset or name in _SUBSET_OPTIONS
            skip = name in _VALUE_OPTIONS and "=" not in word
            continue
        if word in ("run", "test", "--") or word.startswith("./...") or any(c in word for c in "<>$`"):
            continue
        chosen.append(word[2:] if word.startswith("./") else word)
    return chosen, subset


def passed_tests(command: str, output: str) -> list[str]:
    """What a passing run covered: the tests its output names as passed, and (unless an option ran only some of
    them) the paths, node ids and dotted names its command selected. A failure stub is resolved when every test it
    lists is covered (`covers`), whatever command failed it."""
    found: list[str] = []
    for m in _PASSED_TEST.finditer(output[:OUTPUT_CHARS]):
        g = m.groups()
        if g[2]:  # unittest
            ident = g[3] if g[3].endswith("." + g[2]) else f"{g[3]}.{g[2]}"
        else:
            ident = next(x for x in g if x)
        found.append(ident)
    chosen, subset = _selections(command)
    found += [w for w in chosen if "::" in w or not subset]
    return list(dict.fromkeys(found))[:200]


def covers(selection: str, test_id: str) -> bool:
    """Whether a passing run's selection (a test id, a file, a directory, a module) includes `test_id`."""
    sel = selection.rstrip("/")
    if not sel:
        return False
    if test_id == sel:
        return True
    return any(test_id.startswith(sel + sep) for sep in ("::", " > ", ".", "/"))


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
    if _TEST_CMD.search(" ; ".join(seg for seg in _segments(command) if not own_command(seg))):
        fail = _TEST_FAIL.search(output)
        if fail:
            ids = failed_tests(output)
            line = fail.group(0).strip()
            if ids and ids[0] not in line:  # the verdict line that names the first failing test, if there is one
                line = next((ln.strip() for ln in output.splitlines() if ids[0] in ln), line)
            line = scrub_text(line)[:400]
            found.append(Observation("test", command=first, detail=line, outcome="failed",
                                     path=_first_path(line, output, cwd), subject=scrub_text("\n".join(ids))))
        elif _TEST_PASS.search(output):
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
                _resolve_stubs(conn, project_id, session_id, ob.command, [t for t in ob.subject.splitlines() if t])
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
    """A failing test run's stub is named by its first failing test (one stub per test, whichever command ran it),
    else by its command; an error's by its command."""
    tests = [t for t in ob.subject.splitlines() if t] if ob.kind == "test" else []
    title = _stub_title("Test failure" if ob.kind == "test" else "Error observed", tests[0] if tests else ob.command)
    existing = capture_sql.current_by_title(conn, project_id, "bugfix", title)
    record_id = existing.id if existing else None
    if existing is None:
        record, _ = records.insert(conn, NewRecord(type="bugfix", title=title, body=stub_body(ob.command, ob.detail,
                                                                                               tests),
                                                   project_id=project_id, source="hook_observation",
                                                   session_id=session_id or None, anchors=_stub_anchors(ob)))
        record_id = record.id
    if ob.path:
        graph.link(conn, record_id, [graph.upsert_node(conn, project_id, "file", ob.path)])
    return None if existing else record_id


RESOLVED_TITLE = "Test failure fixed"
# The status line's room: it goes right after the command, so no cut of the body can lose it.
STATUS_ROOM = 400


def stub_body(command: str, detail: str, tests: list[str]) -> str:
    """The stub's text: its command, what it showed, then the failing tests one a line, as many as fit in the body
    with room kept for its status line (`Resolved: …`, written right after the command when it passes)."""
    head = f"Command: {command}\nObserved: {detail}"
    room = STUB_BODY_MAX - STATUS_ROOM - len(head)
    listed: list[str] = []
    for test in tests:
        line = f"\n- {test}"
        if sum(len(x) for x in listed) + len(line) > room - 40:
            listed.append(f"\n- … and {len(tests) - len(listed)} more")
            break
        listed.append(line)
    return head + ("\nFailed tests:" + "".join(listed) if listed else "")


def stub_tests(body: str) -> list[str]:
    """The failing tests a stub lists: one a line under `Failed tests:`, or (stubs written before) after it, comma
    separated. A list cut short (`… and N more`) names only some: it is resolved by its named ones."""
    tests: list[str] = []
    lines = body.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Failed tests:"):
            rest = line[len("Failed tests:"):].strip()
            if rest:
                return [t.strip() for t in rest.split(", ") if t.strip() and not t.endswith("…")]
            for item in lines[i + 1:]:
                if not item.startswith("- "):
                    break
                if not item.startswith("- … and "):
                    tests.append(item[2:].strip())
            break
    return tests


def _resolve_stubs(conn: sqlite3.Connection, project_id: str, session_id: str, command: str,
                   covered: "list[str] | None" = None) -> None:
    """A test run passed: each open test-failure stub it settles gains its resolution (a superseding record, titled
    as fixed, with the stub's anchors and files). It settles the stubs the same command left, and those whose
    failing tests it ran and passed, whatever command failed them (the test alone after a failing full suite)."""
    covered = covered or []
    for open_stub in capture_sql.open_stubs_of(conn, project_id, "Test failure: ", "Command: "):
        if "\nResolved:" in open_stub.body:
            continue  # written before resolutions were titled as fixed
        same = open_stub.body.startswith(f"Command: {command}\n")
        tests = stub_tests(open_stub.body) or [open_stub.title[len("Test failure: "):]]
        if not same and not (covered and all(any(covers(c, t) for c in covered) for t in tests)):
            continue
        how = "the same command passed later" if same else f"`{_clip(command, 200)}` ran these tests and they passed"
        first, _, rest = open_stub.body.partition("\n")
        body = f"{first}\nResolved: {how} ({now_iso()}).\n{rest}"
        new, _ = records.insert(conn, NewRecord(type="bugfix", title=_stub_title(RESOLVED_TITLE,
                                                                                 open_stub.title[len("Test failure: "):]),
                                                body=body[:STUB_BODY_MAX], project_id=project_id,
                                                source="hook_observation", session_id=session_id or None,
                                                anchors=open_stub.anchors),
                                supersedes=open_stub.id)
        capture_sql.link_all(conn, [new.id], capture_sql.entity_ids(conn, open_stub.id))


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def retire_own_errors(conn: sqlite3.Connection, project_id: str) -> int:
    """Retire the current error stubs captured from agentctx's own commands before capture left them out (a
    `record --rationale` usage error stored as the project's bug fix): they are not the project's. Returns how many."""
    gone = 0
    for stub in capture_sql.open_stubs_of(conn, project_id, "Error observed: ", "Command: "):
        command = stub.body.split("\n", 1)[0][len("Command: "):]
        if own_command(command):
            records.retire(conn, stub.id, project_id)
            gone += 1
    return gone


# --- the session's working log (derived; read by PreCompact and the rule-based handover) ----------------------

def log_path(session_id: str) -> "os.PathLike[str]":
    return paths.home() / "state" / f"session-{paths.session_token(session_id)}.jsonl"


def append_log(session_id: str, observations: list[Observation]) -> None:
    if not session_id or not observations:
        return
    path = log_path(session_id)
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
    from ..base.safeio import read_tail

    try:
        raw, _ = read_tail(os.fspath(log_path(session_id)), 32 * 1024)
    except OSError:
        return
    if b'"kind": "error"' not in raw:
        return
    append_log(session_id, [Observation("ok", command=scrub_text(command).strip().splitlines()[0][:300])])


def read_log(session_id: str) -> list[dict[str, Any]]:
    """The session's working log: our own file, but read as any other (a regular file only, its newest
    LOG_READ_LIMIT bytes)."""
    from ..base.safeio import jsonl_tail

    return jsonl_tail(os.fspath(log_path(session_id)), LOG_READ_LIMIT)


def capture(conn: sqlite3.Connection, project_id: str, session_id: str, tool_name: str, tool_input: Any,
            tool_response: Any, cwd: str, failed: "bool | None" = False) -> list[Observation]:
    """Observe one tool call, store what it showed, and add it to the session's working log."""
    observations = observe(tool_name, tool_input, tool_response, cwd, failed)
    if observations:
        store(conn, project_id, session_id, observations)
        append_log(session_id, observations)
    return observations
