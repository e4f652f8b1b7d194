"""Anchors: normalisation, refusal of bad input, and bounded matching (base/anchors.py)."""

import time

import pytest

from agentctx.base import anchors
from agentctx.base.anchors import AnchorError, command_matches, normalize, normalize_all, path_matches


@pytest.mark.parametrize("given, stored", [
    ("src/payments/**", "path:src/payments/**"),
    ("path:./src//payments/", "path:src/payments/"),
    ("migrations/*.sql", "path:migrations/*.sql"),
    ("symbol:Client.send", "symbol:Client.send"),
    ("command:  alembic   upgrade ", "command:alembic upgrade"),
    ("tool:WebFetch", "tool:WebFetch"),
    ("PATH:docs\\adr\\*.md", "path:docs/adr/*.md"),
    ("src/a**b.py", "path:src/a*b.py"),
])
def test_normalize_gives_the_stored_form(given, stored):
    assert normalize(given) == stored


@pytest.mark.parametrize("bad, why", [
    ("/etc/passwd", "absolute"),
    ("C:/Windows", "absolute"),
    ("src/../../secrets", "'..'"),
    ("**", "every file"),
    ("path:*", "every file"),
    ("**/**", "every file"),
    ("command:/(a+)+$/", "regular expression"),
    ("command:*", "every command"),
    ("a/*/*/*/*/*/*/*/*/*.py", "wildcards"),
    ("src/\x1b[31mred", "control"),
    ("src/caf\udce9.py", "UTF-8"),
    ("symbol:a b", "symbol"),
    ("path:" + "a/" * 150, "limit"),
])
def test_bad_anchors_are_refused_with_one_line(bad, why):
    with pytest.raises(AnchorError) as exc:
        normalize(bad)
    assert why in str(exc.value) and "\n" not in str(exc.value)


def test_an_absolute_path_inside_the_repository_is_made_relative():
    assert normalize("/home/me/repo/src/x.py", root="/home/me/repo") == "path:src/x.py"
    with pytest.raises(AnchorError):
        normalize("/home/me/other/x.py", root="/home/me/repo")


def test_ten_thousand_globs_are_refused_before_any_is_read():
    with pytest.raises(AnchorError, match="the limit is 24"):
        normalize_all([f"src/{i}/**" for i in range(10_000)])
    assert normalize_all(["a/**", "path:a/**", "", "b.py"]) == ("path:a/**", "path:b.py")


@pytest.mark.parametrize("glob, path, hit", [
    ("src/payments/**", "src/payments/retry.py", True),
    ("src/payments/**", "src/payments/deep/x/y.py", True),
    ("src/payments/**", "src/paymentsx/y.py", False),
    ("src/payments", "src/payments/retry.py", True),
    ("src/payments/", "src/payments/retry.py", True),
    ("src/payments", "src/payments.py", False),
    ("migrations/*.sql", "migrations/001_init.sql", True),
    ("migrations/*.sql", "migrations/old/001.sql", False),
    ("*.sql", "db/migrations/001.sql", True),
    ("Makefile", "Makefile", True),
    ("Makefile", "sub/Makefile", True),
    ("docs", "docs/index.md", True),
    ("src/**/*.py", "src/a.py", True),
    ("src/**/*.py", "src/a/b/c.py", True),
    ("src/**/*.py", "src/a/b/c.pyc", False),
    ("src/**/test_?.py", "src/x/test_a.py", True),
    ("**/conftest.py", "tests/unit/conftest.py", True),
    ("**/conftest.py", "conftest.py", True),
])
def test_path_matching(glob, path, hit):
    assert path_matches(glob, path) is hit


def test_matching_a_hostile_glob_is_fast():
    glob = normalize("path:" + "*a" * 8 + "b")[5:]
    path = "a" * 190
    start = time.perf_counter()
    assert not path_matches(glob, path)
    assert not path_matches("**/" * 1 + "*a*a*a*a*a*a*a*b", "/".join(["a" * 30] * 6))
    assert time.perf_counter() - start < 1.0  # exponential backtracking would take minutes


@pytest.mark.parametrize("prefix, line, hit", [
    ("pip install", "pip install -U requests", True),
    ("pip install", "cd x && sudo pip install y", True),
    ("pip install", "FOO=1 env BAR=2 pip install y", True),
    ("pip install", "pip uninstall y", False),
    ("pip install", "echo 'pip install y'", False),
    ("npm", "npm test", True),
    ("npm", "npmx test", False),
    ("npm", "/usr/local/bin/npm ci", True),
    ("git push --force", "git status; git push --force origin main", True),
    ("git push --force", "git push origin main", False),
    ("alembic upgrade", "uv run alembic upgrade head", True),  # a runner is seen through (base/cmdpattern.py)
    ("git push --force", "git -C . push -f", True),
])
def test_command_matching(prefix, line, hit):
    assert command_matches(prefix, line) is hit


def test_chained_commands_are_cut_outside_quotes():
    assert anchors.commands("git checkout main && git checkout -b topic") == [
        ("git", "checkout", "main"), ("git", "checkout", "-b", "topic")]
    assert anchors.commands("echo 'a && b'; ls") == [("echo", "a && b"), ("ls",)]
