"""extras: which are installed, and an install command that fits how agentctx was installed (never the index)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentctx.base import extras
from agentctx.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _pyproject() -> dict:
    try:
        import tomllib
    except ImportError:
        from agentctx.base import minitoml as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_requirements_mirror_pyproject():
    declared = _pyproject()["project"]["optional-dependencies"]
    assert {k: tuple(v) for k, v in declared.items() if k in extras.REQUIREMENTS} == extras.REQUIREMENTS
    assert set(declared) - set(extras.REQUIREMENTS) == {"dev", "ui-test", "all"}  # test tooling, not features


@pytest.mark.parametrize("inst, expected", [
    (extras.Installation("pipx", "/src/agentctx"), "pipx inject agentctx-memory 'anthropic>=2,<3'"),
    (extras.Installation("checkout", str(ROOT), True), f"-m pip install -e '{ROOT}[llm]'"),
    (extras.Installation("venv", str(ROOT), False), f"-m pip install '{ROOT}[llm]'"),
    (extras.Installation("venv", None), "-m pip install 'anthropic>=2,<3'"),
    (extras.Installation("system", "/checkout/that/was/deleted"), "-m pip install 'anthropic>=2,<3'"),
])
def test_install_command_per_installation(inst, expected):
    command = extras.install_command("llm", inst)
    assert command.endswith(expected)
    assert "agentctx-memory[" not in command  # nothing is published under that name


def test_uv_tool_install_keeps_its_other_extras_and_with_requirements(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    (tmp_path / "uv-receipt.toml").write_text(
        f'[tool]\nrequirements = [\n    {{ name = "agentctx-memory", extras = ["mcp-sdk"], directory = "{ROOT}" }},\n'
        '    { name = "rich", specifier = ">=13" },\n]\n')
    assert extras.installation().kind == "uv-tool"
    command = extras.install_command("llm", extras.Installation("uv-tool", str(ROOT), False))
    assert command == f"uv tool install --with 'rich>=13' '{ROOT}[mcp-sdk,llm]'"
    git = extras.install_command("llm", extras.Installation("uv-tool", "git+https://example.org/a.git", False))
    assert git == "uv tool install --with 'rich>=13' --with 'anthropic>=2,<3' git+https://example.org/a.git"


def test_installation_kinds_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    (tmp_path / "pipx_metadata.json").write_text("{}")
    assert extras.installation().kind == "pipx"


def test_the_plugins_extras_go_into_the_virtualenv_its_launcher_prefers(tmp_path, monkeypatch, isolated_home):
    monkeypatch.setenv("AGENTCTX_PLUGIN_ROOT", str(ROOT / "plugin"))
    inst = extras.installation()
    assert (inst.kind, inst.source) == ("plugin", str(ROOT / "plugin"))
    venv = isolated_home / ".agentctx" / "venv"
    command = extras.install_command("vectors", inst)
    assert command == (f"{sys.executable} -m venv {venv} && {venv}/bin/python -m pip install 'fastembed>=0.9' "
                       "'sqlite-vec>=0.1.6' 'numpy>=1.24'")
    monkeypatch.setattr(sys, "prefix", str(venv))  # already running in it: add to it
    assert extras.install_command("llm", inst) == f"{venv}/bin/python -m pip install 'anthropic>=2,<3'"


def test_missing_sees_a_hidden_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "anthropic", None)  # as if the [llm] extra were not installed
    assert extras.missing("llm") == "anthropic" and not extras.installed("llm")
    assert "[llm] extra" in extras.describe("llm") and "add it with: " in extras.describe("llm")


# --- where the user looks: status, doctor, extract, backfill (with the extra hidden) ---------------------------

@pytest.fixture
def no_llm_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:me/proj.git\n')
    monkeypatch.chdir(root)
    assert main(["init", "--no-mcp"]) == 0
    return root


def _transcript(project: Path, session_id: str = "s1") -> Path:
    from agentctx.base import paths
    from agentctx.extract import backfill

    folder = paths.claude_home() / "projects" / backfill.encode(str(project.resolve()))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    lines = [{"type": "user", "sessionId": session_id, "cwd": str(project), "uuid": "u1",
              "message": {"role": "user", "content": "We decided to use Postgres for the queue. next: migrate it"}},
             {"type": "assistant", "sessionId": session_id, "cwd": str(project), "uuid": "a1",
              "message": {"role": "assistant", "content": [{"type": "text", "text": "OK, Postgres it is."}]}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_status_names_the_missing_extra(project, no_llm_extra, capsys):
    capsys.readouterr()
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "[llm] no" in out
    # README: status names the command that adds a missing extra, exactly as doctor does.
    assert f"  add [llm]: {extras.install_command('llm')}\n" in out + "\n"
    # The off reason once (it was printed on the cost line and again on the extraction line).
    assert main(["status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["llm"] is False and data["extras"]["llm"] is False and "[llm]" in data["llm_off_reason"]
    assert data["extras_install"]["llm"] == extras.install_command("llm")
    data_reason = data["llm_off_reason"]
    assert out.count(data_reason) == 1 and f"extraction off: {data_reason}" in out


def test_doctor_warns_when_a_key_is_set_without_the_extra(project, no_llm_extra, capsys):
    capsys.readouterr()
    main(["doctor", "--json"])
    llm = {c["name"]: c for c in json.loads(capsys.readouterr().out)}["llm"]
    assert llm["status"] == "warn" and "ANTHROPIC_API_KEY is set" in llm["detail"]
    assert llm["fix"] == extras.install_command("llm") and "agentctx-memory[" not in llm["fix"]


def test_doctor_says_how_to_add_the_vectors_extra(project, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "fastembed", None)  # as if the [vectors] extra were not installed
    capsys.readouterr()
    main(["doctor"])
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "vectors:" in ln)
    assert line.startswith("[ ok ]") and "keyword-only" in line and extras.install_command("vectors") in line


def test_extract_says_what_is_missing_and_how_to_add_it(project, no_llm_extra, capsys):
    path = _transcript(project)
    capsys.readouterr()
    assert main(["extract", "--session-id", "s1", "--transcript", str(path)]) == 0  # extraction never fails
    out = capsys.readouterr().out
    assert out.startswith("nothing extracted (missing_extra): the [llm] extra") and "add it with: " in out


def test_backfill_refuses_to_report_zero_dollars_without_the_extra(project, no_llm_extra, capsys):
    _transcript(project)
    capsys.readouterr()
    assert main(["backfill", "--yes"]) == 1
    captured = capsys.readouterr()
    assert "records written" not in captured.out and "$0.0000" not in captured.out.splitlines()[-1]
    assert captured.err.startswith("agentctx: backfill needs the [llm] extra") and captured.err.count("\n") == 1
    assert main(["backfill", "--dry-run"]) == 0  # the estimate still works, with a note
    assert "note: the [llm] extra" in capsys.readouterr().out


def test_backfill_dry_run_never_sends(project, monkeypatch, capsys):
    pytest.importorskip("anthropic")
    sys.path.insert(0, str(ROOT / "tests" / "extract"))
    from stub_api import StubAPI

    _transcript(project)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")
    with StubAPI() as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.base_url)
        assert main(["backfill", "--dry-run", "--yes"]) == 0
        assert stub.requests == []


def test_backfill_and_extract_dry_run_estimate_alike(project, capsys):
    """One computation: the same transcript costs the same tokens in both (backfill used a made-up record list)."""
    for i in range(5):
        assert main(["record", "--type", "decision", "--title", f"Decision number {i} about the queue",
                     "--body", "Body."]) == 0
    path = _transcript(project)
    capsys.readouterr()
    assert main(["backfill", "--dry-run", "--json"]) == 0
    estimate = json.loads(capsys.readouterr().out)
    assert main(["extract", "--session-id", "s1", "--transcript", str(path), "--dry-run", "--json"]) == 0
    dry = json.loads(capsys.readouterr().out)
    assert estimate["per_session"] == {"s1": dry["tokens_sent"]} and dry["tokens_sent"] > 0
    assert round(estimate["usd"], 6) == round(dry["cost_usd"], 6)
