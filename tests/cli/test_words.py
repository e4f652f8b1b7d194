"""Words a person reads (issue 26, item 11): help without a terminal, a missing action, a bad number, a busy port."""

from __future__ import annotations

import io
import socket
import sys

from agentctx.base import config
from agentctx.cli import main


def test_hook_help_prints_the_usage_even_when_stdin_is_not_a_terminal(monkeypatch, capsys):
    from agentctx.hooks import run

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # piped, as in `agentctx hook --help < /dev/null`
    assert run(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: agentctx hook EVENT")


def test_models_without_an_action_names_the_action(capsys):
    assert main(["models"]) == 64
    err = capsys.readouterr().err
    assert "`agentctx models` needs an action: pull" in err and len(err.strip().splitlines()) == 1


def test_a_bad_number_says_what_was_expected(capsys):
    assert main(["config", "set", "reinforceThreshold", "abc"]) != 0
    err = capsys.readouterr().err
    assert "expected an integer >= 1, not 'abc'" in err and "int()" not in err
    assert config.load()["reinforceThreshold"] == 3


def test_a_busy_port_says_how_to_pick_another(repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        capsys.readouterr()
        assert main(["ui", "--port", str(port), "--no-browser"]) == 64
        err = capsys.readouterr().err
        assert f"cannot listen on 127.0.0.1:{port}" in err and "--port N" in err and "Traceback" not in err
    finally:
        taken.close()


def test_record_says_when_it_redacted_something(in_p):
    key = "sk-ant-api03-" + "R" * 40
    said = in_p("record", "--type", "decision", "--title", "Staging key", "--body", f"Use {key} on staging.")
    assert said.rc == 0 and "redacted before it was stored" in said.err and key not in said.out
    plain = in_p("record", "--type", "decision", "--title", "Use SQLite", "--body", "  One file.  ",
                 "--question", "which database?")
    assert plain.rc == 0 and plain.err == ""


def test_consolidate_speaks_in_words_and_leaves_out_what_did_nothing(in_p):
    in_p("record", "--type", "decision", "--title", "Use SQLite", "--body", "One file.")
    out = in_p("consolidate").out
    assert "records_rescrubbed: None" not in out and "term_stats: 0" not in out
    assert "the next SessionStart digest:" in out


def test_why_leads_with_words_and_keeps_the_numbers_for_verbose(in_p, proj_p, monkeypatch, capsys):
    import json as _json

    from agentctx.hooks import run

    in_p("record", "--type", "decision", "--title", "Use SQLite with WAL for storage",
         "--body", "We keep records in sqlite with WAL.")
    monkeypatch.setattr(sys, "stdin", io.StringIO(_json.dumps({"session_id": "w1", "cwd": str(proj_p),
                                                              "prompt": "sqlite storage and WAL"})))
    assert run(["user-prompt-submit"]) == 0
    capsys.readouterr()
    text = in_p("why").out
    assert "injected      [decision] Use SQLite with WAL for storage" in text and "p=" not in text
    assert "title_cover" not in text and "p=" in in_p("why", "--verbose").out
