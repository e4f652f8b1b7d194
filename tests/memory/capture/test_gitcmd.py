"""gitcmd reads a command line as the shell does, through the shared parser (`base.shell`): its commands and each
command's words (issue 34, item 2; issue 43: one parser)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from agentctx.base import shell
from agentctx.memory.capture import gitcmd

SESSION = json.loads((Path(__file__).resolve().parents[2] / "data" / "capture" / "session.json").read_text())
COMMIT_HEREDOC = ("git commit -q -m \"$(cat <<'EOF'\nfilters: keep Attribute excludes\n\nCo-Authored-By: Claude "
                  "<noreply@anthropic.com>\nEOF\n)\"")


@pytest.mark.parametrize("segment", [r["command"] for r in SESSION if "&&" not in r["command"] and "|" not in
                                     r["command"]] + [COMMIT_HEREDOC, "git commit -m \"say \\\"hi\\\"\" -q",
                                                      "git checkout -b a\\ b", "git commit -m '' -q"])
def test_words_are_the_shells_words(segment):
    assert shell.parse(segment).commands[0].words == tuple(shlex.split(segment))


def _texts(line):
    return [c.text for c in shell.parse(line).commands if c.depth == 0]


def test_segments_split_chains_outside_quotes_only():
    assert _texts("git add -A && git commit -q -m 'a; b && c' || echo no\ngit status | head -3 &") == [
        "git add -A", "git commit -q -m 'a; b && c'", "echo no", "git status", "head -3"]
    assert _texts(COMMIT_HEREDOC) == [COMMIT_HEREDOC]  # the heredoc's newlines are inside "$(…)"
    assert _texts("git checkout -b topic 2>&1 | tail -1 &>/dev/null") == ["git checkout -b topic 2>&1",
                                                                          "tail -1 &>/dev/null"]


def test_git_in_a_nested_shell_or_behind_a_wrapper_counts():
    assert gitcmd.commits('bash -c "git add -A && git commit -q -m \\"fix: x\\""', "", False) == [("", "", "fix: x")]
    assert gitcmd.branch_target("GIT_TRACE=0 sudo /usr/bin/git -C repo switch -c topic") == "topic"
    assert gitcmd.commits("echo 'git commit -q -m no'", "", False) == []
