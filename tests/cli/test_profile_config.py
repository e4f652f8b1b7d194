"""`profile edit` / `profile clear`, `config --llm/--no-llm`, config help and value printing (issue 13 item 7, 10)."""

from __future__ import annotations

import json

from agentctx.base import config
from agentctx.memory import digest
from agentctx.base.project import detect


def test_profile_edit_supersedes_the_key_explicitly(in_p, proj_p):
    (proj_p / "pyproject.toml").write_text('[project]\nname = "p"\n')
    assert in_p("profile", "refresh").rc == 0
    before = {r["title"]: r for r in json.loads(in_p("profile", "--json").out)}
    result = in_p("profile", "edit", "commands", "test: make check; lint: ruff check .", "--json")
    assert result.rc == 0
    rec = json.loads(result.out)
    assert rec["title"] == "Commands" and rec["source"] == "cli" and rec["confidence"] == "explicit"
    assert rec["body"] == "- test: make check\n- lint: ruff check ."
    now = {r["title"]: r for r in json.loads(in_p("profile", "--json").out)}
    assert now["Commands"]["id"] == rec["id"]
    if "Commands" in before:
        old = json.loads(in_p("show", before["Commands"]["id"], "--json").out)
        assert old["superseded_by"] == rec["id"]
    assert "Commands: test: make check; lint: ruff check ." in digest.read_text(detect(proj_p).id)
    assert in_p("profile", "edit", "entry points", "cli: app.main").rc == 0
    assert in_p("profile", "edit", "Entry-Points", "cli: app.run").rc == 0


def test_profile_edit_rejects_unknown_keys_and_missing_values(in_p):
    bad = in_p("profile", "edit", "flavour", "vanilla")
    assert bad.rc == 65 and "stack, commands, entry-points" in bad.err
    assert in_p("profile", "edit", "stack").rc == 64
    assert in_p("profile", "show", "stack").rc == 64


def test_profile_clear_asks_then_deletes_the_history(in_p, proj_p):
    in_p("profile", "edit", "stack", "Language: Python")
    in_p("profile", "edit", "stack", "Language: Python 3.12")
    assert in_p("profile", "clear").rc == 64  # no terminal: the answer is no
    assert len(json.loads(in_p("profile", "--json").out)) == 1
    result = in_p("profile", "clear", "--force", "--json")
    assert result.rc == 0 and json.loads(result.out) == {"removed": 2}
    assert json.loads(in_p("profile", "--json").out) == []
    assert "Language: Python" not in digest.read_text(detect(proj_p).id)


def test_config_no_llm_and_llm(in_p):
    result = in_p("config", "--no-llm")
    assert result.rc == 0 and result.out == "llm = false\n" and config.get("llm") is False
    assert in_p("config", "--llm").out == "llm = true\n" and config.get("llm") is True
    assert in_p("config", "set", "llm", "--no-llm").rc == 64


def test_booleans_print_the_same_in_set_get_and_the_listing(in_p):
    assert in_p("config", "set", "embeddings", "off").out == "embeddings = false\n"
    assert in_p("config", "get", "embeddings").out == "false\n"
    listing = in_p("config").out
    assert "embeddings = false\n" in listing and "llm = true\n" in listing and "True" not in listing


def test_config_help_lists_every_key_with_meaning_and_default(capsys):
    from agentctx.cli import main

    assert main(["config", "--help"]) == 0
    out = capsys.readouterr().out
    for name, key in config.KEYS.items():
        line = next(ln for ln in out.splitlines() if ln.strip().startswith(name + " "))
        assert key.help in line and line.endswith(f"[{json.dumps(key.default)}]")
    assert "--no-llm" in out
