"""Administration commands: init, status, reset, config, doctor, --version; their output and every error path."""

from __future__ import annotations

import json
import sqlite3
import stat

import pytest

import agentctx
from agentctx.base import config
from agentctx.store import db
from agentctx.base import paths
from agentctx.base.models import NewRecord
from agentctx.store import records, sessions

from .conftest import make_project


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def add(in_run, title="Use SQLite", type_="decision", *extra):
    result = in_run("record", "--type", type_, "--title", title, "--body", "Body of " + title, *extra)
    assert result.rc == 0, result.err
    return result.out.strip()


# --- global options ----------------------------------------------------------------------------------------------------

def test_version(run):
    result = run("--version")
    assert result.rc == 0 and result.out.strip() == f"agentctx {agentctx.__version__}"


def test_help(run):
    result = run("--help")
    assert result.rc == 0 and "record" in result.out and "doctor" in result.out


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["--nope"], ["-C"], ["status", "extra"]])
def test_usage_errors_are_one_line_and_64(run, argv):
    assert run(*argv).rc == 64


# --- init ----------------------------------------------------------------------------------------------------------------

def test_init_creates_a_private_store(run, proj_p):
    result = run("-C", proj_p, "init")
    assert result.rc == 0, result.err
    assert mode(paths.home()) == 0o700
    assert mode(paths.db_path()) == 0o600
    assert mode(paths.config_path()) == 0o600
    assert config.load()["reinforceThreshold"] == 3
    again = run("-C", proj_p, "init", "--json")
    assert again.rc == 0
    assert json.loads(again.out)["database"] == str(paths.db_path())


def test_init_honours_agentctx_home(run, proj_p, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTCTX_HOME", str(tmp_path / "custom-home"))
    assert run("-C", proj_p, "init").rc == 0
    assert (tmp_path / "custom-home" / "agentctx.db").exists()


def test_init_where_a_file_blocks_the_data_dir(run, proj_p, tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    monkeypatch.setenv("AGENTCTX_HOME", str(blocker))
    result = run("-C", proj_p, "init")
    assert result.rc == 1 and str(blocker) in result.err


# --- status ----------------------------------------------------------------------------------------------------------------

STATUS_KEYS = {"project", "database", "records", "records_total", "global_records", "sessions", "tokens_injected",
               "extraction_cost_usd", "last_session_at", "injections", "recent_injections", "retrieval", "llm"}


def test_status_json_keys_and_counts(in_p, in_q, proj_p):
    add(in_p)
    add(in_p, "Indent", "convention")
    add(in_p, "Terse", "preference", "--scope", "global")
    add(in_q, "Q only")
    data = json.loads(in_p("status", "--json").out)
    assert STATUS_KEYS <= set(data)
    assert data["records"]["decision"] == 1 and data["records"]["convention"] == 1
    assert set(data["records"]) == {"decision", "convention", "preference", "discovery", "bugfix", "handover", "profile"}
    assert data["records_total"] == 2 and data["global_records"] == 1
    assert data["project"]["name"] == "app-p" and data["project"]["remote"] == "github.com/org/appp"
    assert data["retrieval"] == "fts5" and data["llm"] is False
    assert data["sessions"] == 0 and data["tokens_injected"] == 0


def test_status_counts_only_what_the_project_can_see(in_p):
    add(in_p)
    conn = db.connect()
    # The API refuses such a row (no project could see it); another tool writing the file directly might not.
    conn.execute("INSERT INTO records (id, project_id, type, title, body, scope, valid_from, recorded_at, source) "
                 "VALUES ('01HIDDEN00000000000000000X', '_global', 'decision', 'Hidden', 'x', 'project', "
                 "'2026-01-01', '2026-01-01', 'import')")
    conn.close()
    data = json.loads(in_p("status", "--json").out)
    assert data["records_total"] == 1 and data["global_records"] == 0


def test_status_reports_sessions_tokens_and_cost(in_p):
    rid = add(in_p)
    pid = json.loads(in_p("status", "--json").out)["project"]["id"]
    conn = db.connect()
    sessions.log_injection(conn, session_id="s1", project_id=pid, event="SessionStart", prompt_hash=None,
                           record_ids=[rid], scores=[1.0], tokens=1200)
    sessions.log_injection(conn, session_id="s1", project_id=pid, event="UserPromptSubmit", prompt_hash="h",
                           record_ids=[rid], scores=[0.5], tokens=800)
    sessions.add_cost(conn, "s1", pid, 0.027)
    conn.close()
    text = in_p("status").out
    assert "decision     1" in text
    assert "2000 tokens injected" in text
    assert "$0.0270" in text
    data = json.loads(in_p("status", "--json").out)
    assert data["sessions"] == 1 and data["injections"] == 2 and len(data["recent_injections"]) == 2


def test_status_superseded_records_are_not_counted(in_p):
    a = add(in_p)
    in_p("supersede", a, "--body", "new")
    assert json.loads(in_p("status", "--json").out)["records"]["decision"] == 1


def test_status_without_a_store(run, proj_p):
    assert run("-C", proj_p, "status").rc == 66


# --- reset -------------------------------------------------------------------------------------------------------------------

def count(where="1"):
    conn = sqlite3.connect(paths.db_path())
    try:
        return conn.execute(f"SELECT count(*) FROM records WHERE {where}").fetchone()[0]
    finally:
        conn.close()


def test_reset_asks_and_refuses_without_confirmation(in_p):
    add(in_p)
    result = in_p("reset")
    assert result.rc == 64 and "--force" in result.err
    assert count() == 1


def test_reset_declined_at_the_prompt(in_p, monkeypatch):
    add(in_p)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert in_p("reset").rc == 64
    assert count() == 1


def test_reset_confirmed_deletes_only_this_project(in_p, in_q, monkeypatch):
    add(in_p)
    add(in_p, "Second")
    add(in_p, "Shared", "preference", "--scope", "global")
    add(in_q, "Q keeps this")
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: "yes")
    result = in_p("reset")
    assert result.rc == 0 and "removed 2 records" in result.out
    assert count() == 2
    assert json.loads(in_q("search", "keeps", "--json").out)[0]["title"] == "Q keeps this"
    assert count("project_id = '_global'") == 1


def test_reset_force_json(in_p):
    add(in_p)
    data = json.loads(in_p("reset", "--force", "--json").out)
    assert data["removed"] == 1
    assert count() == 0


def test_reset_without_a_store(run, proj_p):
    assert run("-C", proj_p, "reset", "--force").rc == 66


# --- config ------------------------------------------------------------------------------------------------------------------

def test_config_set_and_get(run):
    assert run("config", "set", "reinforceThreshold", "5").out.strip() == "reinforceThreshold = 5"
    assert run("config", "get", "reinforceThreshold").out.strip() == "5"
    assert run("config", "set", "llm", "off").rc == 0
    assert run("config", "get", "llm").out.strip() == "false"
    assert json.loads(run("config", "get", "llm", "--json").out) is False
    assert run("config", "get", "embeddingModelPath").out.strip() == ""


def test_config_lists_every_key(run):
    text = run("config").out
    assert all(f"{key} = " in text for key in config.KEYS)
    assert set(json.loads(run("config", "get", "--json").out)) == set(config.KEYS)


@pytest.mark.parametrize("argv, status, fragment", [
    (["config", "get", "nope"], 65, "unknown config key"),
    (["config", "set", "nope", "1"], 65, "unknown config key"),
    (["config", "set", "reinforceThreshold", "zero"], 65, "reinforceThreshold"),
    (["config", "set", "reinforceThreshold", "0"], 65, ">= 1"),
    (["config", "set", "llm", "maybe"], 65, "true or false"),
    (["config", "set", "modelTier", "best"], 65, "default, quality"),
    (["config", "set", "llm"], 64, "KEY and VALUE"),
    (["config", "set"], 64, "KEY and VALUE"),
    (["config", "get", "llm", "extra"], 64, "at most one KEY"),
    (["config", "delete", "llm"], 64, "invalid choice"),
])
def test_config_errors(run, argv, status, fragment):
    result = run(*argv)
    assert result.rc == status
    assert fragment in result.err
    assert not paths.config_path().exists()


def test_config_set_on_a_corrupt_file(run):
    paths.ensure_private_dir(paths.home())
    paths.config_path().write_text("{broken")
    result = run("config", "set", "llm", "true")
    assert result.rc == 65 and "not valid JSON" in result.err
    assert paths.config_path().read_text() == "{broken"
    assert run("config", "get", "llm").out.strip() == "true"  # reads stay lenient


# --- doctor --------------------------------------------------------------------------------------------------------------------

def checks(result):
    return {c["name"]: c for c in json.loads(result.out)}


def test_doctor_on_a_healthy_store(in_p):
    add(in_p)
    result = in_p("doctor", "--json")
    assert result.rc == 0
    found = checks(result)
    assert {"database", "integrity", "schema", "fts", "wal", "config"} <= set(found)
    # The store fixture does not wire Claude Code: that check warns (tests/claude/test_wiring.py covers it).
    assert all(c["status"] == "ok" for name, c in found.items() if name != "claude-code"), found
    text = in_p("doctor")
    assert text.rc == 0 and "[ ok ] integrity" in text.out


def test_doctor_finds_and_repairs_a_desynced_index(in_p):
    add(in_p, "Alpha")
    add(in_p, "Beta")
    conn = db.connect()
    rowid = conn.execute("SELECT rowid FROM records LIMIT 1").fetchone()[0]
    conn.execute("DELETE FROM records_fts WHERE rowid = ?", (rowid,))
    conn.close()
    broken = in_p("doctor", "--json", errors_on_stderr=False)
    assert broken.rc == 1
    fts = checks(broken)["fts"]
    assert fts["status"] == "fail" and "--repair" in fts["fix"]
    repaired = in_p("doctor", "--repair", "--json")
    assert repaired.rc == 0 and checks(repaired)["fts"]["status"] == "ok"
    assert in_p("doctor").rc == 0
    assert {h["title"] for h in json.loads(in_p("search", "alpha beta", "--json").out)} == {"Alpha", "Beta"}


def test_doctor_recreates_a_missing_index(in_p):
    add(in_p, "Gamma")
    conn = db.connect()
    for trigger in ("records_ai", "records_ad", "records_au"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE records_fts_vocab")
    conn.execute("DROP TABLE records_fts")
    conn.close()
    assert checks(in_p("doctor", "--json", errors_on_stderr=False))["fts"]["status"] == "fail"
    assert in_p("doctor", "--repair").rc == 0
    hits = json.loads(in_p("search", "gamma", "--json").out)
    assert [h["title"] for h in hits] == ["Gamma"] and "degraded" not in hits[0]


def test_doctor_repairs_an_index_dropped_without_its_triggers(in_p):
    add(in_p, "Delta")
    conn = db.connect()
    conn.execute("DROP TABLE records_fts_vocab")
    conn.execute("DROP TABLE records_fts")
    conn.close()
    assert in_p("doctor", "--repair", errors_on_stderr=False).rc == 0
    assert in_p("doctor").rc == 0
    assert add(in_p, "Epsilon")  # writes work again (the triggers point at a real table)


def test_doctor_reports_loose_permissions_and_repairs_them(in_p):
    add(in_p)
    paths.db_path().chmod(0o644)
    paths.home().chmod(0o755)
    found = checks(in_p("doctor", "--json"))
    assert found["permissions agentctx.db"]["status"] == "warn"
    assert found[f"permissions {paths.home().name}"]["status"] == "warn"
    assert in_p("doctor", "--repair").rc == 0
    assert mode(paths.db_path()) == 0o600 and mode(paths.home()) == 0o700


def test_doctor_without_a_store(run, proj_p):
    result = run("-C", proj_p, "doctor", "--json", errors_on_stderr=False)
    assert result.rc == 1
    assert "agentctx init" in checks(result)["database"]["fix"]


def test_doctor_on_a_corrupt_database(in_p):
    paths.db_path().write_bytes(b"garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        paths.db_path().with_name(paths.db_path().name + suffix).unlink(missing_ok=True)
    result = in_p("doctor", errors_on_stderr=False)
    assert result.rc == 1 and "[fail] database" in result.out


def test_doctor_reports_a_corrupt_config(in_p):
    paths.config_path().write_text("{nope")
    result = in_p("doctor", "--json", errors_on_stderr=False)
    assert result.rc == 1 and checks(result)["config"]["status"] == "fail"


def test_doctor_checkpoints_the_wal_on_repair(in_p):
    for i in range(20):
        add(in_p, f"Record {i}")
    result = in_p("doctor", "--repair", "--json")
    assert result.rc == 0 and "checkpointed" in checks(result)["wal"]["detail"]


def test_project_from_the_working_directory(run, store, tmp_path, monkeypatch):
    repo = make_project(tmp_path / "cwd-proj", "git@github.com:Org/Cwd.git")
    monkeypatch.chdir(repo)
    add(run, "From cwd")
    assert json.loads(run("status", "--json").out)["project"]["name"] == "cwd-proj"
