"""Drift and `sync` for AGENTS.md and GEMINI.md beside CLAUDE.md, on real files from public repositories
(tests/data/instruction_files/SOURCES.md): lines that still state a superseded record, decisions missing, one command,
each change confirmed on its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agentctx.cli import main
from agentctx.outside import drift
from agentctx.store import records

DATA = Path(__file__).resolve().parents[2] / "data" / "instruction_files"


def _copy(repo: Path, source: str, name: str) -> Path:
    target = repo / name
    shutil.copyfile(DATA / source / name, target)
    return target


def test_agents_md_drift_on_a_real_file(conn, repo, project, add):
    agents = _copy(repo, "wxvx", "AGENTS.md")
    stated = add("Use the logging module, not print statements", "Use Python's logging module; avoid print.",
                 type="convention")
    old = add("Format code with ruff before running tests", "Run make format (ruff) before the tests.",
              type="convention")
    records.supersede(conn, old.id, project.id, body="Format code with black before running tests; ruff only lints.")
    missing = add("Pin numpy below 2.0 in the conda recipe", "The recipe pins numpy<2 until eccodes supports it.")
    report = drift.scan(conn, project, name="AGENTS.md")
    assert report.files == [str(agents.resolve())] and report.name == "AGENTS.md"
    head = records.head(conn, records.get(conn, old.id))
    assert [m["id"] for m in report.missing] == [head.id, missing.id]  # the black rule and the numpy pin
    assert stated.id not in [m["id"] for m in report.missing]
    (contradicted,) = report.contradicted
    assert contradicted["id"] == old.id and "ruff" in contradicted["text"]
    assert contradicted["file"].endswith("AGENTS.md")
    assert "+## Project memory (agentctx)" in report.proposed_diff and "a/AGENTS.md" in report.proposed_diff


def test_gemini_md_drift_on_a_real_file(conn, repo, project, add):
    _copy(repo, "pybun", "GEMINI.md")
    add("Lint with clippy and deny warnings", "cargo clippy --all-targets --all-features -- -D warnings.",
        type="convention")
    new = add("Release builds use thin LTO", "The release profile sets lto = thin to keep link times down.")
    report = drift.scan(conn, project, name="GEMINI.md")
    assert [m["id"] for m in report.missing] == [new.id]


def test_one_sync_reviews_every_instruction_file_the_repository_has(conn, repo, project, add, capsys):
    (repo / "CLAUDE.md").write_text("# App\n", encoding="utf-8")
    _copy(repo, "fims", "AGENTS.md")
    _copy(repo, "pybun", "GEMINI.md")
    rec = add("Store model outputs as parquet files", "Model outputs are written as parquet, one file per run.")
    assert main(["-C", str(repo), "sync", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f["file"] for f in out["instruction_files"]] == ["CLAUDE.md", "AGENTS.md", "GEMINI.md"]
    assert all([m["id"] for m in f["missing"]] == [rec.id] for f in out["instruction_files"])
    assert out["file"] == "CLAUDE.md" and [m["id"] for m in out["missing"]] == [rec.id]  # CLAUDE.md's, as before

    assert main(["-C", str(repo), "sync", "--yes"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("updated ") == 3 and "== AGENTS.md ==" in printed
    for name in ("CLAUDE.md", "AGENTS.md", "GEMINI.md"):
        assert rec.id in (repo / name).read_text(encoding="utf-8")
    original = (DATA / "fims" / "AGENTS.md").read_text(encoding="utf-8")
    assert (repo / "AGENTS.md").read_text(encoding="utf-8").startswith(original)  # only appended to
    assert main(["-C", str(repo), "sync"]) == 0
    assert capsys.readouterr().out.count("reflects every current decision and convention") == 3


def test_sync_file_picks_one_and_a_link_to_claude_md_is_not_reviewed_twice(conn, repo, project, add, capsys):
    _copy(repo, "wxvx", "AGENTS.md")
    (repo / "CLAUDE.md").symlink_to(repo / "AGENTS.md")
    add("Store model outputs as parquet files", "Model outputs are written as parquet, one file per run.")
    assert [r.name for r in drift.scan_all(conn, project)] == ["CLAUDE.md"]
    assert main(["-C", str(repo), "sync", "--file", "AGENTS.md", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["file"] == "AGENTS.md" and len(out["missing"]) == 1
    assert main(["-C", str(repo), "sync"]) == 64  # no terminal: nothing applied, the answer is no
    assert "Store model outputs" not in (repo / "AGENTS.md").read_text(encoding="utf-8")
