"""The files a shell line writes, read from its parsed commands (base/shell.py): what a path guard checks; and the
files it reads, where a rule reaches the model with the file (`reads`, at the end).

    writes(line: shell.Line) -> tuple[str, ...]
    reads(line: shell.Line, isfile=callable) -> tuple[str, ...]

    writes(line, isdir=callable)  # is this destination a folder? (`cp a.sql migrations` writes migrations/a.sql)

Paths as the line names them (relative to its working directory, or absolute; a glob stays a glob, `migrations/*`),
each once, in order. Pure unless given `isdir`: a copy's destination is given as itself, and with each source's name
under it when it is a folder (`isdir(dest)`, a trailing `/`, `-t dir`, or several sources). Read as writes:
- redirections `>`, `>>`, `>|`, `&>`, `&>>`, `N>`, `<>`, `>&file` (not `/dev/null`, not `2>&1`); `chmod`, `chown`;
- `sed -i` (GNU and BSD), `perl -i`/`-pi`, `gawk -i inplace`, `tee [-a]`, `cp`/`install` destinations, `mv`
  destinations and sources (they vanish), `ln` link names, `rm`, `rmdir`, `unlink`, `shred`, `touch`, `truncate`,
  `mkdir`, `dd of=`, `curl -o`, `wget -O`, `git checkout [REV] [--] f`, `git restore f`, `git rm`/`git mv`;
- formatters that rewrite in place (`black`, `prettier --write`, `gofmt -w`, `clang-format -i`, `ruff format`,
  `ruff check --fix`, `eslint --fix`, `isort`, `autopep8 -i`, `yq -i`);
- `patch`/`git apply`/`apply_patch` fed a patch as a here-document: the files its headers name; `git reset --hard`
  and `git clean -f` (the paths named, else the whole tree `.`), `tar -x [-C dir]`, `unzip [-d dir]`, `rsync`/`scp`
  destinations;
- `python -c CODE`, `python - <<EOF`, `node -e CODE`: only a path that is plain in the code (a string literal given to
  `open(..., "w"/"a"/"x")`, `Path("...").write_text`/`write_bytes`/`unlink`/`touch`, `os.remove`, `shutil.rmtree`,
  `writeFileSync`, ...).
A word that is not plain text (`$f`, `$(...)`) names no path it can be sure of and is left out.
"""

from . import shell as _shell

_NO_FILE = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"})
# tool -> (short options taking a value, long options taking a value)
_VALUES: "dict[str, tuple[str, frozenset[str]]]" = {
    "cp": ("St", frozenset({"--target-directory", "--suffix", "--backup", "--sparse", "--reflink"})),
    "mv": ("St", frozenset({"--target-directory", "--suffix", "--backup"})),
    "install": ("gmoStC", frozenset({"--group", "--mode", "--owner", "--suffix", "--target-directory"})),
    "ln": ("St", frozenset({"--target-directory", "--suffix", "--backup"})),
    "rm": ("", frozenset()),
    "touch": ("dtr", frozenset({"--date", "--reference", "--time"})),
    "truncate": ("sr", frozenset({"--size", "--reference"})),
    "mkdir": ("m", frozenset({"--mode", "--context"})),
    "tee": ("", frozenset({"--output-error"})),
    "sed": ("efl", frozenset({"--expression", "--file", "--line-length"})),
    "curl": ("odHXuAeTwFrKxmCbcE", frozenset({"--output", "--data", "--header", "--request", "--user", "--form",
                                              "--user-agent", "--referer", "--upload-file", "--config", "--cookie"})),
}
# The readers (`reads`): their options that take a value.
_VALUES.update({
    "head": ("nc", frozenset({"--lines", "--bytes"})),
    "tail": ("ncs", frozenset({"--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"})),
    "nl": ("bdfhilnsvw", frozenset({"--body-numbering", "--section-delimiter", "--footer-numbering",
                                    "--header-numbering", "--line-increment", "--join-blank-lines",
                                    "--number-format", "--number-separator", "--starting-line-number",
                                    "--number-width"})),
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
})
_PY_CALLS = ("write_text(", "write_bytes(", "unlink(", "touch(", "rmdir(", "mkdir(")
_PY_FUNCS = ("os.remove(", "os.unlink(", "shutil.rmtree(", "os.rmdir(", "shutil.copy(", "shutil.copyfile(",
             "shutil.copy2(", "shutil.move(", "os.rename(", "os.replace(", "writeFileSync(", "appendFileSync(",
             "rmSync(", "unlinkSync(", "writeFile(", "appendFile(", "rm(", "unlink(")
_PATCH_HEADS = ("+++ ", "--- ", "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
_FORMATTERS = {"black": "", "isort": "", "rustfmt": "", "autopep8": "-i|--in-place", "gofmt": "-w",
               "clang-format": "-i", "prettier": "--write|-w", "eslint": "--fix", "yq": "-i|--inplace"}
CODE_SCAN = 32_000  # characters of inline code searched for file names


def _split(words: "tuple[str, ...]", tool: str) -> "tuple[list[str], set[str]]":
    """(positional arguments, options given) of a command's arguments; options' values are skipped."""
    shorts, longs = _VALUES.get(tool, ("", frozenset()))
    positional: list[str] = []
    options: set[str] = set()
    i, n = 0, len(words)
    while i < n:
        w = words[i]
        i += 1
        if w == "--":
            positional.extend(words[i:])
            break
        if w.startswith("--"):
            name = w.split("=", 1)[0]
            options.add(name)
            if "=" in w:
                options.add(w)
            elif name in longs and i < n:
                options.add(name + "=" + words[i])
                i += 1
        elif w.startswith("-") and len(w) > 1:
            for k, letter in enumerate(w[1:], 1):
                options.add("-" + letter)
                if letter in shorts:
                    value = w[k + 1:]
                    if not value and i < n:
                        value = words[i]
                        i += 1
                    options.add("-" + letter + "=" + value)
                    break
        else:
            positional.append(w)
    return positional, options


def _value(options: "set[str]", *names: str) -> str:
    for o in options:
        for name in names:
            if o.startswith(name + "="):
                return o[len(name) + 1:]
    return ""


def _copy(tool: str, args: "tuple[str, ...]", isdir: "object") -> list[str]:
    positional, options = _split(args, tool)
    target = _value(options, "-t", "--target-directory")
    if "-d" in options and tool == "install":
        return positional
    sources = positional if target else positional[:-1]
    dest = target or (positional[-1] if len(positional) > 1 else "")
    if not dest:
        return []
    folder = bool(target) or dest.endswith("/") or len(sources) > 1 or bool(callable(isdir) and isdir(dest))
    out = [dest]
    if folder:
        out += [dest.rstrip("/") + "/" + s.rstrip("/").rsplit("/", 1)[-1] for s in sources if s]
    if tool == "mv":
        out += sources
    return out


def _sed(args: "tuple[str, ...]") -> list[str]:
    inplace = any(a == "-i" or a.startswith(("-i", "--in-place")) or
                  (a.startswith("-") and not a.startswith("--") and "i" in a[1:] and "e" not in a[1:a.find("i")])
                  for a in args)
    if not inplace:
        return []
    cleaned = [a for k, a in enumerate(args) if not (a == "" and k and args[k - 1] == "-i")]  # BSD `-i ''`
    positional, options = _split(tuple(cleaned), "sed")
    scripted = any(o.startswith(("-e=", "-f=", "--expression", "--file")) for o in options)
    return positional if scripted else positional[1:]


def _perl(args: "tuple[str, ...]") -> list[str]:
    inplace, scripted, positional = False, False, []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a.startswith("-") and len(a) > 1 and not a.startswith("--"):
            for k, letter in enumerate(a[1:], 1):
                if letter == "i":
                    inplace = True
                    break  # the rest is the backup suffix
                if letter in "eE":
                    scripted = True
                    if k == len(a) - 1:
                        i += 1
                    break
                if letter in "MmIlx0":
                    break
        elif a == "--":
            positional.extend(args[i:])
            break
        else:
            positional.append(a)
    if not inplace:
        return []
    return positional if scripted else positional[1:]


def _git(args: "tuple[str, ...]") -> list[str]:
    from .cmdpattern import git_subcommand

    sub, rest = git_subcommand(args)
    if sub == "reset" and "--hard" in rest or sub == "clean" and any(
            a.startswith("-") and not a.startswith("--") and "f" in a or a == "--force" for a in rest):
        named = list(rest[rest.index("--") + 1:]) if "--" in rest else \
            ([p for p in _split(rest, "git")[0]][1:] if sub == "reset" else _split(rest, "git")[0])
        return named or ["."]  # the whole working tree
    if sub in ("checkout", "restore", "rm", "mv"):
        if "--" in rest:
            return [a for a in rest[rest.index("--") + 1:]]
        positional, options = _split(rest, "git")
        if sub == "checkout":
            if options & {"-b", "-B", "--orphan"}:
                return []
            return positional[1:]
        if sub == "restore":
            return [p for p in positional if not p.startswith("-")]
        return positional
    return []


def _patch_files(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        for head in _PATCH_HEADS:
            if line.startswith(head):
                path = line[len(head):].split("\t", 1)[0].strip()
                if head in ("+++ ", "--- "):
                    if path == "/dev/null":
                        path = ""
                    elif path[:2] in ("a/", "b/"):
                        path = path[2:]
                if path:
                    out.append(path)
        if line.startswith("diff --git "):
            parts = line[11:].split()
            out += [p[2:] for p in parts if p[:2] in ("a/", "b/")]
    return out


def _literal_after(code: str, at: int) -> str:
    """The string literal starting at code[at] (spaces skipped), or ""."""
    while at < len(code) and code[at] in " \t\n":
        at += 1
    if at >= len(code) or code[at] not in "'\"":
        return ""
    quote = code[at]
    end = code.find(quote, at + 1)
    if end < 0 or "\n" in code[at:end]:
        return ""
    return code[at + 1:end]


def _code_writes(code: str) -> list[str]:
    """Paths plain in inline Python or JavaScript that the code writes, removes or moves."""
    code = code[:CODE_SCAN]
    out: list[str] = []
    at = code.find("open(")
    while at >= 0:
        path = _literal_after(code, at + 5)
        if path:
            close = code.find(")", at)
            args = code[at + 5:close if close >= 0 else len(code)]
            rest = args.split(",", 1)[1] if "," in args else ""
            mode = _literal_after(rest, 0) or (_literal_after(rest, rest.find("=") + 1) if "mode" in rest else "")
            if any(m in mode for m in "wax+"):
                out.append(path)
        at = code.find("open(", at + 1)
    for call in _PY_CALLS:  # Path("x").write_text(...)
        at = code.find(")." + call)
        while at >= 0:
            start = code.rfind("(", 0, at)
            path = _literal_after(code, start + 1) if start >= 0 else ""
            if path:
                out.append(path)
            at = code.find(")." + call, at + 1)
    for func in _PY_FUNCS:
        at = code.find(func)
        while at >= 0:
            if at == 0 or not (code[at - 1].isalnum() or code[at - 1] == "_") or "." in func:
                args = code[at + len(func):at + len(func) + 400]
                first = _literal_after(args, 0)
                if first:
                    out.append(first)
                if func.startswith(("shutil.copy", "shutil.move", "os.rename", "os.replace")) and "," in args:
                    second = _literal_after(args, args.find(",") + 1)
                    if second:
                        out.append(second)
            at = code.find(func, at + 1)
    return out


def _formatter(tool: str, words: "tuple[str, ...]") -> list[str]:
    if tool == "ruff":
        if len(words) < 2 or not (words[1] == "format" or (words[1] == "check" and "--fix" in words)):
            return []
        words = words[1:]
    elif tool not in _FORMATTERS:
        return []
    need = _FORMATTERS.get(tool, "")
    if need and not any(w in need.split("|") for w in words[1:]):
        return []
    positional, _opts = _split(words[1:], tool)
    if tool == "yq":
        positional = positional[1:]
    return positional


def _command(cmd: "object", isdir: "object") -> list[str]:
    words: "tuple[str, ...]" = cmd.words  # type: ignore[attr-defined]
    out: list[str] = []
    for op, target in cmd.redirects:  # type: ignore[attr-defined]
        if op.endswith(("<<", "<<-", "<<<")) or op.endswith("<") or op.endswith("<&"):
            continue
        if op.endswith(">&") and (target.isdigit() or target == "-"):
            continue
        if target and target not in _NO_FILE:
            out.append(target)
    if not words:
        return out
    tool, args = words[0], words[1:]
    if tool in ("cp", "mv", "install", "ln"):
        out += _copy(tool, args, isdir)
    elif tool in ("rm", "rmdir", "unlink", "shred", "touch", "truncate", "mkdir", "tee"):
        out += _split(args, tool)[0]
    elif tool in ("chmod", "chown", "chgrp", "chattr"):
        out += _split(args, tool)[0][1:] if not any(a.startswith("--reference") for a in args) else \
            _split(args, tool)[0]
    elif tool == "sed":
        out += _sed(args)
    elif tool == "perl":
        out += _perl(args)
    elif tool in ("awk", "gawk") and "inplace" in args:
        positional = _split(tuple(a for a in args if a != "inplace"), "awk")[0]
        out += positional[1:]
    elif tool == "find" and any(a in ("-delete", "-exec", "-execdir", "-ok", "-okdir") for a in args):
        out += [a for a in args[:next((k for k, a in enumerate(args) if a[:1] in "-(!"), len(args))]]
    elif tool in ("tar", "bsdtar") and args and ("x" in args[0].lstrip("-") or "--extract" in args or "-x" in args):
        out += [args[k + 1] for k, a in enumerate(args[:-1]) if a in ("-C", "--directory")] or ["."]
    elif tool == "unzip":
        out += [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-d"] or ["."]
    elif tool in ("rsync", "scp"):
        positional = [a for a in args if not a.startswith("-")]
        out += positional[-1:] if len(positional) > 1 and ":" not in positional[-1] else []
    elif tool == "dd":
        out += [a[3:] for a in args if a.startswith("of=")]
    elif tool == "curl":
        out += [v for o in _split(args, "curl")[1] for v in [o[3:] if o.startswith("-o=") else ""] if v]
        out += [args[k + 1] for k, a in enumerate(args[:-1]) if a == "--output"]
    elif tool == "wget":
        out += [args[k + 1] for k, a in enumerate(args[:-1]) if a in ("-O", "--output-document")]
        out += [a.split("=", 1)[1] for a in args if a.startswith("--output-document=")]
    elif tool == "git":
        out += _git(args)
        if "apply" in args[:4]:
            out += _patch_files(cmd.heredoc)  # type: ignore[attr-defined]
    elif tool in ("patch", "apply_patch", "applypatch"):
        out += _patch_files(cmd.heredoc + "\n" + ("\n".join(args) if tool != "patch" else ""))  # type: ignore[attr-defined]
        if tool == "patch":
            positional = [a for a in args if not a.startswith("-")]
            out += positional[:1]
    elif tool.startswith("python") or tool in ("node", "deno", "bun"):
        flag = "-c" if tool.startswith("python") else "-e"
        if flag in args and args.index(flag) + 1 < len(args):
            out += _code_writes(args[args.index(flag) + 1])
        elif cmd.heredoc and (not args or args[0] == "-"):  # type: ignore[attr-defined]
            out += _code_writes(cmd.heredoc)  # type: ignore[attr-defined]
    else:
        out += _formatter(tool, words)
    return out


def _join(folder: str, path: str) -> str:
    if not folder or path.startswith("/"):
        return path
    return folder.rstrip("/") + "/" + path


def writes(line: "object", isdir: "object" = None, root: str = "") -> "tuple[str, ...]":
    """The files a parsed shell line writes (module docstring), each once, in order; a `cd DIR` (or `pushd`)
    earlier in the line, at the same nesting or above, is where the later relative paths start from (`cd x &&
    rm a` writes `x/a`). A `cd` to somewhere not plain (`cd $(git rev-parse --show-toplevel)`) changes nothing.
    Braces are expanded (`{a,b}`); `$PWD/x` is where the line runs, and with `root`, `$(git rev-parse
    --show-toplevel)/x` is the repository's."""
    found: dict[str, None] = {}
    folders: "dict[int, str]" = {}  # depth -> the folder a `cd` at that depth moved to
    for cmd in line.commands:  # type: ignore[attr-defined]
        depth = cmd.depth
        for d in [d for d in folders if d > depth]:
            del folders[d]
        here = next((folders[d] for d in sorted(folders, reverse=True) if d <= depth), "")
        if cmd.words[:1] in (("cd",), ("pushd",)):
            dest = [_known_start(w, root) for w in cmd.words[1:] if not w.startswith("-")]
            if dest and "$" not in dest[0] and "`" not in dest[0] and not dest[0].startswith("~"):
                folders[depth] = _join(here, dest[0])
            continue
        probe = (lambda p: isdir(_join(here, p))) if callable(isdir) else None
        for named in _command(cmd, probe):
            for path in _braces(_known_start(named, root)):
                if path and "$" not in path and "`" not in path and path not in _NO_FILE and path != "{}":
                    found.setdefault(_join(here, path), None)
    return tuple(found)


# Expansions at the start of a path that name where the line runs (`$PWD/x`) or the repository (`$(git rev-parse
# --show-toplevel)/x`): the path is known.
_HERE = ("${PWD}", "$PWD", "$(pwd)", "`pwd`", "$(pwd -P)")
_TOPLEVEL = ("$(git rev-parse --show-toplevel)", "`git rev-parse --show-toplevel`")
BRACES_MAX = 64


def _known_start(path: str, root: str) -> str:
    for start in _HERE:
        if path.startswith(start) and path[len(start):len(start) + 1] in ("", "/"):
            return "." + path[len(start):]
    for start in _TOPLEVEL:
        if root and path.startswith(start) and path[len(start):len(start) + 1] in ("", "/"):
            return root.rstrip("/") + path[len(start):]
    return path


def _braces(word: str) -> "list[str]":
    """Bash's brace expansion of a path (`migrations/{a,b}.sql`, nested too), at most BRACES_MAX results."""
    out: list[str] = []
    todo = [word]
    while todo and len(out) + len(todo) <= BRACES_MAX:
        w = todo.pop(0)
        start = w.find("{")
        level, end, commas = 0, -1, []
        for k in range(start, len(w)) if start >= 0 else ():
            if w[k] == "{":
                level += 1
            elif w[k] == "}":
                level -= 1
                if level == 0:
                    end = k
                    break
            elif w[k] == "," and level == 1:
                commas.append(k)
        if start < 0 or end < 0 or not commas:
            out.append(w)
            continue
        cuts = [start, *commas, end]
        todo += [w[:start] + w[a + 1:b] + w[end + 1:] for a, b in zip(cuts, cuts[1:])]
    return out + todo[:max(0, BRACES_MAX - len(out))] if todo else out


def patch_inputs(line: "object") -> "tuple[str, ...]":
    """The patch files a line applies (`git apply x.patch`, `patch -p1 < x.patch`, `patch -i x.patch`): the caller
    may read them (bounded) for the files their headers name (`patch_files`)."""
    out: list[str] = []
    for cmd in line.commands:  # type: ignore[attr-defined]
        words = cmd.words
        if words[:1] == ("patch",):
            out += [words[k + 1] for k, w in enumerate(words[:-1]) if w in ("-i", "--input")]
            out += [t for op, t in cmd.redirects if op == "<"]
        elif words[:1] == ("git",) and "apply" in words[1:4]:
            after = words[words.index("apply") + 1:]
            out += [w for w in after if not w.startswith("-")]
    return tuple(p for p in out if p and "$" not in p)


def patch_files(text: str) -> "list[str]":
    """The files a unified diff or an apply_patch text names in its headers."""
    return _patch_files(text)


def line_writes(text: str, isdir: "object" = None, root: str = "") -> "tuple[str, ...]":
    """writes() of a shell line given as text."""
    return writes(_shell.parse(text), isdir, root)


# --- reads ----------------------------------------------------------------------------------------------------------
# The agent reads a file before it changes it, Codex CLI through the shell (`sed -n 1,200p f`, `cat f`, `nl -ba f`,
# `rg -n pat f`); what the pre-action hook returns for that call reaches the model with the file (SPEC §4.11). Read
# as reads: `cat`, `nl`, `less`/`more`, `bat`, `head`, `tail`, `wc`, `sed` without `-i` (its files after the
# script), `grep`/`rg` (the operands after the pattern), `git show REV:path`, `git diff|log ... -- path`, `git blame
# path`, and an input redirection `< f`. A word that is not plain text or is a glob is left out.
_READERS = {"egrep": "grep", "fgrep": "grep", "batcat": "bat", "more": "less", "zcat": "cat", "wc": "cat"}
_PLAIN_READERS = frozenset({"cat", "nl", "less", "head", "tail", "bat"})
_GLOB = frozenset("*?[]{}")


def _git_reads(args: "tuple[str, ...]") -> list[str]:
    from .cmdpattern import git_subcommand

    sub, rest = git_subcommand(args)
    if sub == "show":
        return [w.split(":", 1)[1] for w in rest if ":" in w and not w.startswith("-")]
    if sub in ("diff", "log", "blame", "annotate"):
        if "--" in rest:
            return list(rest[rest.index("--") + 1:])
        if sub in ("blame", "annotate"):
            return [w for w in rest if not w.startswith("-")][-1:]
    return []


def _reads_of(cmd: "object") -> list[str]:
    words: "tuple[str, ...]" = cmd.words  # type: ignore[attr-defined]
    found = [t for op, t in cmd.redirects if op == "<"]  # type: ignore[attr-defined]
    if not words:
        return found
    tool, args = _READERS.get(words[0], words[0]), tuple(words[1:])
    if tool == "git":
        found += _git_reads(args)
    elif tool in _PLAIN_READERS:
        found += _split(args, tool)[0]
    elif tool == "sed" and not _sed(args) and not any(a.startswith(("-i", "--in-place")) for a in args):
        positional, options = _split(args, "sed")
        scripted = any(o.startswith(("-e=", "-f=", "--expression", "--file")) for o in options)
        found += positional if scripted else positional[1:]
    elif tool in ("grep", "rg"):
        positional, options = _split(args, tool)
        patterned = any(o.startswith(("-e=", "-f=", "--regexp", "--file")) for o in options)
        found += positional if patterned else positional[1:]
    return found


def _walk(line: "object", root: str) -> "list[tuple[object, str]]":
    """Each command of a parsed line with the folder its relative paths start from (a `cd`/`pushd` earlier in the
    line, as `writes` reads them)."""
    out: "list[tuple[object, str]]" = []
    folders: "dict[int, str]" = {}
    for cmd in line.commands:  # type: ignore[attr-defined]
        for d in [d for d in folders if d > cmd.depth]:
            del folders[d]
        here = next((folders[d] for d in sorted(folders, reverse=True) if d <= cmd.depth), "")
        if cmd.words[:1] in (("cd",), ("pushd",)):
            dest = [_known_start(w, root) for w in cmd.words[1:] if not w.startswith("-")]
            if dest and "$" not in dest[0] and "`" not in dest[0] and not dest[0].startswith("~"):
                folders[cmd.depth] = _join(here, dest[0])
            continue
        out.append((cmd, here))
    return out


def reads(line: "object", isfile: "object" = None, root: str = "") -> "tuple[str, ...]":
    """The files a parsed shell line reads, each once, in order (from where its `cd` went); `isfile` keeps only the
    operands that are files (`rg x src/` reads no file in particular)."""
    found: dict[str, None] = {}
    for cmd, here in _walk(line, root):
        for named in _reads_of(cmd):
            path = _join(here, _known_start(named, root))
            if (path and len(path) <= 4096 and "$" not in path and "`" not in path and not (_GLOB & set(path))
                    and path not in _NO_FILE and (isfile is None or isfile(path))):  # type: ignore[operator]
                found.setdefault(path, None)
    return tuple(found)


def line_reads(text: str, isfile: "object" = None, root: str = "") -> "tuple[str, ...]":
    """reads() of a shell line given as text."""
    return reads(_shell.parse(text), isfile, root)
