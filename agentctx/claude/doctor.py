"""`agentctx doctor`: health checks over the data directory and database, each saying how to fix what it finds."""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from ..base import config, paths
from ..base.errors import AgentctxError
from ..store import db
from ..store.migrations import FTS_STATEMENTS, LATEST, drop_fts, fts5_available

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One finding: what was checked, how it stands, and what to do about it."""

    name: str
    status: Status
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return asdict(self)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def check_permissions(_: sqlite3.Connection | None, repair: bool) -> list[Check]:
    out: list[Check] = []
    home = paths.home()
    wanted = [(home, 0o700)] + [(p, 0o600) for p in (paths.db_path(), paths.config_path()) if p.exists()]
    wanted += [(Path(str(paths.db_path()) + s), 0o600) for s in ("-wal", "-shm") if Path(str(paths.db_path()) + s).exists()]
    for path, mode in wanted:
        if not path.exists():
            out.append(Check(f"permissions {path.name}", "fail", f"{path} does not exist", "run `agentctx init`"))
            continue
        have = _mode(path)
        if have & ~mode:
            if repair:
                os.chmod(path, mode)
                out.append(Check(f"permissions {path.name}", "ok", f"{path} was {oct(have)}, set to {oct(mode)}"))
            else:
                out.append(Check(f"permissions {path.name}", "warn", f"{path} is {oct(have)}, readable by others",
                                 f"chmod {oct(mode)[2:]} {path} (or `agentctx doctor --repair`)"))
        else:
            out.append(Check(f"permissions {path.name}", "ok", oct(have)))
    return out


def check_integrity(conn: sqlite3.Connection | None, repair: bool) -> list[Check]:
    if conn is None:
        return []
    rows = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    if rows == ["ok"]:
        return [Check("integrity", "ok", "PRAGMA integrity_check: ok")]
    return [Check("integrity", "fail", "; ".join(rows[:5]),
                  "restore from a backup, or export what is readable with `agentctx export` and re-init")]


def check_schema(conn: sqlite3.Connection | None, repair: bool) -> list[Check]:
    if conn is None:
        return []
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == LATEST:
        return [Check("schema", "ok", f"version {version}")]
    return [Check("schema", "fail", f"version {version}, expected {LATEST}", "run any agentctx command to migrate")]


def check_fts(conn: sqlite3.Connection | None, repair: bool) -> list[Check]:
    if conn is None:
        return []
    if not db.has_fts(conn):
        if not fts5_available(conn):
            return [Check("fts", "warn", "this SQLite has no FTS5: search runs degraded (like-search)",
                          "use a Python whose sqlite3 includes FTS5")]
        if repair:
            with db.atomic(conn):
                # Leftover triggers (or vocab table) of a dropped index would make the CREATE statements fail.
                drop_fts(conn)
                for statement in FTS_STATEMENTS:
                    conn.execute(statement)
                conn.execute("INSERT INTO records_fts(records_fts) VALUES ('rebuild')")
            return [Check("fts", "ok", "index was missing; recreated and rebuilt")]
        return [Check("fts", "fail", "the search index is missing: search runs degraded (like-search)",
                      "agentctx doctor --repair")]
    problem = None
    try:
        conn.execute("INSERT INTO records_fts(records_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError as exc:
        problem = str(exc)
    n_records = conn.execute("SELECT count(*) FROM records").fetchone()[0]
    n_index = conn.execute("SELECT count(*) FROM records_fts_docsize").fetchone()[0]
    if problem is None and n_records != n_index:
        problem = f"{n_index} indexed rows for {n_records} records"
    if problem is None:
        return [Check("fts", "ok", f"{n_index} rows indexed, consistent with records")]
    if repair:
        with db.atomic(conn):
            conn.execute("INSERT INTO records_fts(records_fts) VALUES ('rebuild')")
        return [Check("fts", "ok", f"index was inconsistent ({problem}); rebuilt")]
    return [Check("fts", "fail", f"index inconsistent: {problem}", "agentctx doctor --repair")]


def check_wal(conn: sqlite3.Connection | None, repair: bool) -> list[Check]:
    if conn is None:
        return []
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    wal = Path(str(paths.db_path()) + "-wal")
    size = wal.stat().st_size if wal.exists() else 0
    if mode != "wal":
        return [Check("wal", "fail", f"journal_mode is {mode}", "agentctx doctor --repair")]
    if repair:
        busy, frames, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return [Check("wal", "ok", f"checkpointed {done}/{frames} frames" + (" (busy: readers active)" if busy else ""))]
    status: Status = "warn" if size > 64 * 1024 * 1024 else "ok"
    return [Check("wal", status, f"journal_mode=wal, WAL file {size} bytes",
                  "agentctx doctor --repair (checkpoint)" if status == "warn" else None)]


def check_config(_: sqlite3.Connection | None, repair: bool) -> list[Check]:
    path = paths.config_path()
    if not path.exists():
        return [Check("config", "warn", f"{path} missing: defaults apply", "agentctx init")]
    try:
        config._read(path)
    except AgentctxError as exc:
        return [Check("config", "fail", str(exc), f"fix or delete {path}")]
    return [Check("config", "ok", str(path))]


def check_vectors(conn: sqlite3.Connection | None, repair: bool) -> list[Check]:
    """The [vectors] rung: extra installed, model loadable, stored dimensions matching, sqlite-vec or NumPy."""
    if conn is None or not config.load()["embeddings"]:
        return [Check("vectors", "ok", "embeddings off in config: keyword search only")] if conn else []
    from ..store import vectors as store
    from ..retrieval.vectors import Unavailable
    from ..retrieval.vectors.embedder import shared

    stored = store.stats(conn) if store.has_table(conn) else []
    try:
        embedder = shared()
    except Unavailable as exc:
        status: Status = "warn" if stored else "ok"
        detail = f"keyword-only: {exc.reason}" + (f" ({sum(n for *_, n in stored)} stored vectors unused)" if stored else "")
        if status == "ok" and exc.fix:  # an ok line prints no fix: say how to climb the rung, as the other extras do
            detail += f"; for hybrid search: {exc.fix}"
        return [Check("vectors", status, detail, exc.fix)]
    from ..retrieval.vectors.search import load_extension

    loaded, why = load_extension(conn)
    engine = "sqlite-vec" if loaded else f"NumPy ({why})"
    mismatched = [(m, d, n) for m, d, n in stored if m == embedder.name and d != embedder.dims]
    if mismatched:
        return [Check("vectors", "fail", f"{mismatched[0][2]} vectors of {embedder.name} have {mismatched[0][1]} "
                      f"dimensions; the model gives {embedder.dims}", "agentctx embed --rebuild")]
    pending = store.pending_count(conn, embedder.name, embedder.dims)
    detail = f"{embedder.name} ({embedder.dims} dims) loaded; search by {engine}; {pending} records pending"
    return [Check("vectors", "warn" if pending else "ok", detail, "agentctx embed" if pending else None)]


def check_storage(conn: sqlite3.Connection | None, repair: bool) -> list[Check]:
    """Whether the data directory can be written and has room: a store that opens may still refuse every write."""
    from ..store import dbdiag

    path = str(paths.db_path())
    if not paths.home().exists():
        return []
    problem = dbdiag.unwritable(path)
    if problem:
        return [Check("storage", "fail", problem[0], problem[1])]
    free = dbdiag.free_bytes(path)
    if free is not None and free < LOW_SPACE_WARN_BYTES:
        status: Status = "fail" if free < dbdiag.LOW_SPACE_BYTES else "warn"
        return [Check("storage", status, f"only {dbdiag.human(free)} free on the file system holding {paths.home()}",
                      "free some space: writes fail (and hooks queue them) when it runs out")]
    return [Check("storage", "ok", f"writable, {dbdiag.human(free)} free" if free is not None else "writable")]


def _cannot_open(exc: AgentctxError, path: Path) -> Check:
    """The database check when the store cannot be opened: the error's own cause and remedy; corruption only
    when integrity_check (on a read-only connection) confirms it."""
    code = getattr(exc, "code", "")
    if code == "db_corrupt":
        verdict = _integrity_readonly(path)
        if verdict == "ok":
            return Check("database", "fail", f"{exc}; but PRAGMA integrity_check finds the file intact",
                         "retry; if it persists, copy the file aside and run `agentctx doctor --repair`")
        return Check("database", "fail", f"damaged, confirmed by PRAGMA integrity_check: {verdict}",
                     "restore a backup, or move the file aside and run `agentctx init`")
    fixes = {
        "db_locked": "wait for that process to finish or close it (a DB browser holds the lock while open), then retry",
        "db_readonly": str(getattr(exc, "details", {}).get("fix", "make the data directory writable")),
        "db_full": "free space on that file system, then retry",
        "db_io": "check the disk (system log, SMART), then run `agentctx doctor` again",
        "db_unopenable": f"check that {path} and its directory exist and belong to you",
        "db_newer": "upgrade agentctx",
    }
    return Check("database", "fail", str(exc), fixes.get(code, "run `agentctx doctor` again; report it if it persists"))


def _integrity_readonly(path: Path) -> str:
    """integrity_check's verdict on a read-only connection ("ok", the problems found, or why it cannot run)."""
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=1)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"cannot be read as a database ({exc})"
    return "ok" if rows == ["ok"] else "; ".join(rows[:5])


LOW_SPACE_WARN_BYTES = 64 * 1024 * 1024


def check_extras(_: sqlite3.Connection | None, repair: bool) -> list[Check]:
    """[llm] and [mcp-sdk] ([vectors] has its own check): installed, or what is off and the command that adds it."""
    from ..base import extras
    from ..memory.status import llm_off_reason

    from ..extract import quota
    from ..extract.backend import choose

    out = []
    settings = config.load()
    choice = choose(settings)
    paused = quota.paused() if choice.backend == "claude-code" else None
    if extras.installed("llm"):
        off = llm_off_reason(settings)
        state = f"extraction off: {off}" if off else "extraction paused (below)" if paused else "extraction on"
        out.append(Check("llm", "ok", "[llm] installed; " + state))
    elif os.environ.get("ANTHROPIC_API_KEY") and settings["llm"] and choice.backend != "claude-code":
        out.append(Check("llm", "warn", "ANTHROPIC_API_KEY is set but the [llm] extra is not installed: "
                         "nothing is extracted", extras.install_command("llm")))
    elif choice.backend == "claude-code":  # the CLI backend needs no SDK: saying it is missing would mislead
        out.append(Check("llm", "ok", "[llm] not installed: not needed, extraction runs through your Claude Code CLI"))
    else:
        out.append(Check("llm", "ok", f"not installed ({extras.describe('llm')})"))
    if choice.backend == "claude-code":
        out.append(Check("extraction", "warn" if paused else "ok", f"through your Claude Code CLI ({choice.reason})"
                         + (f"; {paused} (logs/extract.log)" if paused else ""), quota.fix() if paused else None))
    elif choice.backend == "api":
        out.append(Check("extraction", "ok", f"through the Messages API ({choice.reason})"))
    elif settings["llm"] and settings["extraction"] != "off":
        # A lower rung, not a fault: capture, search and the hooks work; only extraction from transcripts is off.
        from ..extract.backend import how_to_turn_on

        how = how_to_turn_on(settings, extras.install_command("llm"))
        out.append(Check("extraction", "ok", f"off: {choice.reason}; agentctx keeps only what hooks capture. To turn "
                         f"it on, {how}"))
    else:
        out.append(Check("extraction", "ok", f"off by choice ({choice.reason})"))
    out.append(Check("mcp-sdk", "ok", "[mcp-sdk] installed (`agentctx mcp --sdk` available)" if extras.installed("mcp-sdk")
                     else f"not installed; only `agentctx mcp --sdk` needs it ({extras.install_command('mcp-sdk')})"))
    return out


# Each check gets the open connection (None when the database cannot be opened) and the repair flag.
CHECKS: list[Callable[[sqlite3.Connection | None, bool], list[Check]]] = [
    check_permissions, check_storage, check_integrity, check_schema, check_fts, check_wal, check_config, check_vectors,
    check_extras,
]


def check_claude_code(project_root: Path | None) -> list[Check]:
    """Every registered hook and MCP command resolves and runs from a minimal login environment, or the fix."""
    from ..base import __version__
    from . import wiring
    from .settings import settings_path

    from . import plugin

    files = [settings_path(None)] + ([settings_path(project_root)] if project_root is not None else [])
    state = paths.claude_json()
    probes = wiring.check(files, state)
    found = plugin.installs(project_root)
    active = next((i for i in found if i.enabled), None)
    out = [] if active is None else [check_plugin(active, [w for p in probes for w in p.where])]
    if not probes:
        if active is not None:
            return out
        detail = (f"agentctx is not registered with Claude Code (no hooks in {', '.join(map(str, files))}, no MCP "
                  f"server in {state}")
        if found:
            return [Check("claude-code", "warn", f"{detail}; the Claude Code plugin {found[0].describe()} is installed)",
                          f"claude plugin enable {found[0].id} (or `agentctx init`)")]
        return [Check("claude-code", "warn", detail + ")", "agentctx init")]
    env = f"env -i HOME=… PATH={wiring.login_path()}"
    for p in probes:
        where = p.registrations()
        if not p.ok:
            project = len(files) > 1 and any(str(files[1]) in w for w in p.where)
            again = "agentctx init --project" if project else "agentctx init"
            choice = wiring.choose(shared=project)
            out.append(Check("claude-code", "fail", f"`{p.prefix}` does not run from a login environment ({env}): "
                             f"{p.detail}; {where}",
                             f"run `{again}` again from the installation Claude Code should use: it registers "
                             f"`{' '.join(choice.argv)} hook …` ({choice.reason})"))
        elif p.detail != f"agentctx {__version__}":
            out.append(Check("claude-code", "warn", f"`{p.prefix}` runs {p.detail}, not this agentctx {__version__}; "
                             f"{where}", "run `agentctx init` again with the installation you mean to use"))
        else:
            out.append(Check("claude-code", "ok", f"`{p.prefix}` runs from a login environment ({p.detail}); {where}"))
    return out


def check_plugin(install: "Any", registered: list[str]) -> Check:
    """The enabled agentctx plugin: its launcher finds a Python and runs from a login environment; and whether it
    stands aside for registrations `agentctx init` made (`registered`: where they are)."""
    import shlex

    from . import plugin, wiring

    if registered:
        where = "; ".join(dict.fromkeys(registered))
        return Check("claude-plugin", "warn", f"{install.describe()} stands aside: agentctx is also registered by "
                     f"`agentctx init` ({where}), and those registrations run",
                     f"`agentctx uninstall` to keep only the plugin, or `{plugin.uninstall_hint(install)}` to keep "
                     "only the tool install")
    prefix = f"sh {shlex.quote(install.path + '/bin/agentctx')}"
    ok, detail = wiring.probe(prefix)
    if ok:
        return Check("claude-plugin", "ok", f"{install.describe()}: runs `{prefix}` ({detail})")
    return Check("claude-plugin", "fail", f"{install.describe()}: `{prefix}` does not run from a login environment "
                 f"(env -i HOME=… PATH={wiring.login_path()}): {detail}",
                 "install Python 3.10 or newer with SQLite FTS5 where Claude Code finds it (python3.1x or python3 on "
                 "its PATH), or set AGENTCTX_PYTHON to one in the environment Claude Code starts with")


def check_arrival(conn: sqlite3.Connection | None, repair: bool) -> list[Check]:
    """Per agent: how many action-time deliveries were found in its transcript; a warning when they stopped (the
    agent changed where it puts a hook's context, or stopped reading it: SPEC §4.11)."""
    from ..agents import LABELS
    from ..store import sessions

    if conn is None:
        return []
    out = []  # what the store holds (rows still in the pending ledger count after the next drain)
    for agent, a in sorted(sessions.arrival_by_agent(conn, None).items()):
        label = LABELS.get(agent, agent)
        detail = f"{label}: {a['arrived']} of {a['checked']} action-time deliveries found in its transcript"
        if a["stopped_arriving"]:
            out.append(Check(f"arrival {agent}", "warn", detail + "; none in its last sessions: its deliveries "
                             "stopped arriving", f"agentctx why (and check {label}'s version against vendor-notes)"))
        else:
            out.append(Check(f"arrival {agent}", "ok", detail))
    return out


CHECKS.append(check_arrival)


def run(repair: bool = False, *, project_root: Path | None = None, wiring: bool = True) -> list[Check]:
    """Run every check (with `wiring`, also Claude Code's registered commands); never raises for a broken store."""
    results: list[Check] = []
    conn = None
    path = paths.db_path()
    if not path.exists():
        results.append(Check("database", "fail", f"no database at {path}", "agentctx init"))
    else:
        try:
            conn = db.connect(path)
            conn.execute("SELECT count(*) FROM records").fetchone()
            results.append(Check("database", "ok", str(path)))
        except (AgentctxError, sqlite3.Error) as exc:
            if isinstance(exc, sqlite3.Error):
                exc = db.translate(exc, path)
            results.append(_cannot_open(exc, path))
            conn = None
    try:
        for check in CHECKS:
            try:
                results.extend(check(conn, repair))
            except sqlite3.Error as exc:
                results.append(Check(check.__name__.replace("check_", ""), "fail", str(exc), "agentctx doctor --repair"))
    finally:
        if conn is not None:
            conn.close()
    if wiring:
        results.extend(check_claude_code(project_root))
    return results
