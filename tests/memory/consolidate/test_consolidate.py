from __future__ import annotations

from datetime import datetime, timedelta, timezone

from agentctx.base import config
from agentctx.memory import consolidate, digest, profile
from agentctx.cli import main
from agentctx.base.project import detect
from agentctx.store import records


def test_reinforce_decay_dedup_and_digest(conn, add, repo):
    project = detect(repo)
    inferred = add("Prefer small commits", "Keep commits small.", type_="preference", confidence="inferred")
    conn.execute("UPDATE records SET reinforce_count = 3 WHERE id = ?", (inferred.id,))
    old = add("Flaky test", "it flakes", type_="discovery", confidence="inferred")
    past = (datetime.now(timezone.utc) - timedelta(days=60)).isoformat()
    conn.execute("UPDATE records SET recorded_at = ? WHERE id = ?", (past, old.id))
    a = add("Use SQLite", "One file.", session_id="s1")
    add("Use  sqlite", "one   file.", session_id="s2")
    report = consolidate.run(project)
    assert report["reinforced"] == 1 and report["duplicates_folded"] == 1
    assert records.get(conn, inferred.id).confidence == "reinforced"
    assert abs(records.get(conn, old.id).score - 0.25) < 0.01
    assert records.get(conn, a.id).score == 1.0 and records.get(conn, a.id).reinforce_count == 1
    text = digest.read_text(project.id)
    assert "Use SQLite" in text and "Flaky" not in text


def test_three_sessions_reinforce_at_the_default_threshold(conn, add, repo):
    r = add("Run the linter before committing", "ruff check first.", type_="convention", confidence="inferred")
    conn.execute("UPDATE records SET reinforce_count = 1 WHERE id = ?", (r.id,))  # 2 sessions
    consolidate.run(detect(repo))
    assert records.get(conn, r.id).confidence == "inferred"
    conn.execute("UPDATE records SET reinforce_count = 2 WHERE id = ?", (r.id,))  # 3 sessions
    assert consolidate.run(detect(repo))["reinforced"] == 1
    assert records.get(conn, r.id).confidence == "reinforced"


def test_threshold_from_config(conn, add, repo):
    config.set_value("reinforceThreshold", "1")
    r = add("Tabs", "Use tabs.", type_="convention", confidence="inferred")
    conn.execute("UPDATE records SET reinforce_count = 1 WHERE id = ?", (r.id,))
    consolidate.run(detect(repo))
    assert records.get(conn, r.id).confidence == "reinforced"


def test_session_wrap_writes_rule_based_handover_and_links_files(hook, conn, repo, tmp_path):
    import json

    for payload in ({"tool_name": "Edit", "tool_input": {"file_path": "src/a.py"}},
                    {"tool_name": "Bash", "tool_input": {"command": "pytest"}, "tool_response": {"stdout": "FAILED t.py::x"}}):
        hook("post-tool-use", {"session_id": "s1", "cwd": str(repo), **payload})
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"content": "make login work"}}) + "\n")
    consolidate.run(detect(repo), session_id="s1", transcript=str(transcript))
    (handover,) = records.current(conn, detect(repo).id, types=["handover"])
    assert "make login work" in handover.body and "src/a.py" in handover.body and "failed" in handover.body
    text = digest.read_text(detect(repo).id)
    assert "Last session handover (unconfirmed)" in text


def test_rebuild_recreates_digest(conn, add, repo, capsys, monkeypatch):
    add("Use SQLite", "One file.")
    monkeypatch.chdir(repo)
    assert main(["consolidate", "--rebuild", "--json"]) == 0
    assert "Use SQLite" in digest.read_text(detect(repo).id)


def test_consolidate_without_store_exits_zero(repo, monkeypatch):
    monkeypatch.chdir(repo)
    assert main(["consolidate"]) == 0


def test_profile_detection(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python=">=3.10"\ndependencies=["fastapi"]\n'
                                             '[project.scripts]\ntool="pkg.cli:main"\n[tool.ruff]\n')
    (tmp_path / "package.json").write_text('{"scripts": {"test": "vitest", "build": "tsc"}, "devDependencies": '
                                           '{"typescript": "5", "vitest": "1"}}')
    (tmp_path / "pnpm-lock.yaml").write_text("")
    (tmp_path / "Cargo.toml").write_text('[package]\nname="x"\nedition="2021"\n')
    (tmp_path / "go.mod").write_text("module example.com/x\n\ngo 1.22\n")
    (tmp_path / "Makefile").write_text("test:\n\tpytest\nlint:\n\truff\n")
    bodies = profile.detect(tmp_path).bodies()
    stack, commands = bodies["Stack"], bodies["Commands"]
    for expected in ("Python (>=3.10)", "FastAPI", "TypeScript", "Package manager: pnpm", "Rust (edition 2021)", "Go (1.22)"):
        assert expected in stack
    for expected in ("test: pnpm test", "build: pnpm build", "test: cargo test", "test: go test ./...", "lint: make lint"):
        assert expected in commands
    assert "console script `tool`" in bodies["Entry points"]
    # Write-time expansion: the first line says, in the words questions use, what the record answers.
    first = commands.splitlines()[0]
    assert first.startswith("Commands to ") and first.endswith(" this project.")
    assert {"test", "build", "lint (linter)"} == set(first[len("Commands to "):-len(" this project.")].split(", "))
    assert not stack.splitlines()[0].startswith("- ") and "libraries" in stack.splitlines()[0]


def test_the_digest_shows_the_profile_bullets_not_the_descriptive_line(conn, repo):
    from agentctx.memory import digest

    (repo / "pyproject.toml").write_text('[project]\ndependencies=["pytest"]\n[tool.ruff]\n')
    profile.refresh(conn, detect(repo))
    section = digest.profile_section(conn, detect(repo).id)
    assert "Commands: test: pytest; lint: ruff check ." in section
    assert "Commands to" not in section and "The stack of this project" not in section


def test_profile_refresh_only_writes_changes(conn, repo, monkeypatch, capsys):
    (repo / "go.mod").write_text("module x\n\ngo 1.22\n")
    project = detect(repo)
    assert profile.refresh(conn, project)["Stack"] == "created"
    assert profile.refresh(conn, project)["Stack"] == "unchanged"
    monkeypatch.chdir(repo)
    assert main(["profile", "show"]) == 0 and "Language: Go" in capsys.readouterr().out


def test_why_lists_injections(hook, add, repo, monkeypatch, capsys):
    add("Use SQLite for storage", "One file, WAL.")
    hook("user-prompt-submit", {"session_id": "s1", "cwd": str(repo), "prompt": "sqlite storage"})
    monkeypatch.chdir(repo)
    assert main(["why", "--session", "s1"]) == 0
    out = capsys.readouterr().out
    assert "UserPromptSubmit" in out and "Use SQLite for storage" in out


def test_consolidation_keeps_the_decisions_log_bounded(conn, repo, monkeypatch):
    # The prompt hook appends a line per prompt; `agentctx why` trims it, but a user may never run `why`.
    import os

    from agentctx.retrieval import explain
    from agentctx.base import paths

    monkeypatch.setattr(explain, "MAX_BYTES", 2_000)
    monkeypatch.setattr(explain, "KEEP", 5)
    path = paths.decisions_log_file()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    lines = [f'{{"n": {i}, "pad": "{"x" * 80}"}}' for i in range(50)]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))
    report = consolidate.run(detect(repo))
    assert report["decisions_log_trimmed"] is True
    with open(path, encoding="utf-8") as fh:
        assert fh.read().splitlines() == lines[-5:]
    assert consolidate.run(detect(repo))["decisions_log_trimmed"] is False  # under the cap: left alone
