"""Capture's bug-fix stubs: one for a failing test or an error, resolved when its tests pass, retired when agentctx's own."""

from __future__ import annotations

import os
import sqlite3

from ...base.ids import now_iso
from ...base.models import TITLE_MAX, NewRecord
from ...store import capture as capture_sql
from ...store import graph, records
from .testruns import WHOLE, covers, own_command, runner

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import Observation

# A stub's body, as a record's: the status line goes right after the command, never at the end a cut loses, and the
# list of failing tests is what gets shortened (issue 42: a 2,000-character body lost its "Resolved:" line).
STUB_BODY_MAX = 2000
RESOLVED_TITLE = "Test failure fixed"
STATUS_ROOM = 400  # of STUB_BODY_MAX, kept for the status line a resolution adds


def _stub_title(prefix: str, command: str) -> str:
    title = f"{prefix}: {' '.join(command.split())}"
    return title if len(title) <= TITLE_MAX else title[: TITLE_MAX - 1] + "…"


def _anchors(ob: "Observation") -> tuple[str, ...]:
    """What an error stub governs (inferred, like the stub itself): the file the error names, relative to its
    repository, so an edit of that file sees the stub first (SPEC §4.11). None outside a repository."""
    from ...base.errors import ValidationError
    from ...base.roots import git_root

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


def write_stub(conn: sqlite3.Connection, project_id: str, session_id: str, ob: "Observation") -> str | None:
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
                                                   session_id=session_id or None, anchors=_anchors(ob)))
        record_id = record.id
    if ob.path:
        graph.link(conn, record_id, [graph.upsert_node(conn, project_id, "file", ob.path)])
    return None if existing else record_id


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


def resolve_stubs(conn: sqlite3.Connection, project_id: str, session_id: str, command: str,
                   covered: "list[str] | None" = None) -> None:
    """A test run passed: each open test-failure stub it settles gains its resolution (a superseding record, titled
    as fixed, with the stub's anchors and files). It settles the stubs the same command left, those whose failing
    tests it ran and passed, whatever command failed them (the test alone after a failing full suite), and, when it
    ran a runner's whole suite (no path, no `-k`), every stub that runner left."""
    whole = {c[len(WHOLE):] for c in covered or () if c.startswith(WHOLE)}  # runners whose whole suite passed
    ids = [c for c in covered or () if not c.startswith(WHOLE)]
    for open_stub in capture_sql.open_stubs_of(conn, project_id, "Test failure: ", "Command: "):
        if "\nResolved:" in open_stub.body:
            continue  # written before resolutions were titled as fixed
        first, _, rest = open_stub.body.partition("\n")
        same = first == f"Command: {command}"
        suite = bool(whole) and runner(first[len("Command: "):]) in whole
        tests = stub_tests(open_stub.body) or [open_stub.title[len("Test failure: "):]]
        if not (same or suite or (ids and all(any(covers(c, t) for c in ids) for t in tests))):
            continue
        how = ("the same command passed later" if same else f"the whole suite passed (`{_clip(command, 200)}`)"
               if suite else f"`{_clip(command, 200)}` ran these tests and they passed")
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
