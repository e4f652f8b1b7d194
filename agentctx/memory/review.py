"""`agentctx review` and `agentctx forget`: the user walks through what was remembered and corrects it."""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

from ..base import paths, safeio
from ..base.ids import now_iso
from ..base.models import Record, record_type
from ..base.project import Project
from ..store import records
from ..store import review as store
from . import keep_digests_fresh

keep_digests_fresh()  # this module writes records: their digests are rebuilt after each write

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..cli.terminal import Terminal

EDIT_RATIONALE = "corrected by the user in agentctx review"
# `forget`: a match is clear when it carries the query's telling words (relevance at least the interactive floor of
# `agentctx search`) and scores at least this share of the best clear match. Only clear matches are offered as
# "all"; the rest are listed as partial matches, to be picked by number if at all.
CLEAR_SHARE = 0.5


class Candidate(record_type("Candidate", "record versions score relevance clear")):
    """A record `forget` offers: how many versions forgetting it removes, its search score and relevance, and
    whether it is a clear match (CLEAR_SHARE)."""

    __slots__ = ()
BODY_LINES_SHOWN = 12


# ---- which records are new since the last review ----

def state_file(project_id: str) -> str:
    """{"at": when the last full review started, "ids": records handled since, in a review left early}."""
    return os.path.join(paths.state_dir_str(), f"review-{paths._safe(project_id)}.json")


def load_state(project_id: str) -> tuple[str | None, list[str]]:
    try:
        with open(state_file(project_id), encoding="utf-8") as fh:
            data = json.load(fh)
        at = data.get("at")
        ids = data.get("ids") or []
        return (at if isinstance(at, str) else None), [i for i in ids if isinstance(i, str)]
    except (OSError, ValueError, AttributeError):
        return None, []


def save_state(project_id: str, at: str | None, ids: list[str]) -> None:
    path = state_file(project_id)
    paths.ensure_private_dir_str(os.path.dirname(path))
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = safeio.create_private(tmp)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"at": at, "ids": ids}, fh)
    os.replace(tmp, path)


def pending(conn: sqlite3.Connection, project_id: str, *, everything: bool = False) -> list[Record]:
    """The inbox first (records waiting for review, unverified ones, ones about to expire: `inbox`), then the
    current records written since the last review (every current record with `everything`), inferred first."""
    boxed = [r for r, _ in inbox(conn, project_id)]
    if everything:
        rest = store.written_since(conn, project_id, None)
    else:
        at, handled = load_state(project_id)
        rest = store.written_since(conn, project_id, at, skip=handled)
    ids = {r.id for r in boxed}
    return boxed + [r for r in rest if r.id not in ids]


def inbox(conn: sqlite3.Connection, project_id: str) -> list[tuple[Record, str]]:
    """(record, why it is here) for what needs the user whatever the review mark says (SPEC §3.9): inferred records
    waiting for review (`inferred: review`), records whose code changed (the evidence), and inferred records that
    expire within a week unless used, pinned or confirmed."""
    from ..store import trust
    from ..trust import expiry

    out: dict[str, tuple[Record, str]] = {}
    for record, reason, _at in trust.marked(conn, project_id, "review"):
        out.setdefault(record.id, (record, f"waiting for review: {reason}"))
    for record, reason, at in trust.marked(conn, project_id, "unverified"):
        out.setdefault(record.id, (record, f"code changed since it was recorded ({at[:10]}): {reason}"))
    for record, used, when in expiry.soon(conn, project_id):
        out.setdefault(record.id, (record, f"expires {when[:10]} unless used, pinned or confirmed "
                                           f"(last used {used[:10]})"))
    return list(out.values())


def notes(conn: sqlite3.Connection, project_id: str) -> dict[str, str]:
    return {r.id: why for r, why in inbox(conn, project_id)}


def confirm_record(conn: sqlite3.Connection, project: Project, record_id: str) -> Record:
    """The user vouches for a record: explicit, no longer waiting for review, and, when its code changed, verified
    again against the code as it is now (its fingerprints taken again)."""
    from ..store import trust

    record = store.confirm(conn, record_id, project.id)
    trust.clear_mark(conn, record.id, "review")
    if trust.marks_for(conn, [record.id]).get(record.id, {}).get("unverified") is not None:
        from ..trust import verify

        verify.reverify(conn, project, record)
    from ..base import freshness

    freshness.changed(conn, record.project_id)  # confirmed: the digest may show it now
    return record


def restore_record(conn: sqlite3.Connection, project: Project, record_id: str) -> Record:
    """Bring back a record that expired (`review --restore ID`): current again, as if just used."""
    from ..store import trust

    record = records.resolve(conn, record_id, project.id)
    return trust.restore(conn, record.id, project.id)


def listing(record: Record, note: str | None = None) -> dict[str, Any]:
    """The `review --json` / `forget --json` form of a record (`note`: why the inbox holds it)."""
    out = {"id": record.id, "type": record.type, "title": record.title, "body": record.body,
           "confidence": record.confidence, "source": record.source, "scope": record.scope,
           "recorded_at": record.recorded_at, "session_id": record.session_id}
    if note:
        out["note"] = note
    return out


def show(term: "Terminal", record: Record, position: str = "", note: str | None = None) -> None:
    scope = ", global" if record.scope == "global" else ""
    term.say(f"{position}{record.type} · {record.confidence}{scope} · {record.source} · {record.recorded_at} · {record.id}")
    term.say(f"  {record.title}")
    if note:
        term.say(f"  ! {note}")
    lines = record.body.splitlines()
    for line in lines[:BODY_LINES_SHOWN]:
        term.say(f"    {line}")
    if len(lines) > BODY_LINES_SHOWN:
        term.say(f"    … ({len(lines) - BODY_LINES_SHOWN} more lines: agentctx show {record.id})")


# ---- the interactive walk ----

def walk(conn: sqlite3.Connection, project: Project, term: "Terminal", *, everything: bool = False,
         todo: list[Record] | None = None) -> dict[str, Any]:
    """Ask about each pending record: confirm, edit (an explicit supersession), delete, skip, or quit.

    A walk that reaches the end moves the review mark to when it started; one left early (q, end of input)
    remembers the records it handled, so the next review starts with the rest."""
    started = now_iso()
    at, handled = load_state(project.id)
    given = todo is not None  # a list of its own (the last team import): the review mark is not this walk's to move
    todo = pending(conn, project.id, everything=everything) if todo is None else todo
    why = notes(conn, project.id)
    done: dict[str, list[str]] = {"confirmed": [], "edited": [], "deleted": [], "skipped": []}
    finished = True
    created: list[str] = []
    if not todo:
        term.say("nothing new to review since the last review" if at else "no records to review")
    for n, record in enumerate(todo, 1):
        term.say()
        show(term, record, f"[{n}/{len(todo)}] ", why.get(record.id))
        action = _choose(term)
        if action == "quit":
            finished = False
            break
        if action == "confirm":
            confirm_record(conn, project, record.id)
            done["confirmed"].append(record.id)
            term.say("  confirmed")
        elif action == "edit":
            new = _edit(conn, project, term, record)
            if new is None:
                term.say("  unchanged")
                done["skipped"].append(record.id)
            else:
                done["edited"].append(record.id)
                created.append(new.id)  # the user's own correction is not news for the next review
                term.say(f"  superseded by {new.id}")
        elif action == "delete":
            records.delete(conn, record.id, project.id)
            done["deleted"].append(record.id)
            term.say("  deleted")
        else:
            done["skipped"].append(record.id)
        handled.append(record.id)
    if given:
        pass
    elif finished:
        save_state(project.id, started, created)
    else:
        save_state(project.id, at, handled + created)
    return {**done, "finished": finished, "remaining": 0 if finished else len(todo) - sum(map(len, done.values()))}


def _choose(term: "Terminal") -> str:
    choices = {"c": "confirm", "e": "edit", "d": "delete", "s": "skip", "q": "quit", "": "skip"}
    while True:
        answer = term.ask("  [c]onfirm  [e]dit  [d]elete  [s]kip  [q]uit > ")
        if answer is None:
            return "quit"
        action = choices.get(answer.strip().lower()[:1])
        if action:
            return action
        term.say("  answer c, e, d, s or q")


def _edit(conn: sqlite3.Connection, project: Project, term: "Terminal", record: Record) -> Record | None:
    lines = term.ask_lines("  new body (end with an empty line; nothing keeps the record as it is):")
    if not lines:
        return None
    title = term.ask(f"  title [{record.title}] > ")
    if title is None:
        return None
    _, new = records.supersede(conn, record.id, project.id, body="\n".join(lines), rationale=EDIT_RATIONALE,
                               title=title.strip() or None, source="cli")
    return new


def apply(conn: sqlite3.Connection, project: Project, *, confirm: list[str], delete: list[str],
          restore: "list[str] | tuple[str, ...]" = ()) -> dict[str, Any]:
    """`review --yes --confirm ID --delete ID --restore ID`: the same actions without questions, by explicit id
    (every id is checked before anything changes)."""
    confirm_ids = [records.resolve(conn, i, project.id).id for i in confirm]  # short ids as everywhere else
    delete_ids = [records.resolve(conn, i, project.id).id for i in delete]
    restore_ids = [records.resolve(conn, i, project.id).id for i in restore]
    confirmed = [confirm_record(conn, project, i).id for i in confirm_ids]
    deleted = [records.delete(conn, i, project.id).id for i in delete_ids]
    restored = [restore_record(conn, project, i).id for i in restore_ids]
    return {"confirmed": confirmed, "deleted": deleted, "restored": restored}


# ---- forget ----

def candidates(conn: sqlite3.Connection, project: Project, query: str, limit: int) -> list[Candidate]:
    """What `agentctx search --keyword-only` lists for `query` (current records; the same ranking, pool and
    relevance rule), each with the number of versions forgetting it removes and whether it is a clear match."""
    from ..retrieval import hybrid, search

    # The words asked for, not their other names: what is listed here may be deleted.
    pool = max(limit * hybrid.POOL_FACTOR, hybrid.POOL_MIN)
    hits = hybrid.relevant_first(search.search(conn, query, project.id, limit=pool, expand=False).hits,
                                 hybrid.INTERACTIVE_FLOOR)[:limit]
    exact = exact_id(query)
    # An exact id (a test id, a path, a dotted name) is clear only in the records that name it: its parts ("tests",
    # "py") are words every rule file about tests holds.
    telling = [h.score for h in hits if h.relevance >= hybrid.INTERACTIVE_FLOOR and (not exact or names(h.record, exact))]
    best = max(telling, default=0.0)
    return [Candidate(h.record, len(_chain_ids(conn, h.record, project)), h.score, h.relevance,
                      h.relevance >= hybrid.INTERACTIVE_FLOOR and h.score >= CLEAR_SHARE * best
                      and (not exact or names(h.record, exact))) for h in hits]


def exact_id(query: str) -> str | None:
    """The identifier `query` is, lower case, when it is one (one word holding `::`, `/` or a dotted name:
    `tests/test_cli.py::test_exit`, `src/app.ts`, `pkg.mod.Class`), else None."""
    import re

    word = query.strip()
    if not word or any(c.isspace() for c in word) or not re.search(r"::|/|\w\.\w", word):
        return None
    return word[2:].lower() if word.startswith("./") else word.lower()


def names(record: Record, ident: str) -> bool:
    """Whether the record names `ident` itself: in its title, body, questions, aliases or anchors."""
    return any(ident in text.lower() for text in (record.title, record.body, *record.questions, *record.aliases,
                                                   *record.anchors))


def _chain_ids(conn: sqlite3.Connection, record: Record, project: Project) -> list[str]:
    return [r.id for r in records.history(conn, record.id, project.id)]


def forget_ids(conn: sqlite3.Connection, project: Project, ids: list[str]) -> list[dict[str, Any]]:
    """Forget each record with its supersession history; one entry per id asked for."""
    for record_id in ids:  # every id must exist before anything is deleted
        records.require(conn, record_id, project.id)
    out = []
    for record_id in ids:
        if records.get(conn, record_id, project.id) is None:  # already gone with an earlier id's history
            continue
        chain = store.forget(conn, record_id, project.id)
        out.append({"id": record_id, "title": chain[-1].title if chain else "",
                    "deleted": [r.id for r in chain], "history": max(0, len(chain) - 1)})
    return out


def choose_to_forget(term: "Terminal", found: list[Candidate]) -> list[str] | None:
    """Numbers, `all` (the clear matches only), or nothing; None when the user stops."""
    clear = [c.record.id for c in found if c.clear]
    for n, c in enumerate(found, 1):
        if n == len(clear) + 1:
            term.say("     partial matches (not in 'all'):")
        extra = f"  (+{c.versions - 1} earlier/later version{'s' if c.versions > 2 else ''})" if c.versions > 1 else ""
        term.say(f"{n:>3}. {c.score:7.3f}  [{c.record.type}] {c.record.title}  {c.record.id}{extra}")
    offer = f"'all' for the {len(clear)} clear match{'es' if len(clear) > 1 else ''}, " if clear else ""
    while True:
        answer = term.ask(f"forget which? (numbers like 1 3, {offer}or Enter for none) > ")
        if answer is None or not answer.strip():
            return None
        if answer.strip().lower() == "all":
            if clear:
                return clear
            term.say("no clear match to take as 'all': pick by number")
            continue
        try:
            picks = sorted({int(part) for part in answer.replace(",", " ").split()})
        except ValueError:
            term.say("answer with numbers from the list, 'all', or Enter")
            continue
        if picks and all(1 <= p <= len(found) for p in picks):
            return [found[p - 1].record.id for p in picks]
        term.say(f"numbers between 1 and {len(found)}")
