"""Schema migrations: appended, numbered, never edited; each runs in one transaction with its record row."""

from __future__ import annotations

from collections import namedtuple
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
import sqlite3


# version: int, name: str, apply: Callable[[sqlite3.Connection], None]
Migration = namedtuple("Migration", "version name apply")


def _run(conn: sqlite3.Connection, statements: tuple[str, ...]) -> None:
    for statement in statements:
        conn.execute(statement)


def fts5_available(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite was compiled with FTS5 (rung 4 of the ladder when not)."""
    try:
        conn.execute("CREATE VIRTUAL TABLE temp._fts5_probe USING fts5(x)")
        conn.execute("DROP TABLE temp._fts5_probe")
        return True
    except sqlite3.OperationalError:
        return False


def m001_initial(conn: sqlite3.Connection) -> None:
    _run(conn, (
        # SPEC §3.1 records, column for column, so other tools can read the file.
        """CREATE TABLE records (
            id              TEXT PRIMARY KEY,          -- ULID: sortable by creation time
            project_id      TEXT NOT NULL,             -- sha256 of the normalised remote, or '_global'
            type            TEXT NOT NULL,             -- one of the seven record types
            title           TEXT NOT NULL,
            body            TEXT NOT NULL,
            scope           TEXT DEFAULT 'project',    -- project | global
            pinned          INTEGER DEFAULT 0,
            confidence      TEXT DEFAULT 'inferred',   -- explicit | inferred | reinforced
            reinforce_count INTEGER DEFAULT 0,
            valid_from      TEXT NOT NULL,             -- when the fact became true (ISO 8601)
            recorded_at     TEXT NOT NULL,             -- when it was stored
            superseded_at   TEXT,                      -- NULL = current
            superseded_by   TEXT REFERENCES records(id),
            access_count    INTEGER DEFAULT 0,         -- derived
            last_accessed   TEXT,                      -- derived
            score           REAL DEFAULT 1.0,          -- derived: decay by type
            claudemd_drift_score REAL DEFAULT 0.0,     -- derived
            source          TEXT NOT NULL,             -- provenance
            session_id      TEXT,
            pending_embedding INTEGER DEFAULT 1
        )""",
        "CREATE INDEX records_current ON records(project_id, type, recorded_at) WHERE superseded_at IS NULL",
        "CREATE INDEX records_session ON records(session_id, id)",
        "CREATE INDEX records_pinned ON records(project_id) WHERE pinned = 1 AND superseded_at IS NULL",
        # Node names are unique per project and kind: branch "main" exists in every repository.
        """CREATE TABLE nodes (
            id TEXT PRIMARY KEY,
            project_id TEXT,
            kind TEXT,                                 -- file | symbol | package | module | branch
            name TEXT,
            UNIQUE (project_id, kind, name)
        )""",
        """CREATE TABLE edges (
            id TEXT PRIMARY KEY,
            from_id TEXT NOT NULL,
            to_id TEXT NOT NULL,
            rel_type TEXT NOT NULL,                    -- supersedes | applies_to | observed_in | derives_from | scoped_to
            weight REAL DEFAULT 1.0,
            UNIQUE (from_id, to_id, rel_type)
        )""",
        "CREATE INDEX edges_from ON edges(from_id)",
        "CREATE INDEX edges_to ON edges(to_id)",
        """CREATE TABLE record_entities (
            record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            entity_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
            PRIMARY KEY (record_id, entity_id)
        )""",
        "CREATE INDEX record_entities_entity ON record_entities(entity_id)",
        """CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            project_id TEXT,
            started_at TEXT,
            ended_at TEXT,
            tokens_injected INTEGER DEFAULT 0,
            extraction_cost_usd REAL DEFAULT 0
        )""",
        # The injection ledger: what was injected, why, and what it cost (`agentctx why`).
        """CREATE TABLE injections (
            id INTEGER PRIMARY KEY,
            session_id TEXT,
            project_id TEXT,
            event TEXT NOT NULL,                       -- SessionStart | UserPromptSubmit
            prompt_hash TEXT,
            record_ids TEXT NOT NULL,                  -- JSON array
            scores TEXT NOT NULL,                      -- JSON array, parallel to record_ids
            tokens INTEGER NOT NULL,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX injections_session ON injections(session_id)",
        "CREATE INDEX injections_project ON injections(project_id, created_at)",
    ))
    if fts5_available(conn):
        _run(conn, _FTS_V1)


# Migration 1's index (title and body), as it was: a migration never changes. FTS_STATEMENTS is today's.
_FTS_V1: tuple[str, ...] = (
    """CREATE VIRTUAL TABLE records_fts USING fts5(
        title, body, content=records, content_rowid=rowid, tokenize='porter unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER records_ai AFTER INSERT ON records BEGIN
        INSERT INTO records_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
    END""",
    """CREATE TRIGGER records_ad AFTER DELETE ON records BEGIN
        INSERT INTO records_fts(records_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
    END""",
    """CREATE TRIGGER records_au AFTER UPDATE OF title, body ON records BEGIN
        INSERT INTO records_fts(records_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
        INSERT INTO records_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
    END""",
    "CREATE VIRTUAL TABLE records_fts_vocab USING fts5vocab(records_fts, 'row')",
)


# External-content FTS5 over title, body and how the record will be asked (questions, aliases: one per line), stemmed;
# triggers keep it in step with `records`. Each column has its own weight in search (agentctx/retrieval/search.py).
FTS_STATEMENTS: tuple[str, ...] = (
    """CREATE VIRTUAL TABLE records_fts USING fts5(
        title, body, questions, aliases, content=records, content_rowid=rowid,
        tokenize='porter unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER records_ai AFTER INSERT ON records BEGIN
        INSERT INTO records_fts(rowid, title, body, questions, aliases)
        VALUES (new.rowid, new.title, new.body, new.questions, new.aliases);
    END""",
    """CREATE TRIGGER records_ad AFTER DELETE ON records BEGIN
        INSERT INTO records_fts(records_fts, rowid, title, body, questions, aliases)
        VALUES ('delete', old.rowid, old.title, old.body, old.questions, old.aliases);
    END""",
    """CREATE TRIGGER records_au AFTER UPDATE OF title, body, questions, aliases ON records BEGIN
        INSERT INTO records_fts(records_fts, rowid, title, body, questions, aliases)
        VALUES ('delete', old.rowid, old.title, old.body, old.questions, old.aliases);
        INSERT INTO records_fts(rowid, title, body, questions, aliases)
        VALUES (new.rowid, new.title, new.body, new.questions, new.aliases);
    END""",
    "CREATE VIRTUAL TABLE records_fts_vocab USING fts5vocab(records_fts, 'row')",
)
FTS_OBJECTS = ("TRIGGER records_ai", "TRIGGER records_ad", "TRIGGER records_au", "TABLE records_fts_vocab",
               "TABLE records_fts")


def drop_fts(conn: sqlite3.Connection) -> None:
    """Drop the index, its vocabulary and its triggers (before it is created again)."""
    for kind_name in FTS_OBJECTS:
        conn.execute(f"DROP {kind_name.replace(' ', ' IF EXISTS ', 1)}")


def m002_embeddings(conn: sqlite3.Connection) -> None:
    # Derived and rebuildable (SPEC §8): plain little-endian float32 BLOBs, readable without any extension.
    # Keyed by model too: two 384-dimension models live in different spaces, so a model change re-embeds.
    _run(conn, (
        """CREATE TABLE embeddings (
            record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            model     TEXT NOT NULL,
            dims      INTEGER NOT NULL,
            vector    BLOB NOT NULL,
            PRIMARY KEY (record_id, model)
        )""",
        "CREATE INDEX records_pending_embedding ON records(id) WHERE pending_embedding = 1",
    ))


def m003_title_index(conn: sqlite3.Connection) -> None:
    # Capture and keyed supersession look up current records by title (a bugfix stub per failing command,
    # profile records per key): without this index each lookup scanned every current record of the type.
    conn.execute("CREATE INDEX IF NOT EXISTS records_title ON records(project_id, type, title) "
                 "WHERE superseded_at IS NULL")


def m004_term_stats(conn: sqlite3.Connection) -> None:
    # Document frequencies of the index's common terms (derived, rebuilt by consolidation). Counting a common
    # term's matches costs a query milliseconds per term on a large store; looking it up here costs microseconds.
    conn.execute("CREATE TABLE IF NOT EXISTS term_stats (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID")


def m005_team_sync(conn: sqlite3.Connection) -> None:
    # Team and profile round trips (SPEC §3.8): what the store and a Markdown file last agreed on, per entry, so an
    # import tells a hand edit from a local change, both from a conflict, and an old checkout from either.
    _run(conn, (
        """CREATE TABLE team_sync (
            project_id  TEXT NOT NULL,              -- the namespace ('_global' for the developer profile)
            key         TEXT NOT NULL,              -- the entry's id in the file (stable across machines)
            record_id   TEXT,                       -- the local record at the last sync (its chain head is followed)
            file_hash   TEXT NOT NULL,              -- the entry's content hash in the file at the last sync
            store_hash  TEXT NOT NULL,              -- the record's content hash (as exported) at the last sync
            removed     INTEGER NOT NULL DEFAULT 0, -- 1: gone from the file at the last import: proposed for retirement
            synced_at   TEXT NOT NULL,
            PRIMARY KEY (project_id, key)
        ) WITHOUT ROWID""",
        # Every content an entry ever had at a sync: an older copy (another branch, an old checkout) is not an edit.
        """CREATE TABLE team_versions (
            project_id TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL,
            PRIMARY KEY (project_id, key, hash)
        ) WITHOUT ROWID""",
        """CREATE TABLE team_files (
            project_id  TEXT NOT NULL,              -- as in team_sync
            path        TEXT NOT NULL,              -- the file last imported or exported
            sha256      TEXT NOT NULL,              -- its bytes' hash then
            synced_at   TEXT NOT NULL,
            PRIMARY KEY (project_id, path)
        ) WITHOUT ROWID""",
        # Why a record superseded its predecessor, when that is not part of its body (a hand edit of the team file
        # must come back byte for byte on the next export, so its rationale cannot be appended to the body).
        """CREATE TABLE record_rationales (
            record_id TEXT PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
            rationale TEXT NOT NULL
        )""",
    ))


def m006_evidence(conn: sqlite3.Connection) -> None:
    # The developer's own words an extracted record was grounded in (SPEC §6.4), kept for provenance: the dashboard
    # quotes it. Stored, not derived: the transcript it came from may be gone.
    conn.execute("""CREATE TABLE IF NOT EXISTS record_evidence (
        record_id TEXT PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
        quote     TEXT NOT NULL
    )""")


def m007_ordered_indexes(conn: sqlite3.Connection) -> None:
    # The digest is rebuilt after every write (SPEC §4.3) and reads "newest current records" and "best established
    # decisions": without indexes in those orders each read sorted every current record of the project (~0.3 s per
    # write at 100K records). Each index ends in the query's whole ORDER BY, so a LIMIT stops early.
    _run(conn, (
        "DROP INDEX IF EXISTS records_current",
        "CREATE INDEX records_current ON records(project_id, type, recorded_at, id) WHERE superseded_at IS NULL",
        "CREATE INDEX records_recent ON records(project_id, recorded_at, id) WHERE superseded_at IS NULL",
        "CREATE INDEX records_ranked ON records(project_id, type, pinned, score, recorded_at, id) "
        "WHERE superseded_at IS NULL AND confidence != 'inferred'",
    ))


def m008_extraction_calls(conn: sqlite3.Connection) -> None:
    # Every extraction run that called a model, whichever backend: what it cost in calls and tokens. The Claude Code
    # backend spends the user's own subscription quota, so its calls per hour are bounded and shown per day.
    _run(conn, (
        """CREATE TABLE extraction_calls (
            at            TEXT NOT NULL,
            backend       TEXT NOT NULL,
            project_id    TEXT,
            session_id    TEXT,
            calls         INTEGER NOT NULL,
            input_tokens  INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd      REAL NOT NULL DEFAULT 0,
            outcome       TEXT NOT NULL
        )""",
        "CREATE INDEX extraction_calls_at ON extraction_calls(backend, at)",
    ))


def m009_team_confidence(conn: sqlite3.Connection) -> None:
    # Records a teammate's team file brought in carry their own confidence, below what this user typed (docs/team.md);
    # earlier imports stored them as explicit. The developer's own profile file (`_global`) stays explicit.
    conn.execute("UPDATE records SET confidence = 'team' WHERE source = 'team_import' AND confidence = 'explicit' "
                 "AND project_id != '_global'")


def m010_asked_as(conn: sqlite3.Connection) -> None:
    # How a record will be asked (issue 25, SPEC §3.1): the questions it answers and other names for what it is
    # about, one per line, written by the extraction model, the caller or the expansion pass. Searchable as their
    # own index columns, so the index is rebuilt with them (from `records`: an external-content index holds no text).
    _run(conn, (
        "ALTER TABLE records ADD COLUMN questions TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE records ADD COLUMN aliases TEXT NOT NULL DEFAULT ''",
    ))
    has_index = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'records_fts'").fetchone()
    if has_index and fts5_available(conn):
        drop_fts(conn)
        _run(conn, FTS_STATEMENTS)
        conn.execute("INSERT INTO records_fts(records_fts) VALUES ('rebuild')")
    # Term statistics count documents per term across all columns: unchanged until words are added, kept as they are.


def m011_prompts(conn: sqlite3.Connection) -> None:
    # What the user asked, per prompt (issue 26 item 14): the dashboard's sessions show it next to what was injected
    # for it. Stored scrubbed and without `<private>` spans (memory.pending cleans it on the way in), clipped to
    # store.sessions.PROMPT_CHARS; `chars` is the prompt's whole length. `prompt_hash` is the key the injection
    # ledger and the decisions log already carry. (Numbered 11: migration 10 is another branch's; no gap at merge.)
    _run(conn, (
        """CREATE TABLE prompts (
            id          INTEGER PRIMARY KEY,
            session_id  TEXT,
            project_id  TEXT,
            prompt_hash TEXT,
            text        TEXT NOT NULL,
            chars       INTEGER NOT NULL,
            created_at  TEXT NOT NULL
        )""",
        "CREATE INDEX prompts_session ON prompts(session_id, id)",
        "CREATE INDEX prompts_project ON prompts(project_id)",
    ))


def m012_expansion(conn: sqlite3.Connection) -> None:
    # The expansion pass (issue 25) writes questions and aliases for records that came without them. Each record it
    # tried is remembered with a fingerprint of the text it saw, so a failure is retried later, a few times at most,
    # and an edited record is tried again; `last_at` is also what bounds the records sent per day. Its model calls go
    # in `extraction_calls` beside extraction's, told apart by `purpose` (the CLI quota counts both).
    _run(conn, (
        """CREATE TABLE expansion_attempts (
            record_id TEXT PRIMARY KEY,
            stamp     TEXT NOT NULL,
            attempts  INTEGER NOT NULL,
            last_at   TEXT NOT NULL,
            retry_at  TEXT,
            outcome   TEXT NOT NULL
        )""",
        "CREATE INDEX expansion_attempts_at ON expansion_attempts(last_at)",
        "ALTER TABLE extraction_calls ADD COLUMN purpose TEXT NOT NULL DEFAULT 'extract'",
    ))


def m013_session_agent(conn: sqlite3.Connection) -> None:
    # Which coding agent a session ran in (issue 28): claude, codex or gemini, from the hook that saw it first. Every
    # session recorded before this version was Claude Code's: it was the only agent agentctx served.
    _run(conn, (
        "ALTER TABLE sessions ADD COLUMN agent TEXT",
        "UPDATE sessions SET agent = 'claude'",
    ))


def m014_anchors(conn: sqlite3.Connection) -> None:
    # What a record governs (issue 33, SPEC §3.1): `kind:value` lines (paths and globs, symbols, commands, tools) the
    # pre-action hook matches against a tool call's target, and `guard`, how it enforces a record the user made a
    # guard. Index data like questions and aliases: not searched as text, never injected.
    _run(conn, (
        "ALTER TABLE records ADD COLUMN anchors TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE records ADD COLUMN guard TEXT NOT NULL DEFAULT ''",
    ))


def m015_trust(conn: sqlite3.Connection) -> None:
    # Memories checked against the code, expired when unused, reviewed before they count (issue 35, SPEC §3.9).
    # `code_fingerprints`: what a record was about when consolidation first saw it (each file it names: the blob,
    # a bottom-k sketch of its distinct lines, or of the lines/symbol it names, and the commit rename detection starts
    # from). `record_marks`: one row per record and kind: `unverified` (its code changed; `reason` says how),
    # `review` (an inferred record waiting for the user; searchable, never injected), `expired` (retired unused;
    # restorable). Both are derived from stored records and the repository, and go with their record.
    _run(conn, (
        """CREATE TABLE code_fingerprints (
            record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            path      TEXT NOT NULL,
            blob      TEXT NOT NULL,
            sketch    TEXT NOT NULL,
            lines     TEXT NOT NULL DEFAULT '',
            symbol    TEXT NOT NULL DEFAULT '',
            commit_id TEXT NOT NULL DEFAULT '',
            made_at   TEXT NOT NULL,
            PRIMARY KEY (record_id, path)
        ) WITHOUT ROWID""",
        "CREATE INDEX code_fingerprints_path ON code_fingerprints(path)",
        """CREATE TABLE record_marks (
            record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            kind      TEXT NOT NULL,
            reason    TEXT NOT NULL,
            at        TEXT NOT NULL,
            PRIMARY KEY (record_id, kind)
        ) WITHOUT ROWID""",
        "CREATE INDEX record_marks_kind ON record_marks(kind, record_id)",
    ))


def m016_agent_memory(conn: sqlite3.Connection) -> None:
    # Where a record came from in an agent's own memory (issue 36): one row per fact line the continuous reader
    # (outside.agentmem) saw, so a rerun imports nothing twice, an edit supersedes and a removed line retires.
    # `agent_memory_skip`: derived, rewritten by consolidation: records an agent already loads itself (its own memory
    # is on and holds them), which SessionStart's digest and the prompt hook leave out of that agent's sessions.
    _run(conn, (
        """CREATE TABLE agent_memory (
            id          INTEGER PRIMARY KEY,
            project_id  TEXT NOT NULL,             -- the record's namespace ('_global' for personal facts)
            record_id   TEXT NOT NULL,
            agent       TEXT NOT NULL,             -- claude | codex | gemini
            path        TEXT NOT NULL,             -- the agent's file
            line        INTEGER NOT NULL,
            hash        TEXT NOT NULL,             -- the fact's words (outside.memfiles.key)
            loaded      INTEGER NOT NULL DEFAULT 0,-- the agent loads this line into every session
            first_seen  TEXT NOT NULL,
            last_seen   TEXT NOT NULL,
            gone_at     TEXT                       -- the line left the file (its record retired or superseded)
        )""",
        "CREATE INDEX agent_memory_file ON agent_memory(project_id, agent, path)",
        "CREATE INDEX agent_memory_record ON agent_memory(record_id)",
        """CREATE TABLE agent_memory_skip (
            project_id  TEXT NOT NULL,
            agent       TEXT NOT NULL,
            record_id   TEXT NOT NULL,
            why         TEXT NOT NULL,             -- 'own': its memory line; 'same': says a loaded line; 'file': its
                                                   -- instruction file says it
            PRIMARY KEY (project_id, agent, record_id)
        )""",
    ))


def m017_rule_files(conn: sqlite3.Connection) -> None:
    # The repository's own rule files for agents read as records (issue 36, SPEC §4.12): which record each file
    # became, and what the file was when it was read (size and mtime to skip an unchanged file without reading it,
    # the hash of its bytes to know an edit). The file stays the source of truth: an edit supersedes, a removal
    # retires.
    _run(conn, (
        """CREATE TABLE rule_files (
            project_id TEXT NOT NULL,
            path       TEXT NOT NULL,
            record_id  TEXT,
            sha        TEXT NOT NULL,
            size       INTEGER NOT NULL,
            mtime_ns   INTEGER NOT NULL,
            format     TEXT NOT NULL,
            mode       TEXT NOT NULL,
            synced_at  TEXT NOT NULL,
            PRIMARY KEY (project_id, path)
        )""",
    ))


def m018_guard_changes(conn: sqlite3.Connection) -> None:
    # Who made, changed, lifted or carried a record's guard, and when (issue 41): a guard is changed in place (it is
    # not the fact the record states), so its story is kept here for `history`. `by` is the surface (`cli`,
    # `dashboard`) or, for a guard kept on a new head, the writer that superseded the guarded record.
    _run(conn, (
        """CREATE TABLE guard_changes (
            id        INTEGER PRIMARY KEY,
            record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            at        TEXT NOT NULL,
            by        TEXT NOT NULL,
            guard     TEXT NOT NULL,
            note      TEXT NOT NULL DEFAULT ''
        )""",
        "CREATE INDEX guard_changes_record ON guard_changes(record_id, id)",
    ))


def m019_before_marks(conn: sqlite3.Connection) -> None:
    # Records the user marked "before" (issue 43, SPEC §4.11): an edit they govern is stopped once in a session
    # where the record has not reached the model yet. `record_id` '*' marks every anchored record of the project.
    # A mark on a superseded record applies to its current head (store/before.py follows the chain).
    _run(conn, (
        """CREATE TABLE before_marks (
            project_id TEXT NOT NULL,
            record_id  TEXT NOT NULL,
            marked_at  TEXT NOT NULL,
            PRIMARY KEY (project_id, record_id)
        )""",
    ))


def m020_project_roots(conn: sqlite3.Connection) -> None:
    # Which repository each project id was seen as (issue 42, item 3): a changed origin URL (a fork, a rename, https
    # to ssh through another host name) gives a new project id; the checkout's root, its first commits and the ids
    # its other remotes give let `status`, `doctor` and SessionStart say which other project is this repository, and
    # `agentctx project move` join them. Written by consolidation, status and doctor (never a hook).
    _run(conn, (
        """CREATE TABLE project_roots (
            project_id   TEXT NOT NULL,
            root_dir     TEXT NOT NULL,
            remote       TEXT,                   -- normalised, as the id was made from it (None: no origin)
            root_commits TEXT NOT NULL DEFAULT '', -- space-separated: `git rev-list --max-parents=0 HEAD`
            also         TEXT NOT NULL DEFAULT '', -- space-separated ids its other remotes or last fetch would give
            seen_at      TEXT NOT NULL,
            PRIMARY KEY (project_id, root_dir)
        ) WITHOUT ROWID""",
    ))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial", m001_initial),
    Migration(2, "embeddings", m002_embeddings),
    Migration(3, "title_index", m003_title_index),
    Migration(4, "term_stats", m004_term_stats),
    Migration(5, "team_sync", m005_team_sync),
    Migration(6, "evidence", m006_evidence),
    Migration(7, "ordered_indexes", m007_ordered_indexes),
    Migration(8, "extraction_calls", m008_extraction_calls),
    Migration(9, "team_confidence", m009_team_confidence),
    Migration(10, "asked_as", m010_asked_as),
    Migration(11, "prompts", m011_prompts),
    Migration(12, "expansion", m012_expansion),
    Migration(13, "session_agent", m013_session_agent),
    Migration(14, "anchors", m014_anchors),
    Migration(15, "trust", m015_trust),
    Migration(16, "agent_memory", m016_agent_memory),
    Migration(17, "rule_files", m017_rule_files),
    Migration(18, "guard_changes", m018_guard_changes),
    Migration(19, "before_marks", m019_before_marks),
    Migration(20, "project_roots", m020_project_roots),
)

LATEST = MIGRATIONS[-1].version
