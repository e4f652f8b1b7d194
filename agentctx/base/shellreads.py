"""The files a shell line reads, from its parsed commands (base/shell.py): where a rule reaches the model with the file.

    reads(line: shell.Line, isfile=None) -> tuple[str, ...]

The agent reads a file before it changes it: Codex CLI through the shell (`sed -n 1,200p f`, `cat f`, `nl -ba f`,
`rg -n pat f`), and what the pre-action hook returns for that call reaches the model with the file (SPEC §4.11).
Read as reads: `cat`, `nl`, `less`, `more`, `bat`/`batcat`, `head`, `tail`, `sed` without `-i` (its files after the
script), `grep`/`egrep`/`fgrep`/`rg` (the operands after the pattern), `wc`, `git show REV:path`, `git diff ... --
path`, `git blame path`, `git log ... -- path`, and an input redirection `< f`. Paths as the line names them (relative
to its working directory or absolute), each once, in order; a word that is not plain text (`$f`, `$(...)`) or a glob
is left out. `isfile`: a check that drops operands that are not files (`rg x src/` reads no file in particular).
"""

from . import shell as _shell

# tool -> (short options taking a value, long options taking a value)
_VALUES: "dict[str, tuple[str, frozenset[str]]]" = {
    "head": ("nc", frozenset({"--lines", "--bytes"})),
    "tail": ("ncs", frozenset({"--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"})),
    "nl": ("bdfhilnsvw", frozenset({"--body-numbering", "--section-delimiter", "--footer-numbering",
                                    "--header-numbering", "--line-increment", "--join-blank-lines",
                                    "--number-format", "--number-separator", "--starting-line-number",
                                    "--number-width"})),
    "sed": ("efl", frozenset({"--expression", "--file", "--line-length"})),
    "grep": ("efABCmdD", frozenset({"--regexp", "--file", "--after-context", "--before-context", "--context",
                                    "--max-count", "--directories", "--devices", "--label", "--include", "--exclude",
                                    "--exclude-dir", "--color", "--colour", "--binary-files"})),
    "rg": ("efABCmgtTMjE", frozenset({"--regexp", "--file", "--after-context", "--before-context", "--context",
                                      "--max-count", "--glob", "--iglob", "--type", "--type-not", "--max-columns",
                                      "--threads", "--encoding", "--colors", "--sort", "--sortr", "--replace",
                                      "--max-depth", "--type-add", "--pre", "--pre-glob"})),
    "bat": ("lrHmpL", frozenset({"--language", "--line-range", "--highlight-line", "--map-syntax", "--style",
                                 "--theme", "--tabs", "--wrap", "--terminal-width", "--color", "--paging"})),
    "less": ("bhjkoOpPtTxyz", frozenset()),
    "git": ("Cc", frozenset({"--git-dir", "--work-tree", "--namespace", "--exec-path"})),
}
_ALIASES = {"egrep": "grep", "fgrep": "grep", "batcat": "bat", "more": "less", "ripgrep": "rg", "zcat": "cat",
            "wc": "cat", "cat": "cat"}
_PLAIN = ("cat", "nl", "less", "head", "tail", "bat")
_GLOB = frozenset("*?[]{}")


def _plain(word: str) -> bool:
    """A word that names one file as written: no expansion, no substitution, no glob."""
    return bool(word) and "$" not in word and "`" not in word and not (_GLOB & set(word)) and len(word) <= 4096


def _split(words: "tuple[str, ...]", tool: str) -> "tuple[list[str], set[str]]":
    """(positional arguments, options given) of a command's arguments; the values of options are skipped."""
    shorts, longs = _VALUES.get(tool, ("", frozenset()))
    positional: list[str] = []
    options: set[str] = set()
    i, n = 0, len(words)
    while i < n:
        w = words[i]
        i += 1
        if w == "--":
            positional.extend(words[i:])
            options.add("--")
            break
        if w.startswith("--") and len(w) > 2:
            name, eq, _ = w.partition("=")
            options.add(name)
            if not eq and name in longs:
                i += 1
            continue
        if w.startswith("-") and len(w) > 1:
            if w[1].isdigit():  # `head -5`
                continue
            for j, c in enumerate(w[1:], 1):
                options.add("-" + c)
                if c in shorts:
                    if j == len(w) - 1:
                        i += 1  # the value is the next word
                    break
            continue
        positional.append(w)
    return positional, options


def _git(args: "tuple[str, ...]") -> list[str]:
    positional, options = _split(args, "git")
    if not positional:
        return []
    sub, rest = positional[0], args[args.index(positional[0]) + 1:]
    if sub == "show":
        return [w.split(":", 1)[1] for w in rest if ":" in w and not w.startswith("-") and w.split(":", 1)[1]]
    if sub in ("diff", "log", "blame", "annotate"):
        if "--" in rest:
            return list(rest[rest.index("--") + 1:])
        if sub in ("blame", "annotate"):
            files = [w for w in rest if not w.startswith("-")]
            return files[-1:]
    return []


def _command(cmd: "object") -> list[str]:
    words = getattr(cmd, "words", ())
    found = [r.target for r in getattr(cmd, "redirects", ()) if r.op == "<"]
    if not words:
        return found
    tool = _ALIASES.get(words[0], words[0])
    args = tuple(words[1:])
    if tool == "git":
        found += _git(args)
    elif tool in _PLAIN:
        found += [w for w in _split(args, tool)[0]]
    elif tool == "sed":
        positional, options = _split(args, "sed")
        if any(o in options for o in ("-i", "--in-place")) or any(w.startswith(("-i", "--in-place")) for w in args):
            return found  # an edit, not a read (base/shellpaths.py)
        scripted = any(o in options for o in ("-e", "--expression", "-f", "--file"))
        found += positional if scripted else positional[1:]
    elif tool in ("grep", "rg"):
        positional, options = _split(args, tool)
        patterned = any(o in options for o in ("-e", "--regexp", "-f", "--file"))
        found += positional if patterned else positional[1:]
    return found


def reads(line: "object", isfile: "object" = None) -> "tuple[str, ...]":
    """The files the commands of a parsed line read, each once, in order (`isfile`: keep only files)."""
    out: list[str] = []
    for cmd in getattr(line, "commands", ()):
        for path in _command(cmd):
            if _plain(path) and path not in out and (isfile is None or isfile(path)):  # type: ignore[operator]
                out.append(path)
    return tuple(out)


def line_reads(text: str, isfile: "object" = None) -> "tuple[str, ...]":
    """`reads` of a shell line given as text."""
    return reads(_shell.parse(text), isfile)
