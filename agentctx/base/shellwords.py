"""The words of one simple command as the shell and its wrappers read them (base/shell.py's helpers): the wrappers
and their options, assignments, `$'…'` escapes, unquoted expansions, a shell's `-c` string."""

NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

# Wrappers: name -> (short options taking a value, long options taking a value, positional arguments before the
# command). `env` and `sudo` may be followed by assignments; `env -S` and `xargs`'s command are read on.
WRAPPERS: "dict[str, tuple[str, frozenset[str], int]]" = {
    "env": ("uCSP", frozenset({"--unset", "--chdir", "--split-string", "--block-signal", "--default-signal",
                               "--ignore-signal"}), 0),
    "sudo": ("ugCDhpRrTtU", frozenset({"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role",
                                       "--type", "--command-timeout", "--other-user"}), 0),
    "doas": ("uC", frozenset(), 0),
    "command": ("", frozenset(), 0),
    "builtin": ("", frozenset(), 0),
    "exec": ("a", frozenset(), 0),
    "nohup": ("", frozenset(), 0),
    "time": ("fo", frozenset({"--format", "--output"}), 0),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"}), 1),
    "nice": ("n", frozenset({"--adjustment"}), 0),
    "ionice": ("cnpPu", frozenset({"--class", "--classdata", "--pid", "--pgid", "--uid"}), 0),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"}), 0),
    "xargs": ("adEILnPs", frozenset({"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args",
                                     "--max-procs", "--max-chars", "--process-slot-var"}), 0),
    "chronic": ("", frozenset(), 0),
    "unbuffer": ("", frozenset(), 0),
    "noglob": ("", frozenset(), 0),
    "nocorrect": ("", frozenset(), 0),
    "watch": ("nqd", frozenset({"--interval", "--differences"}), 0),
    "setsid": ("", frozenset(), 0),
    "caffeinate": ("tw", frozenset(), 0),
    "taskset": ("", frozenset(), 1),  # `taskset 0x3 cmd` (`-c 0,1 cmd`: the list is its one positional)
    "chrt": ("", frozenset(), 1),
    "runuser": ("ugl", frozenset({"--user", "--group"}), 0),
}
# Commands that run their `-c` string through a shell (`su -c "…"`, `script -qc "…" /dev/null`, `flock f -c "…"`).
C_RUNNERS = frozenset({"su", "script", "flock", "runuser"})


ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", "\\": "\\", '"': '"', "a": "\a", "b": "\b", "e": "\x1b",
            "E": "\x1b", "f": "\f", "v": "\v", "?": "?"}


def ansi_escape(s: str, k: int) -> "tuple[str, int]":
    r"""The character a `$'…'` escape at s[k] (after its backslash) stands for, and how many characters it took:
    `\n`, `\xHH`, `\NNN` (octal), `\uHHHH`, `\UHHHHHHHH` (`$'\x2df'` is `-f`)."""
    c = s[k]
    if c in ESCAPES:
        return ESCAPES[c], 1
    for lead, width, base in (("x", 2, 16), ("u", 4, 16), ("U", 8, 16)):
        if c == lead:
            digits = ""
            while len(digits) < width and k + 1 + len(digits) < len(s) and \
                    s[k + 1 + len(digits)] in "0123456789abcdefABCDEF":
                digits += s[k + 1 + len(digits)]
            if digits:
                code = int(digits, base)
                return (chr(code) if code < 0x110000 else "?"), 1 + len(digits)
    if c in "01234567":
        digits = c
        while len(digits) < 3 and k + len(digits) < len(s) and s[k + len(digits)] in "01234567":
            digits += s[k + len(digits)]
        return chr(int(digits, 8) & 0xFF), len(digits)
    return "\\" + c, 1


def bare_expansion(raw: str) -> bool:
    """Whether a word as written is one unquoted parameter expansion (`$X`, `${X}`, `${X:-a b}`, `$@`, `$*`)."""
    if len(raw) < 2 or raw[0] != "$":
        return False
    if raw in ("$@", "$*"):
        return True
    if raw[1] == "{":
        inner = raw[2:-1]
        return raw.endswith("}") and not any(c in inner for c in "{}'\"`$")
    return all(c in NAME_CHARS for c in raw[1:]) and not raw[1].isdigit()


def name_of(word: str) -> str:
    """The command word as a name: `/usr/bin/git` -> `git`, `./gradlew` -> `gradlew`."""
    if "/" in word and not word.endswith("/"):
        return word.rsplit("/", 1)[1]
    return word


def assignment(text: str) -> bool:
    eq = text.find("=")
    if eq <= 0:
        return False
    name = text[:eq].rstrip("+")
    return bool(name) and not name[0].isdigit() and all(c in NAME_CHARS for c in name)


def prints(words: "list[tuple[str, bool, bool, bool]]", i: int) -> bool:
    """`command -v git` asks where git is; it runs nothing."""
    return i + 1 < len(words) and words[i + 1][0] in ("-v", "-V")


def skip_wrapper(words: "list[tuple[str, bool, bool, bool]]", i: int, name: str) -> int:
    """The index of the word after wrapper `name` at words[i], its options, their values and its positionals."""
    shorts, longs, positionals = WRAPPERS[name]
    i += 1
    while i < len(words):
        text = words[i][0]
        if text == "--":
            i += 1
            break
        if text == "-" and name == "env":
            i += 1
        elif text.startswith("--"):
            i += 1
            if "=" not in text and text in longs:
                i += 1
        elif text.startswith("-") and len(text) > 1:
            i += 1
            if name == "env" and "S" in text[1:]:  # env -S "git push -f": its string is split into the command
                at = text.index("S", 1)
                split = text[at + 1:] or (words[i][0] if i < len(words) else "")
                if not text[at + 1:]:
                    i += 1
                return splice(words, i, split)
            for k, letter in enumerate(text[1:], 1):
                if letter in shorts:
                    if k == len(text) - 1:
                        i += 1  # the value is the next word
                    break
        elif name in ("env", "sudo") and assignment(text):
            i += 1
        else:
            break
    while positionals and i < len(words):
        i += 1
        positionals -= 1
    return i


def splice(words: "list[tuple[str, bool, bool, bool]]", i: int, text: str) -> int:
    """Replace words[:i] by the words of `text` (env -S), so that reading goes on at the returned index."""
    words[:i] = [(w, False, True, False) for w in text.split()]
    return 0


def shell_script(texts: "list[str]") -> "str | None":
    """The `-c` string of a shell's argument words (`bash -lc "..."`, `sh -e -c '...'`), or None."""
    has_c = False
    k = 1
    while k < len(texts):
        t = texts[k]
        if t == "--":
            k += 1
            break
        if t.startswith("--"):
            k += 1
        elif (t.startswith("-") or t.startswith("+")) and len(t) > 1:
            has_c = has_c or "c" in t[1:]
            k += 2 if ("o" in t[1:] or "O" in t[1:]) else 1
        else:
            break
    if has_c and k < len(texts):
        return texts[k]
    return None


def reads_stdin(texts: "list[str]") -> bool:
    """A shell with no script argument (`bash`, `bash -e -x`) or with `-s` (`sh -s -- args`) reads its commands
    from its input."""
    for t in texts[1:]:
        if t == "--" or not t.startswith(("-", "+")):
            return t == "--" and any(x.startswith("-") and not x.startswith("--") and "s" in x for x in texts[1:])
        if not t.startswith("--") and "s" in t[1:]:
            return True
    return True
