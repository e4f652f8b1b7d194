"""What a shell command is: its parts, agentctx's own, a test run, the tests it names failing or passing."""

from __future__ import annotations

import functools
import re

from ...base import shell

# One PostToolUse payload asks about its command line several times (git, own command, test run, selections).
parsed = functools.lru_cache(maxsize=4)(shell.parse)

TEST_CMD = re.compile(
    r"(?:^|[\s;&|(])(?:py\.?test|python[\d.]*\s+-m\s+(?:pytest|unittest)|tox|nox|go\s+test|cargo\s+(?:test|nextest)"
    r"|(?:npx\s+|pnpm\s+(?:exec\s+)?|yarn\s+)?(?:jest|vitest|mocha|playwright\s+test)"
    r"|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?::\S*)?)(?=\s|$|;|&|\|)")
# A failing test run. "0 failed" is not a failure: the count must start with 1-9.
TEST_FAIL = re.compile(r"(?m)^.*(?:\bFAILED\b|^\s*FAIL\b|\bfailing\b|AssertionError|✗|✘|\b[1-9]\d*\s+(?:failed|failures?)\b"
                        r"|^--- FAIL:|test result: FAILED|\berrors?=[1-9]|\bFAILED \(|^ERROR:).*$")
TEST_PASS = re.compile(r"(?m)\b\d+\s+passed\b|^OK\b|^ok\s+\S|test result: ok|^PASS\b|Tests:\s+\d+\s+passed|\b\d+\s+passing\b")
# The id of a failing test as each runner prints it: pytest's summary (`FAILED path::Class::test - …`) or its -v
# line, unittest's `FAIL: test (module.Class.test)`, `go test`'s `--- FAIL: TestX`, cargo's `test x ... FAILED`,
# vitest's ` FAIL file > name`, jest's `● Suite › name`.
_FAILED_TEST = re.compile(r"(?m)^(?:FAILED|ERROR) (\S+::\S+|\S+\.py)(?=\s|$)|^(\S+::\S+) (?:FAILED|ERROR)(?=\s|$)"
                          r"|^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)|^\s*--- FAIL: (\S+)|^test (\S+) \.\.\. FAILED$"
                          r"|^\s*FAIL (\S+\.\w+ > [^\n]+?)\s*$|^\s+● ([^\n]+ › [^\n]+?)\s*$")
FAILED_TESTS_KEPT = 20
# The tests a passing run shows it ran, as each runner prints them: pytest -v (`path::test PASSED`) and its -rA
# summary, unittest -v (`test_x (mod.Class.test_x) ... ok`), `go test -v`, cargo, vitest and jest (`✓ name`).
_PASSED_TEST = re.compile(r"(?m)^(\S+::\S+) PASSED(?=\s|$)|^PASSED (\S+::\S+)(?=\s|$)"
                          r"|^(\w+) \(([\w.]+)\) \.\.\. ok$|^\s*--- PASS: (\S+)|^test (\S+) \.\.\. ok$"
                          r"|^\s*[✓√] (\S+\.\w+ > [^\n]+?)(?:\s+\d+\s*ms)?\s*$")
# Options of a test runner that take a value (the value is not a test to run), and those that run only some of the
# tests a path names (then a path covers nothing by itself: only the tests the output shows passed).
_VALUE_OPTIONS = frozenset(("-k", "-m", "-p", "-c", "-n", "-o", "-W", "-e", "--env", "--deselect", "--ignore",
                            "--rootdir", "--maxfail", "--tb", "--durations", "-run", "--run", "-t", "--testNamePattern",
                            "--reporter", "--config", "--project", "-r"))
_SUBSET_OPTIONS = ("-k", "-m", "--lf", "--last-failed", "--deselect", "-run", "--run", "-t", "--testNamePattern",
                   "--sw", "--stepwise")
# agentctx's own command, however it is started: its errors are never the project's (issue 42 item 6).
_OWN = re.compile(r"^(?:\w+=\S*\s+)*(?:(?:uvx|pipx\s+run|uv\s+(?:tool\s+)?run)\s+(?:--\S+\s+)*"
                  r"|python[\d.]*\s+-m\s+|\S*/)?agentctx(?:\.exe|[@=]\S*)?(?=\s|$)")


def failed_tests(output: str) -> list[str]:
    """The ids of the failing tests a test run printed, in order, each once (at most FAILED_TESTS_KEPT)."""
    found: list[str] = []
    for m in _FAILED_TEST.finditer(output):
        groups = m.groups()
        if groups[2]:  # unittest: `test_x (pkg.mod.Class.test_x)` since 3.11, `(pkg.mod.Class)` before
            ident = groups[3] if groups[3].endswith("." + groups[2]) else f"{groups[3]}.{groups[2]}"
        else:
            ident = next(g for g in groups if g)
        if ident not in found:
            found.append(ident)
            if len(found) >= FAILED_TESTS_KEPT:
                break
    return found


def segments(command: str) -> list[str]:
    """The simple commands of a shell line as written (`Command.text`), in order, nested ones (`bash -c "…"`,
    `$(…)`) after the command holding them, as `base.shell` reads the line."""
    return [c.text for c in parsed(command).commands if c.text]


def runs_tests(command: str) -> bool:
    """Whether a command of the line that is not agentctx's own starts a test runner."""
    return bool(TEST_CMD.search(" ; ".join(seg for seg in segments(command) if not _OWN.match(seg))))


def _test_run(command: str) -> "tuple[tuple[str, ...], re.Match[str]] | None":
    """The words of the first command of the line that runs tests (not agentctx), and the runner's match in them."""
    for cmd in parsed(command).commands:
        if not cmd.text or not TEST_CMD.search(cmd.text) or _OWN.match(cmd.text):
            continue
        joined = " ".join(cmd.words)  # a runner inside `$(…)` is that nested command's, not this one's
        m = next((m for m in TEST_CMD.finditer(joined) if not m.group(0).startswith("(")), None)
        if m:
            return cmd.words, m
    return None


def own_command(command: str) -> bool:
    """Whether `command` runs agentctx itself (`agentctx`, `python -m agentctx`, `uvx agentctx`, a path to it) in
    any of its parts: what it prints is about agentctx, never the project's error or test run."""
    return any(_OWN.match(seg) for seg in segments(command))


def _selections(command: str) -> tuple[list[str], bool]:
    """The tests a test command names (paths, node ids, dotted names), and whether an option runs only some of
    them (`-k`, `--lf`, `-run`: then a path says nothing about the tests in it)."""
    found = _test_run(command)
    words, runner_words = (found[0], len(" ".join(found[0])[: found[1].end()].split())) if found else ((), 0)
    chosen: "list[str]" = []
    subset = skip = False
    for word in words[runner_words:]:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            name = word.split("=", 1)[0]
            subset = subset or name in _SUBSET_OPTIONS
            skip = name in _VALUE_OPTIONS and "=" not in word
            continue
        if word in ("run", "test", "--") or word.startswith("./...") or any(c in word for c in "<>$`"):
            continue
        chosen.append(word[2:] if word.startswith("./") else word)
    return chosen, subset


def passed_tests(command: str, output: str) -> list[str]:
    """What a passing run covered: the tests its output names as passed, and (unless an option ran only some of
    them) the paths, node ids and dotted names its command selected. A failure stub is resolved when every test it
    lists is covered (`covers`), whatever command failed it."""
    found: list[str] = []
    for m in _PASSED_TEST.finditer(output):
        g = m.groups()
        if g[2]:  # unittest
            ident = g[3] if g[3].endswith("." + g[2]) else f"{g[3]}.{g[2]}"
        else:
            ident = next(x for x in g if x)
        found.append(ident)
    chosen, subset = _selections(command)
    found += [w for w in chosen if "::" in w or not subset]
    found = list(dict.fromkeys(found))[:200]
    family = runner(command)
    if not chosen and not subset and family:  # the whole suite passed: every test of that runner
        found.append(WHOLE + family)
    return found


# A passing run's coverage entry for "every test of this runner" (a whole-suite run: no path, no -k).
WHOLE = "*"


# A test command's runner family, by the first pattern its match holds (`playwright test` before a bare `test`).
_RUNNERS = ((r"py\.?test", "pytest"), (r"unittest", "unittest"), (r"\btox\b", "tox"), (r"\bnox\b", "nox"),
            (r"\bgo\s", "go test"), (r"\bcargo\s", "cargo test"), (r"\bvitest\b", "vitest"), (r"\bjest\b", "jest"),
            (r"\bmocha\b", "mocha"), (r"\bplaywright\b", "playwright test"), (r"\btest\b", "npm test"))


def runner(command: str) -> "str | None":
    """The test runner a command starts, by family (`python -m pytest` and `py.test` are `pytest`, `npx vitest run`
    is `vitest`, `pnpm run test` is `npm test`), or None when it starts none."""
    found = _test_run(command)
    if not found:
        return None
    return next((family for pattern, family in _RUNNERS if re.search(pattern, found[1].group(0))), None)


def covers(selection: str, test_id: str) -> bool:
    """Whether a passing run's selection (a test id, a file, a directory, a module) includes `test_id`."""
    sel = selection.rstrip("/")
    if not sel:
        return False
    if test_id == sel:
        return True
    return any(test_id.startswith(sel + sep) for sep in ("::", " > ", ".", "/"))
