"""What a shell command line did with git, read with the output git printed: the branch it left checked out and the
commits it made. Every segment of a chained command counts (`&&`, `||`, `;`, `|`, newlines), in order."""

from __future__ import annotations

import re

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


def segments(command: str) -> list[str]:
    """The simple commands of a command line, in order: split at `&&`, `||`, `;`, `|`, `&` and newlines outside
    quotes (a heredoc commit message inside "$(…)" stays whole)."""
    out: list[str] = []
    start, i, quote, depth = 0, 0, "", 0
    n = len(command)
    while i < n:
        c = command[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
            elif c == "(" and quote == '"' and command[i - 1:i] == "$":
                depth += 1
            elif c == ")" and depth:
                depth -= 1
        elif c in "'\"":
            quote = c
        elif c == "(" and command[i - 1:i] == "$":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif c == "&" and (command[i - 1:i] in ("<", ">") or command[i + 1:i + 2] == ">"):
            pass  # a redirection (`2>&1`, `&>file`), not a background `&`
        elif not depth and c in ";|&\n":
            out.append(command[start:i])
            i += 2 if command[i:i + 2] in ("&&", "||") else 1
            start = i
            continue
        i += 1
    out.append(command[start:])
    return [s.strip() for s in out if s.strip()]


def _words(segment: str) -> list[str]:
    """A simple command's words as the shell reads them: quotes removed ('…' literal, "…" with backslash escapes),
    a backslash outside quotes escaping the next character; `$(…)` inside "…" kept as text. Not `shlex`: ~6 ms of
    import on the PostToolUse hook's path."""
    words: list[str] = []
    word, have, quote, i = [], False, "", 0
    while i < len(segment):
        c = segment[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                word.append(c)
        elif quote == '"':
            if c == '"':
                quote = ""
            elif c == "\\" and segment[i + 1:i + 2] in ('"', "\\", "$", "`"):
                i += 1
                word.append(segment[i])
            else:
                word.append(c)
        elif c in "'\"":
            quote, have = c, True
        elif c == "\\" and i + 1 < len(segment):
            i += 1
            word.append(segment[i])
            have = True
        elif c in " \t\n":
            if word or have:
                words.append("".join(word))
            word, have = [], False
        else:
            word.append(c)
        i += 1
    if word or have:
        words.append("".join(word))
    return words


def _git(segment: str) -> "tuple[str, list[str]] | None":
    """(subcommand, its arguments) of a segment that runs git, else None. Leading `VAR=value` words are skipped."""
    if "git" not in segment:
        return None
    words = _words(segment)
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]
    if not words or words[0] not in ("git", "/usr/bin/git"):
        return None
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _GLOBAL_WITH_VALUE else 1
    return (words[i], words[i + 1:]) if i < len(words) else None


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
    for segment in segments(command):
        parsed = _git(segment)
        switch = _switch_target(*parsed) if parsed else None
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
    for segment in segments(command):
        parsed = _git(segment)
        switch = _switch_target(*parsed) if parsed else None
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
    parsed = [p for p in (_git(s) for s in segments(command)) if p and p[0] == "commit"]
    if not parsed:
        return []
    if found:
        return [(b, sha, msg) for b, sha, msg in found]
    if failed is True or _GIT_FAILED.search(output):
        return []
    return [("", "", _message(args) or "(message not on the command line)") for _, args in parsed]
