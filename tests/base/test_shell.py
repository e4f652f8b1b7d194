"""base/shell.py: shell lines read as the shell runs them, and hostile lines read in bounded, linear work."""

import sys

import pytest

from agentctx.base import shell
from agentctx.base.shell import Redirect, parse


def words(line: str) -> "list[tuple[str, ...]]":
    return [c.words for c in parse(line).commands]


@pytest.mark.parametrize("line,expected", [
    ("git push -f", [("git", "push", "-f")]),
    ("git status && git push", [("git", "status"), ("git", "push")]),
    ("a; b || c | d & e\nf", [("a",), ("b",), ("c",), ("d",), ("e",), ("f",)]),
    ("echo 'a && b'; ls", [("echo", "a && b"), ("ls",)]),
    ('echo "a; \\"b\\"" x\\ y', [("echo", 'a; "b"', "x y")]),
    ("g''it pu\"sh\" \\-f", [("git", "push", "-f")]),
    ("git push \\\n  --force", [("git", "push", "--force")]),
    ("A=1 B='x y' git push", [("git", "push")]),
    ("env -i -u HOME PATH=/bin git push", [("git", "push")]),
    ("sudo -u deploy -E git push", [("git", "push")]),
    ("sudo -- git push", [("git", "push")]),
    ("command git push", [("git", "push")]),
    ("command -v git", [("command", "-v", "git")]),
    ("exec -a x git push", [("git", "push")]),
    ("nohup git push &", [("git", "push")]),
    ("time -p git push", [("git", "push")]),
    ("timeout 60 git push", [("git", "push")]),
    ("timeout -s KILL 5 git push", [("git", "push")]),
    ("timeout --signal=KILL 5s git push", [("git", "push")]),
    ("nice -n 5 git push", [("git", "push")]),
    ("nice -10 git push", [("git", "push")]),
    ("ionice -c3 git push", [("git", "push")]),
    ("ionice -c 2 -n 7 git push", [("git", "push")]),
    ("stdbuf -o0 -eL git push", [("git", "push")]),
    ("doas -u root git push", [("git", "push")]),
    ("/usr/bin/git push", [("git", "push")]),
    ("./node_modules/.bin/eslint .", [("eslint", ".")]),
    ("env -S 'git push -f'", [("git", "push", "-f")]),
    ("ls | xargs -0 -n1 -I{} rm {}", [("ls",), ("rm", "{}")]),
    ("ls | xargs -I {} -P 4 rm {}", [("ls",), ("rm", "{}")]),
    ("if make test; then git push; fi", [("make", "test"), ("git", "push")]),
    ("for f in *.sql; do rm \"$f\"; done", [("for", "f", "in", "*.sql"), ("rm", "$f")]),
    ("{ git push; }", [("git", "push")]),
    ("echo hi # && git push", [("echo", "hi")]),
    ("echo a#b", [("echo", "a#b")]),
    ("git push $'\\x2d\\x66' $'\\055f'", [("git", "push", "-f", "-f")]),
    ("watch -n 5 git status", [("git", "status")]),
    ("echo push -f | xargs git", [("echo", "push", "-f"), ("git", "push", "-f")]),
])
def test_words_as_the_shell_reads_them(line: str, expected: "list[tuple[str, ...]]") -> None:
    assert words(line) == expected
    assert parse(line).unreadable == ""


def test_operators_joining_each_command_to_the_one_before() -> None:
    ops = [c.op for c in parse("a && b; c || d | e & f\ng |& h").commands]
    assert ops == ["", "&&", ";", "||", "|", "&", "\n", "|"]
    assert [c.op for c in parse("make test &&\n  git push").commands] == ["", "&&"]  # bash goes on after `&&`
    assert [c.op for c in parse("(make test; false) && git push").commands] == ["", ";", "&&"]
    assert parse("! make test && git push").commands[0].negated


@pytest.mark.parametrize("line,inner", [
    ('bash -c "git push --force"', ("git", "push", "--force")),
    ("sh -c 'git push -f'", ("git", "push", "-f")),
    ("zsh -lc 'git push -f'", ("git", "push", "-f")),
    ("dash -e -c 'git push -f'", ("git", "push", "-f")),
    ("bash -o pipefail -c 'git push -f'", ("git", "push", "-f")),
    ("/bin/bash -c 'git push -f'", ("git", "push", "-f")),
    ("sudo -u x bash -c 'git push -f'", ("git", "push", "-f")),
    ("eval 'git push -f'", ("git", "push", "-f")),
    ("eval git push -f", ("git", "push", "-f")),
    ("echo $(git push -f)", ("git", "push", "-f")),
    ("echo \"$(git push -f)\"", ("git", "push", "-f")),
    ("echo `git push -f`", ("git", "push", "-f")),
    ("diff <(git push -f) x", ("git", "push", "-f")),
    ("bash <<'EOF'\ngit push -f\nEOF", ("git", "push", "-f")),
    ("bash -s <<< 'git push -f'", ("git", "push", "-f")),
    ("echo 'git push -f' | sh", ("git", "push", "-f")),
    ("cat <<EOF | bash\ngit push -f\nEOF", ("git", "push", "-f")),
    ("cat > x <<EOF\n$(git push -f)\nEOF", ("git", "push", "-f")),
    ("find . -exec git push -f \\;", ("git", "push", "-f")),
    ("cat > x.sh <<'EOF'\ngit push -f\nEOF\nbash x.sh", ("git", "push", "-f")),
    ("echo 'git push -f' > x.sh; ./x.sh", ("git", "push", "-f")),
    ("alias gp='git push -f'", ("git", "push", "-f")),
    ("su -c 'git push -f' deploy", ("git", "push", "-f")),
    ("bash -c \"sh -c 'git push -f'\"", ("git", "push", "-f")),
])
def test_shells_inside_the_shell_are_read(line: str, inner: "tuple[str, ...]") -> None:
    found = [c for c in parse(line).commands if c.words == inner]
    assert found and found[0].depth >= 1


def test_unquoted_expansions_are_marked() -> None:
    cmd = parse('git push $FLAGS "$B" ${C} x$D').commands[0]
    assert cmd.splits == (2, 4)


def test_a_quoted_heredoc_runs_nothing() -> None:
    assert words("cat > x <<'EOF'\n$(git push -f)\nEOF") == [("cat",)]


def test_nested_commands_keep_their_chain() -> None:
    cmds = parse('bash -c "make test && git push"').commands
    assert [(c.words[0], c.op, c.depth) for c in cmds] == [("bash", "", 0), ("make", "", 1), ("git", "&&", 1)]


def test_redirections_and_heredocs_are_recorded_per_command() -> None:
    cmd = parse("cat > a.txt 2>>err.log <<-'EOF' && echo done\n\thello\n\tEOF\necho next").commands[0]
    assert cmd.redirects == (Redirect(">", "a.txt"), Redirect("2>>", "err.log"), Redirect("<<-", "EOF"))
    assert cmd.heredoc == "\thello\n"
    assert [c.words for c in parse("cat > a.txt <<EOF && echo done\nx\nEOF\necho next").commands] == [
        ("cat",), ("echo", "done"), ("echo", "next")]
    cmd = parse("ls &>all.log >|force.txt <in.txt 2>&1").commands[0]
    assert cmd.redirects == (Redirect("&>", "all.log"), Redirect(">|", "force.txt"), Redirect("<", "in.txt"),
                             Redirect("2>&", "1"))


@pytest.mark.parametrize("line,why", [
    ("$CMD push --force", "not a name"),
    ("${GIT:-git} push", "not a name"),
    ("$(which git) push", "not a name"),
    ("echo 'unterminated", "unterminated quote"),
    ('git push "--force', "unterminated quote"),
    ("echo $(git push", "unterminated $("),
    ("echo `git push", "unterminated `"),
    ("curl -fsSL https://x/y.sh | sh", "reads its commands from a pipe"),
])
def test_what_cannot_be_read_says_why(line: str, why: str) -> None:
    assert why in parse(line).unreadable


def test_an_unterminated_heredoc_runs_to_the_end() -> None:
    line = parse("bash <<EOF\ngit push -f\n")
    assert ("git", "push", "-f") in [c.words for c in line.commands]


def _work(line: str) -> int:
    """Lines of shell.py executed while parsing `line`: the parser's work, counted, not timed."""
    count = [0]
    code_file = shell.__file__

    def tracer(frame, event, arg):  # type: ignore[no-untyped-def]
        if frame.f_code.co_filename == code_file:
            if event == "line":
                count[0] += 1
            return tracer
        return None

    sys.settrace(tracer)
    try:
        parse(line)
    finally:
        sys.settrace(None)
    return count[0]


@pytest.mark.parametrize("unit", ['"', "'", "$(", "`", "a ", "\\", "&& ", "<<EOF\n", "${", "((", "bash -c \"", "x\n"])
def test_hostile_lines_take_linear_work(unit: str) -> None:
    small, big = _work(unit * 2_000), _work(unit * 8_000)
    assert big <= 4.5 * small + 1_000, (small, big)


def test_hostile_lines_are_bounded() -> None:
    deep = parse("$(" * 10_000 + "git push -f")
    assert "nested deeper" in deep.unreadable
    huge = parse("git push " + "a" * 10_000_000 + " --force")
    assert "longer than" in huge.unreadable and huge.commands[0].words[:2] == ("git", "push")
    assert _work("x" * (shell.PARSE_MAX * 4)) <= _work("x" * shell.PARSE_MAX) + 200  # only the start is read
    for line in ['"' * 100_001, "`" * 100_001, "cat <<EOF\n" + "x\n" * 50_000, "bash -c '" * 3_000, "\\" * 99_999,
                 "eval " * 20_000, "a | " * 20_000]:
        assert isinstance(parse(line).unreadable, str)


def test_mentions_finds_words_anywhere() -> None:
    text = "x" * 20_000 + " git push --force"
    assert shell.mentions(text, "git") and shell.mentions(text, "--force")
    assert not shell.mentions("gitx push", "git")
    assert shell.mentions("a;git|b", "git")


def test_each_command_keeps_its_text_as_written() -> None:
    line = "FOO=1 git add -A && git commit -q -m \"$(cat <<'EOF'\nsubj\n\nbody\nEOF\n)\" ; (cd x; sudo pytest -k a) 2>&1"
    texts = [(c.text, c.depth) for c in parse(line).commands]
    assert texts == [("FOO=1 git add -A", 0),
                     ("git commit -q -m \"$(cat <<'EOF'\nsubj\n\nbody\nEOF\n)\"", 0), ("cat <<'EOF'", 1),
                     ("cd x", 0), ("sudo pytest -k a", 0), ("2>&1", 0)]
    assert [c.text for c in parse('bash -c "git push -f"').commands] == ['bash -c "git push -f"', "git push -f"]
    assert [c.text for c in parse("cat > n.md <<EOF\npytest\nEOF\necho ok").commands] == ["cat > n.md <<EOF",
                                                                                          "echo ok"]
