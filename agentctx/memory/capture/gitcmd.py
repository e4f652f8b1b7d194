"""What a shell command line did with git, read with the output git printed: the branch it left checked out and the
commits it made. Every git command of the line counts (chained by `&&`, `||`, `;`, `|`, newlines, or run in a nested
shell), in order, as `base.shell` reads the line."""

from __future__ import annotations

import re

from .testruns import parsed

# What git prints (on stderr) when a checkout or switch succeeded; the last one is where the command left HEAD.
_SWITCHED = re.compile(r"(?m)^(?:Switched to (?:a new |and reset )?branch|Already on) '([^'\n]+)'")
_COMMIT_OUT = re.compile(r"(?m)^\[([^\s\]]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$")
# git's own failure lines, at the start of a line (what a call whose exit code we were not told shows).
_GIT_FAILED = re.compile(r"(?m)^(?:fatal|error): |^nothing to commit|^no changes added to commit")
# git's global options that take a value (`git -C dir checkout x`).
_GLOBAL_WITH_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}
# checkout/switch options that name the branch they create; --detach and --orphan leave no branch to record
# (an orphan branch has no commit yet: its name is recorded once a commit says it).
_CREATE = {"-b", "-B", "-c", "-C", "--create", "--force-create"}
_TAKES_VALUE = {"--conflict", "--pathspec-from-file", "--recurse-submodules"}


def _gits(command: str) -> "list[tuple[str, list[str]]]":
    """(subcommand, its arguments) of each git command the line runs, in order, read by the shared shell parser
    (`base.shell`: chains, quotes, assignments, wrappers, `bash -c "…"` and `$(…)` as the shell runs them). A
    heredoc commit message in "$(…)" stays one word, as written."""
    found: "list[tuple[str, list[str]]]" = []
    if "git" not in command:
        return found
    for cmd in parsed(command).commands:
        words = cmd.words
        if not words or words[0] != "git":
            continue
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in _GLOBAL_WITH_VALUE else 1
        if i < len(words):
            found.append((words[i], list(words[i + 1:])))
    return found


def _switch_target(sub: str, args: list[str]) -> "tuple[str | None, bool] | None":
    """For a checkout or switch: (the branch it names, or None when it names none we can tell, quiet?); None for
    a segment that does not switch branches (other subcommands, `--` file checkouts)."""
    if sub not in ("checkout", "switch") or "--" in args:
        return None
    quiet = "-q" in args or "--quiet" in args
    if "--detach" in args or (sub == "switch" and "-d" in args) or "--orphan" in args:
        return None, quiet
    i = 0
    while i < len(args):
        word = args[i]
        if word in _CREATE or (sub == "checkout" and word in ("-b", "-B")):
            return (args[i + 1] if i + 1 < len(args) else None), quiet
        if word in _TAKES_VALUE:
            i += 2
            continue
        if not word.startswith("-"):
            return (None if word == "-" else word), quiet
        i += 1
    return None, quiet


def branch_target(command: str) -> str | None:
    """The branch the last checkout or switch of `command` names (a created branch, else the one named), or None."""
    found = None
    for parsed in _gits(command):
        switch = _switch_target(*parsed)
        if switch is not None:
            found = switch[0]
    return found


def branch_after(command: str, output: str, failed: "bool | None") -> str | None:
    """The branch `command` left checked out, or None when it switched none or we cannot tell.

    What git printed decides ("Switched to branch 'x'", "Already on 'x'": the last one is where HEAD is), so a
    checkout that failed, a file checkout and a detached HEAD record nothing. A quiet switch prints nothing: it
    counts when it is the chain's last switch, the call did not fail (`failed` False, or None: not told) and the
    output shows no git failure line."""
    switches = []
    for parsed in _gits(command):
        switch = _switch_target(*parsed)
        if switch is not None:
            switches.append(switch)
    if not switches:
        return None
    ok = failed is not True and not _GIT_FAILED.search(output)
    target, quiet = switches[-1]
    if quiet and ok and target:
        return target
    said = _SWITCHED.findall(output)
    if said:
        return said[-1]
    if ok and target and not output.strip():  # git's output was not given to us at all
        return target
    return None


def _message(args: list[str]) -> str:
    """The subject of a `git commit` message given on the command line (-m, --message, a heredoc in "$(…)")."""
    for i, word in enumerate(args):
        value = None
        if word in ("-m", "--message") and i + 1 < len(args):
            value = args[i + 1]
        elif word.startswith("--message="):
            value = word.split("=", 1)[1]
        elif word.startswith("-") and not word.startswith("--") and "m" in word[1:]:
            flags = word[1:]  # -am "msg", -qm "msg", -m"msg"
            at = flags.index("m")
            value = flags[at + 1:] or (args[i + 1] if i + 1 < len(args) else None)
        if value is None:
            continue
        lines = value.splitlines()
        if value.startswith("$(") and "<<" in lines[0]:
            delimiter = lines[0].split("<<", 1)[1].strip().strip("'\"-")
            lines = [ln for ln in lines[1:] if ln.strip() not in (delimiter, ")", f"{delimiter})")]
        subject = next((ln.strip() for ln in lines if ln.strip()), "")
        if subject:
            return subject
    return ""


def commits(command: str, output: str, failed: "bool | None") -> list[tuple[str, str, str]]:
    """(branch, sha, subject) of each commit `command` made: git's `[branch sha] subject` lines, else, for a quiet
    commit (`-q` prints none) of a call that did not fail and shows no git failure line, the subject from its command line ("" branch and sha)."""
    found = _COMMIT_OUT.findall(output)
    parsed = [p for p in _gits(command) if p[0] == "commit"]
    if not parsed:
        return []
    if found:
        return [(b, sha, msg) for b, sha, msg in found]
    if failed is True or _GIT_FAILED.search(output):
        return []
    return [("", "", _message(args) or "(message not on the command line)") for _, args in parsed]
