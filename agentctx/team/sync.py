"""Team memory through git: export the shareable records to a Markdown file, import a teammate's file back.

The same round trip carries the developer profile (`_global` preferences) between machines. The file is derived
(SPEC §8); its hand edits reach the store only through `import`, as explicit supersessions, and never silently:
a removal is only proposed, a conflict only shown.
"""

from __future__ import annotations

import os
import sqlite3
from functools import lru_cache
from pathlib import Path

from ..base.errors import ConflictError, NotFoundError, ValidationError
from ..base.ids import sha256_hex
from ..base.models import GLOBAL_PROJECT, NewRecord, Record, record_type
from ..base.project import Project
from ..stash.redact import scrub_text
from ..store import records
from ..store import team as sync
from ..store.db import atomic
from . import stamp as team_stamp
from . import fileformat as teamfile

# Shared through the file: never inferred (a hypothesis is not something to hand a teammate). `team` is what a
# teammate's file brought in: shared on, never promoted to what this user typed.
SHARED_CONFIDENCES = ("explicit", "reinforced", "team")
# The file arrives through git from teammates, forks and pull requests: bounded like every repository file we read.
# A real team's file is well under these (docs/team.md); above them nothing is imported.
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_ENTRIES = 5_000
MAX_IMPORT_RECORDS = 500  # records one import may add or supersede


class Target(record_type("Target", "kind namespace scope path root")):
    """Where a round trip goes: the file format, the namespace and scope of its records, the file, and (for the team
    file) the work-tree root whose SessionStart stamp it updates."""

    __slots__ = ()

    @property
    def label(self) -> str:
        if self.root:
            try:
                return os.path.relpath(self.path, self.root)
            except ValueError:
                pass
        return str(self.path)


def team_target(project: Project) -> Target:
    return Target(teamfile.TEAM, project.id, "project", team_stamp.team_file(project.root_dir), project.root_dir)


def profile_target(path: str | os.PathLike[str] | None = None) -> Target:
    from ..base import paths

    where = Path(os.path.expanduser(os.fspath(path))) if path is not None else paths.profile_dir()
    # A directory (existing, or named with a trailing slash or without a suffix) holds preferences.md.
    if path is None or where.is_dir() or os.fspath(path).endswith(("/", os.sep)) or not where.suffix:
        where = where / "preferences.md"
    return Target(teamfile.PROFILE, GLOBAL_PROJECT, "global", str(where), None)


def shown(record: Record) -> tuple[str, str]:
    """A record's title and body as the file shows them: redacted, normalised."""
    return _shown(record.title, record.body)


@lru_cache(maxsize=1 << 15)
def _shown(title: str, body: str) -> tuple[str, str]:
    # Redaction is most of an export's time; a plan and a render see every record twice or three times.
    return (teamfile.normalize_title(scrub_text(title)), teamfile.normalize_body(scrub_text(body)))


def store_hash(record: Record) -> str:
    title, body = shown(record)
    return _hash(record.type, title, body)


@lru_cache(maxsize=1 << 15)
def _hash(type_: str, title: str, body: str) -> str:
    return teamfile.content_hash(type_, title, body)


def shareable(conn: sqlite3.Connection, target: Target) -> list[Record]:
    """The current records the file carries: its types, explicit, reinforced or team, of its own namespace and scope;
    not the records read from the repository's rule files (their files already travel with the repository)."""
    return [r for r in records.current(conn, target.namespace, types=target.kind.types, own_only=True)
            if r.confidence in SHARED_CONFIDENCES and r.scope == target.scope and r.source != "rule_file"]


def _heads(conn: sqlite3.Connection, target: Target, rows: dict[str, sync.SyncRow]) -> dict[str, str]:
    """key -> the id at the end of its synced record's local supersession chain."""
    nxt = sync.successors(conn, target.namespace)
    out: dict[str, str] = {}
    for key, row in rows.items():
        rid = row.record_id or ""
        seen: set[str] = set()
        while rid in nxt and rid not in seen:
            seen.add(rid)
            rid = nxt[rid]
        out[key] = rid
    return out


class Plan(record_type("Plan", "new edits relinks conflicts stale removed_now removals restored local errors "
                               "whole_file_ok asked", defaults=((),))):
    """What an import would do. new: entries to create; edits: (entry, head) to supersede; relinks: (entry, record)
    the store already holds; conflicts: (entry, head or None, reason); stale: entries holding an older version;
    removed_now: keys gone from the file since the last import; removals: (key, head or None) every proposed
    retirement; restored: entries back in the file after a proposal; local: (key, record) changed in the store since
    the last sync; errors: (line, message); asked: (entry, head) whose questions or aliases in the file differ from the
    current record's (set in place: how a record will be asked is not an edit of its fact)."""

    __slots__ = ()

    @property
    def unimported(self) -> int:
        """File-side changes an export would overwrite."""
        return len(self.new) + len(self.edits) + len(self.conflicts) + len(self.removed_now) + len(self.errors) \
            + len(self.asked) + (0 if self.whole_file_ok else 1)


def read_file(target: Target) -> str | None:
    """The file's text (None when there is none). A regular file only, read without blocking and never past the cap
    (a FIFO or a link to /dev/zero is refused at once, a huge file before it is read whole)."""
    from ..base.safeio import read_head

    try:
        data = read_head(str(target.path), MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise NotFoundError("file_unreadable", path=target.path, detail=exc.strerror or str(exc)) from None
    if len(data) > MAX_FILE_BYTES:
        raise ValidationError("team_file_too_large", path=target.path, size=_size(target.path), limit=MAX_FILE_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotFoundError("file_unreadable", path=target.path, detail=f"not UTF-8 ({exc.reason})") from None


def _size(path: str) -> int | str:
    try:
        return os.stat(path).st_size
    except OSError:
        return "?"


def plan(conn: sqlite3.Connection, target: Target, text: str | None) -> Plan:
    """Compare the file with the store and the sync state (no writes)."""
    ns = target.namespace
    rows = sync.rows(conn, ns)
    versions = sync.versions(conn, ns)
    heads = _heads(conn, target, rows)
    head_records = sync.by_ids(conn, sorted({rid for rid in heads.values() if rid}))
    parsed = teamfile.parse(text, target.kind) if text is not None else teamfile.Parsed((), (), frozenset(), True)
    if len(parsed.entries) > MAX_ENTRIES:
        raise ValidationError("team_file_too_many", path=target.path, count=len(parsed.entries), limit=MAX_ENTRIES)
    new, edits, relinks, conflicts, stale, restored, asked = [], [], [], [], [], [], []
    for entry in parsed.entries:
        row = rows.get(entry.key)
        head = head_records.get(heads.get(entry.key) or "") if row is not None else None
        if target.kind is teamfile.TEAM and entry.aliases:  # names the record does not have yet are capped
            entry = entry._replace(aliases=specific_names(entry.aliases, head.aliases if head is not None else ()))
        if head is not None and head.is_current and (entry.questions or entry.aliases or entry.anchors) \
                and (*_asked_stored(entry), entry.anchors) != (head.questions, head.aliases, head.anchors):
            asked.append((entry, head))
        if row is None:
            own = records.get(conn, entry.key, ns)
            if own is not None and own.project_id == ns:  # an id this store made, without sync state (a new store?)
                head = records.head(conn, own)
                if head.is_current and store_hash(head) == entry.hash:
                    relinks.append((entry, head))
                elif head.is_current:
                    conflicts.append((entry, head, "this store's record with that id differs and was never synced"))
                else:
                    conflicts.append((entry, head, "this store retired that record"))
                continue
            same = _same(conn, target, entry)
            (relinks.append((entry, same)) if same is not None else new.append(entry))
            continue
        head = head_records.get(heads[entry.key])
        if head is None:  # deleted here
            if entry.hash != row.file_hash:
                new.append(entry)
            continue
        if not head.is_current:
            if entry.hash != row.file_hash and entry.hash not in versions.get(entry.key, ()):
                conflicts.append((entry, head, "retired in this store, edited in the file"))
            continue
        current_hash = store_hash(head)
        if entry.hash == row.file_hash:
            if row.removed:
                restored.append((entry, head))
            continue
        if entry.hash == current_hash:
            relinks.append((entry, head))
        elif entry.hash in versions.get(entry.key, ()):
            stale.append(entry)
        elif current_hash != row.store_hash:
            conflicts.append((entry, head, "changed in the file and in this store since the last sync"))
        else:
            edits.append((entry, head))
    in_file = {e.key for e in parsed.entries}
    removed_now: list[str] = []
    removals: list[tuple[str, Record | None]] = []
    if text is not None and parsed.whole_file_ok:
        for key, row in sorted(rows.items()):
            if key in parsed.seen_keys:
                continue
            head = head_records.get(heads[key])
            if not row.removed and head is not None and head.is_current and store_hash(head) != row.store_hash:
                # Removed from the file, changed in this store since the last sync: a conflict, not a proposal.
                gone = teamfile.Entry(key, head.type, head.title, "", 0)
                conflicts.append((gone, head, "removed from the file, changed in this store since the last sync"))
                continue
            if not row.removed:
                removed_now.append(key)
            removals.append((key, head))
    else:
        removals = [(k, head_records.get(heads[k])) for k, row in sorted(rows.items()) if row.removed]
    local = []
    for key, row in sorted(rows.items()):
        head = head_records.get(heads[key])
        if head is not None and head.is_current and key not in in_file and key not in parsed.seen_keys \
                and text is not None and parsed.whole_file_ok and not row.removed:
            continue  # proposed for removal or in conflict above: not (only) a local change
        if head is not None and head.is_current and store_hash(head) != row.store_hash:
            local.append((key, head))
    edited = {e.key for e, _ in edits}
    return Plan(new, edits, relinks, conflicts, stale, removed_now, removals, restored, local,
                list(parsed.errors), parsed.whole_file_ok, [(e, h) for e, h in asked if e.key not in edited])


def _same(conn: sqlite3.Connection, target: Target, entry: teamfile.Entry) -> Record | None:
    try:
        found = records.find_same(conn, _new_record(target, entry))
    except ValidationError:
        return None
    return found if found is not None and found.confidence in SHARED_CONFIDENCES else None


def unexported(conn: sqlite3.Connection, target: Target) -> list[Record]:
    """Shareable records no file entry names yet (new here since the last export)."""
    named = set(_heads(conn, target, sync.rows(conn, target.namespace)).values())
    return [r for r in shareable(conn, target) if r.id not in named]


# A teammate's other names for a record are kept only when they say something: the summed background specificity
# of a name's words (retrieval.search.specificity, 0..1 a word) at least this. Names made of the commonest words of
# software text and of everyday prompts ("fix the tests", "update the code", "run it") would make the record match
# prompts that are not about it; measured on 1,186 real and hand-written other names (tests/data, bench/data,
# adr-dev), 1.3% fall below it ("documentation", "typing", "c#"), and those still match through the record's text.
NAME_SPECIFICITY_MIN = 0.25


def specific_names(aliases: "tuple[str, ...]", has: "tuple[str, ...]" = ()) -> tuple[str, ...]:
    """The other names of a team-file entry to import: those its record already has (`has`: the author's own round
    trip changes nothing), and new ones specific enough (NAME_SPECIFICITY_MIN)."""
    from ..base import text
    from ..retrieval.search import specificity

    kept = []
    for alias in aliases:
        stems = list(dict.fromkeys(text.stems(text.content_tokens(alias))))
        if alias in has or (stems and sum(specificity(stems).values()) >= NAME_SPECIFICITY_MIN):
            kept.append(alias)
    return tuple(kept)


def _asked_stored(entry: teamfile.Entry) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """An entry's questions and aliases as the store keeps them (secrets scrubbed): compared raw, a token in a
    teammate's `- asked:` line differed from the stored copy on every import, and export refused for ever."""
    try:
        return records.asked_items(entry.questions, "questions"), records.asked_items(entry.aliases, "aliases")
    except ValidationError:  # scrubbing made an item too long: the import reports it when it sets them
        return entry.questions, entry.aliases


def _new_record(target: Target, entry: teamfile.Entry, pinned: bool = False, head: Record | None = None) -> NewRecord:
    # A teammate's entry is trusted below what this user typed (`team`); the developer's own profile file is theirs.
    confidence = "team" if target.kind is teamfile.TEAM else "explicit"
    questions, aliases, anchors = entry.questions, entry.aliases, entry.anchors
    if head is not None and not (questions or aliases):  # an edit of an entry without them keeps the record's
        questions, aliases = head.questions, head.aliases
    if head is not None and not anchors:
        anchors = head.anchors
    return NewRecord(type=entry.type, title=scrub_text(entry.title), body=scrub_text(entry.body),
                     project_id=target.namespace, scope=target.scope, confidence=confidence, source="team_import",
                     pinned=pinned, questions=questions, aliases=aliases, anchors=anchors,
                     guard=head.guard if head is not None else "")  # a guard is this user's, never the file's


class ImportResult(record_type("ImportResult", "path plan created superseded relinked retired errors changed asked",
                               defaults=((),))):
    """An import's outcome: the plan it carried out, the ids it wrote, the entries it could not store, and the
    records whose questions or aliases it set from the file."""

    __slots__ = ()


def import_file(conn: sqlite3.Connection, target: Target, *, apply_removals: bool = False,
                max_records: int = MAX_IMPORT_RECORDS) -> ImportResult:
    """Bring the file's new and hand-edited entries into the store (one transaction); importing twice changes nothing.
    An import that would add or change more than `max_records` records imports nothing."""
    text = read_file(target)
    if text is None:
        raise NotFoundError("file_unreadable", path=target.path,
                            detail=f"no such file (`agentctx {target.kind.name} export` writes it)")
    created, superseded, relinked, retired, asked = [], [], [], [], []
    errors: list[tuple[int, str]] = []
    with atomic(conn):  # planned inside the write lock: two imports at once do the work once
        p = plan(conn, target, text)
        if len(p.new) + len(p.edits) > max_records:
            raise ValidationError("team_import_too_large", path=target.path, count=len(p.new) + len(p.edits),
                                  limit=max_records)
        saves: list[tuple[str, str | None, str, str]] = []
        for entry in p.new:
            try:
                record, _ = records.insert(conn, _new_record(target, entry))
            except ValidationError as exc:  # a teammate's entry this store cannot hold: reported, skipped
                errors.append((entry.line, str(exc)))
                continue
            created.append(record.id)
            saves.append((entry.key, record.id, entry.hash, store_hash(record)))
        why = f"Edited by hand in {target.label}; brought in by `agentctx {target.kind.name} import`."
        for entry, head in p.edits:
            try:
                record, _ = records.insert(conn, _new_record(target, entry, head.pinned, head), supersedes=head.id)
            except (ValidationError, ConflictError) as exc:
                errors.append((entry.line, str(exc)))
                continue
            sync.set_rationale(conn, record.id, why)
            superseded.append((head.id, record.id))
            saves.append((entry.key, record.id, entry.hash, store_hash(record)))
        for entry, record in [*p.relinks, *p.restored]:
            relinked.append(record.id)
            saves.append((entry.key, record.id, entry.hash, store_hash(record)))
        for entry, head in p.asked:
            try:
                if entry.questions or entry.aliases:
                    records.set_asked(conn, head.id, target.namespace, questions=entry.questions,
                                      aliases=entry.aliases)
                if entry.anchors and entry.anchors != head.anchors:
                    records.set_anchors(conn, head.id, target.namespace, entry.anchors, by="team_import")
            except ValidationError as exc:
                errors.append((entry.line, str(exc)))
                continue
            asked.append(head.id)
        sync.save(conn, target.namespace, saves)
        sync.mark_removed(conn, target.namespace, p.removed_now)
        if apply_removals:
            for key, head in p.removals:
                if head is not None and head.is_current:
                    records.retire(conn, head.id, target.namespace)
                    retired.append(head.id)
            sync.forget(conn, target.namespace, [k for k, _ in p.removals])
        sync.save_file_hash(conn, target.namespace, target.path, sha256_hex(text))
    if target.root:
        team_stamp.remember(target.root, target.namespace)
    if target.kind is teamfile.TEAM and (created or superseded):
        _remember_import(target.namespace, created + [new for _, new in superseded])
    changed = bool(created or superseded or retired or asked)
    return ImportResult(target.path, p, created, superseded, relinked, retired, [*p.errors, *errors], changed, asked)


def _import_file(namespace: str) -> str:
    from ..base import paths

    return os.path.join(paths.state_dir_str(), f"team-import-{paths._safe(namespace)}.json")


def _remember_import(namespace: str, ids: list[str]) -> None:
    """What this import brought in, for `agentctx review --team` (the last import's records, nothing older)."""
    import json

    from ..base import paths
    from ..base.ids import now_iso
    from ..base.userfiles import atomic_write

    paths.ensure_private_dir(paths.state_dir())
    atomic_write(_import_file(namespace), json.dumps({"at": now_iso(), "ids": ids}) + "\n", mode=0o600)


def last_import(conn: sqlite3.Connection, namespace: str) -> tuple[str | None, list[Record]]:
    """When the last team import that brought records in ran, and those of its records still current."""
    import json

    try:
        with open(_import_file(namespace), encoding="utf-8") as fh:
            data = json.load(fh)
        at, ids = str(data["at"]), [str(i) for i in data["ids"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None, []
    found = sync.by_ids(conn, ids)
    return at, [found[i] for i in ids if i in found and found[i].is_current]


class ExportResult(record_type("ExportResult", "path entries written bytes left_out")):
    """An export's outcome: the file, how many entries it holds, whether its bytes changed, its size, and the
    entries left out because an import proposed their removal."""

    __slots__ = ()


def render(conn: sqlite3.Connection, target: Target) -> tuple[str, list[tuple[str, str, str, str]], list[str]]:
    """The file's text for the store as it is, the (key, record id, hash) rows it syncs, and the keys left out."""
    rows = sync.rows(conn, target.namespace)
    key_of: dict[str, str] = {}
    for key, rid in sorted(_heads(conn, target, rows).items()):
        key_of.setdefault(rid, key)
    entries: list[tuple] = []
    saves: list[tuple[str, str, str, str]] = []
    left_out: list[str] = []
    used: set[str] = set()
    for record in shareable(conn, target):
        key = key_of.get(record.id, record.id)
        if key in used:  # two records claiming one key: the second keeps its own id
            key = record.id
        used.add(key)
        if key in rows and rows[key].removed:
            left_out.append(key)
            continue
        title, body = shown(record)
        entries.append((key, record.type, title, body, record.questions, record.aliases, record.anchors))
        h = _hash(record.type, title, body)
        saves.append((key, record.id, h, h))
    return teamfile.render(target.kind, entries), saves, left_out


def export_file(conn: sqlite3.Connection, target: Target, *, force: bool = False) -> ExportResult:
    """Write the file from the store; refuses (unless `force`) when the file holds changes not imported yet."""
    current = read_file(target)
    if current is not None and not force:
        p = plan(conn, target, current)
        if p.unimported:
            raise ConflictError("team_unimported", path=target.path, kind=target.kind.name,
                                detail=summary(p))
    text, saves, left_out = render(conn, target)
    written = current != text
    if written:
        _write_atomic(target.path, text, private=target.kind is teamfile.PROFILE)
    with atomic(conn):
        rows = sync.rows(conn, target.namespace)
        sync.save(conn, target.namespace, saves)
        kept = {k for k, _, _, _ in saves} | set(left_out)
        sync.forget(conn, target.namespace, [k for k in rows if k not in kept])
        sync.save_file_hash(conn, target.namespace, target.path, sha256_hex(text))
    if target.root:
        team_stamp.remember(target.root, target.namespace)
    return ExportResult(target.path, len(saves), written, len(text.encode("utf-8")), left_out)


def _write_atomic(path: str, text: str, *, private: bool = False) -> None:
    """Temp file and rename; `private` (the profile: personal data) makes the directory 0700 and the file 0600, the
    team file keeps the umask's modes (it is committed and shared)."""
    directory = os.path.dirname(path) or "."
    try:
        if private:
            from ..base.paths import ensure_private_dir_str

            ensure_private_dir_str(directory)
        else:
            os.makedirs(directory, exist_ok=True)
        tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o666)
        with open(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise NotFoundError("file_unwritable", path=path, detail=exc.strerror or str(exc)) from None


def summary(p: Plan) -> str:
    parts = [f"{len(p.new)} new", f"{len(p.edits)} edited", f"{len(p.conflicts)} in conflict",
             f"{len(p.removed_now)} removed", f"{len(p.errors)} malformed"]
    if p.asked:
        parts.append(f"{len(p.asked)} with other questions or aliases")
    if not p.whole_file_ok:
        parts.append("the file is not recognised")
    return ", ".join(parts)


def auto_import(project: Project) -> ImportResult | None:
    """The SessionStart-triggered import (detached): skipped when the file's bytes are what was last synced;
    refreshes the digest when anything changed. Never raises."""
    from ..store import db
    from ..memory import digest
    from ..base import paths

    target = team_target(project)
    try:
        text = read_file(target)
        if text is None:
            return None
        conn = db.connect(paths.db_path())
        try:
            if sync.file_hash(conn, project.id, target.path) == sha256_hex(text):
                team_stamp.remember(project.root_dir, project.id)
                return None
            result = import_file(conn, target)
            if result.changed:
                digest.refresh(conn, project.id, project=project)
            return result
        finally:
            conn.close()
    except Exception as exc:  # background work: log, never raise
        from ..base.hooklog import log

        log("team-import", f"{type(exc).__name__}: {exc}")
        return None
