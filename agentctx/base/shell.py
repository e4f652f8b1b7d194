"""Shell lines as the shell runs them: the commands of a line, their words, operators, redirections, here-documents.

The one reader of shell lines (guards, command anchors, shell-edit targets). Pure, standard library only, and cheap
to import (the pre-action hook imports it on every shell call). API:

    parse(line: str) -> Line
    Line(commands: tuple[Command, ...], unreadable: str)    # unreadable: "" or why part of the line was not read
    Command(words, op, redirects, heredoc, depth, negated, splits, text)
        words:     tuple[str, ...], unquoted and unescaped, without leading assignments (`A=1`), reserved words
                   (`if`, `then`, `do`, `{`, `!`) and wrappers with their options (`env -i -u X`, `sudo -u x`,
                   `command`, `exec`, `nohup`, `time -p`, `timeout -s KILL 5`, `nice -n 5`, `ionice -c3`,
                   `stdbuf -o0`, `xargs -0 -n1`, `doas`, `watch -n 1`, `setsid`, `taskset`, `chrt`, `runuser`); the
                   command word as a name (`/usr/bin/git` -> `git`).
                   A word keeps a substitution or an expansion as written (`$(date)`, `$HOME/x`).
        op:        the operator joining it to the command before it at the same depth: "" (first of its line or
                   of a nested line), ";", "&&", "||", "|", "&", "\\n" (`a &&<newline>b` is "&&", as bash reads it).
        redirects: tuple[Redirect, ...] in order; Redirect(op, target), op as written with its fd (`>`, `>>`,
                   `2>`, `&>`, `>|`, `<`, `<>`, `>&`, `<<`, `<<-`, `<<<`); for `<<` the target is the delimiter.
        heredoc:   the body of its here-document(s) (joined by newlines when there are several), "" if none.
        depth:     0 for the line itself; 1 + its container's for a command read inside `bash|sh|zsh|dash|ksh -c
                   "..."` (or a shell fed a here-document / here-string), `su|script|flock -c "..."`, `eval ...`,
                   `alias x='...'`, a script the line itself wrote and then runs (`cat > x.sh <<EOF … EOF`
                   then `bash x.sh`, `./x.sh`, `source x.sh`), `$(...)`,
                   backticks, `<(...)`, `find -exec ... ;`. A nested command is listed right after the command that
                   contains it (`bash -c "a && b"` gives bash, then a (depth 1, op ""), then b (depth 1, op "&&")).
        negated:   the command was preceded by `!`.
        splits:    tuple[int, ...], the indices of words that are one unquoted expansion (`$FLAGS`, `${ARGS}`,
                   `$@`): the shell splits them into any number of words, options included.
        text:      the simple command as written, assignments and wrappers included, operators and here-document
                   bodies not (`FOO=1 git commit -m "$(cat <<'EOF' …)"` whole): what is matched against a command's
                   own spelling or its printed output; "" for a `find -exec` command.
    mentions(text, word) -> bool: whether `word` appears in raw text as a shell word (for lines not read in full).

`(` `)` `{` `}` group without changing the operators (`(a; b) && c`: c is joined by && to b). What cannot be
read sets `unreadable` and keeps what was read before it: a variable or a substitution as the command word
(`$CMD push`), an unterminated quote or substitution, nesting deeper than DEPTH_MAX, more than PARSE_MAX characters
(the start is read), more than WORK_MAX characters read over all nested levels. An unterminated here-document runs
to the end of the line, as bash runs it. Work is linear in the line's length: every character is read once per
nesting level, there are at most DEPTH_MAX levels, and no regular expression is used.
"""

from .models import record_type
from .shellwords import (C_RUNNERS, NAME_CHARS, WRAPPERS, ansi_escape, assignment, bare_expansion, name_of,
                         prints, reads_stdin, shell_script, skip_wrapper)

PARSE_MAX = 65_536  # characters of a line read as shell; the rest is only searched (mentions)
DEPTH_MAX = 12  # nested shells and substitutions
WORK_MAX = 4 * PARSE_MAX  # characters read over all nested levels (a `bash -c` string is read as a word, then as a line)
COMMANDS_MAX = 4096
MENTIONS_MAX = 4096  # occurrences of a word looked at before `mentions` says yes

Redirect = record_type("Redirect", ("op", "target"))
Command = record_type("Command", ("words", "op", "redirects", "heredoc", "depth", "negated", "splits", "text"),
                      defaults=("", (), "", 0, False, (), ""))
Line = record_type("Line", ("commands", "unreadable"), defaults=((), ""))

_WORD_END = frozenset(" \t\n;&|()<>")
_SPECIAL = frozenset(" \t\n;&|()<>\\'\"$`")
_DQ_SPECIAL = frozenset('"\\$`')
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
_RESERVED = frozenset({"if", "then", "else", "elif", "do", "while", "until", "{", "}", "(", ")"})
_CLOSERS = frozenset({"fi", "done", "esac", "}", "then", "do", "else"})

class _Raw:
    """One simple command while it is read: words as (text, dynamic, plain start), redirects, here-documents."""

    __slots__ = ("words", "redirects", "docs", "subs", "op", "start", "end")

    def __init__(self, op: str) -> None:
        self.words: "list[tuple[str, bool, bool, bool]]" = []  # text, dynamic, plain start, bare expansion
        self.redirects: "list[tuple[str, str]]" = []
        self.docs: "list[list]" = []  # type: ignore[type-arg]  # [delimiter, strip tabs, quoted, body]
        self.subs: "list[Command]" = []
        self.op = op
        self.start = self.end = 0  # where it is written in its reader's text


class _Reader:
    def __init__(self, text: str, budget: "list[int]", why: "list[str]") -> None:
        self.s, self.n = text, len(text)
        self.budget, self.why = budget, why  # shared with nested readers: work left, first reason
        budget[0] -= len(text)
        self.scripts: "dict[str, str]" = {}  # file -> what this line wrote into it (`cat > x.sh <<EOF`)

    def unreadable(self, reason: str) -> None:
        if not self.why[0]:
            self.why[0] = reason

    # --- a list of commands ---------------------------------------------------------------------------------

    def seq(self, i: int, depth: int, closer: str) -> "tuple[int, list[Command]]":
        """The commands from s[i] to the unmatched `closer` (`)`, `` ` ``, or "" for the end), and the index after."""
        if depth > DEPTH_MAX:  # the rest is not read: every enclosing level ends here with what it has
            self.unreadable(f"nested deeper than {DEPTH_MAX} shells or substitutions")
            return self.n, []
        s, n = self.s, self.n
        raws: "list[_Raw]" = []
        docs: "list[list]" = []  # type: ignore[type-arg]
        pending: "str | None" = ""  # the operator for the next command; None: one is needed
        cur = _Raw("")

        def finish() -> None:
            nonlocal cur, pending
            if cur.words or cur.redirects:
                cur.end = i
                raws.append(cur)
                docs.extend(cur.docs)
                pending = None
            cur = _Raw("")

        def start() -> None:
            if not cur.words and not cur.redirects:
                cur.op = ";" if pending is None else pending
                cur.start = i

        while i < n:
            c = s[i]
            if c == " " or c == "\t":
                i += 1
            elif c == "\\" and i + 1 < n and s[i + 1] == "\n":
                i += 2
            elif closer and c == closer:
                finish()
                return i + 1, self.build(raws, depth)
            elif c == "\n":
                finish()
                if pending is None:
                    pending = "\n"
                i = self.bodies(i + 1, docs, depth)
                docs = []
            elif c == ";":
                finish()
                pending = ";"
                i += 2 if s.startswith(";;", i) else 1
            elif c == "&" and not s.startswith("&>", i):
                finish()
                pending = "&&" if s.startswith("&&", i) else "&"
                i += len(pending)
            elif c == "|":
                finish()
                pending = "||" if s.startswith("||", i) else "|"
                i += 2 if s.startswith(("||", "|&"), i) else 1
            elif c == "(" or c == ")":
                finish()
                i += 1
            elif c == "#" and (i == 0 or s[i - 1] in " \t\n;&|()"):
                end = s.find("\n", i)
                i = n if end < 0 else end
            elif c in "<>" or (c == "&" and s.startswith("&>", i)) or (c.isdigit() and self._fd_redirect(i)):
                start()
                i = self.redirect(i, depth, cur, docs_out=cur.docs)
            else:
                start()
                i = self.word(i, depth, cur, closer)
            if len(raws) > COMMANDS_MAX:
                self.unreadable(f"more than {COMMANDS_MAX:,} commands")
                i = n
        finish()
        if closer:
            self.unreadable(f"an unterminated {'$(' if closer == ')' else '`'}")
        self.bodies(n, docs, depth)
        return n, self.build(raws, depth)

    def _fd_redirect(self, i: int) -> bool:
        j = i
        while j < self.n and self.s[j].isdigit():
            j += 1
        return j < self.n and self.s[j] in "<>" and (i == 0 or self.s[i - 1] in " \t\n;&|()")

    def bodies(self, i: int, docs: "list[list]", depth: int) -> int:  # type: ignore[type-arg]
        """Read the bodies of the here-documents opened on the line just ended, from s[i]; the index after them."""
        s, n = self.s, self.n
        for doc in docs:
            delim, strip, _quoted = doc[0], doc[1], doc[2]
            at, begin = i, i
            while True:
                hit = s.find(delim, at)
                if hit < 0:  # unterminated: bash runs it to the end of the input
                    doc[3], i = s[begin:], n
                    break
                line_start = hit
                while strip and line_start > begin and s[line_start - 1] == "\t":
                    line_start -= 1
                end = hit + len(delim)
                if (line_start == begin or s[line_start - 1] == "\n") and (end == n or s[end] == "\n"):
                    doc[3], i = s[begin:line_start], min(end + 1, n)
                    break
                at = hit + 1
        return i

    # --- words ----------------------------------------------------------------------------------------------

    def word(self, i: int, depth: int, raw: _Raw, closer: str) -> int:
        """One word from s[i] into raw.words (its substitutions into raw.subs); the index after it."""
        s, n = self.s, self.n
        buf: list[str] = []
        dynamic = False
        plain = s[i] not in "'\"\\$`"
        first = i
        while i < n:
            c = s[i]
            if c in _WORD_END or (c == "`" and closer == "`"):
                break
            if c == "\\":
                if i + 1 < n and s[i + 1] != "\n":
                    buf.append(s[i + 1])
                i += 2
            elif c == "'":
                end = s.find("'", i + 1)
                if end < 0:
                    self.unreadable("an unterminated quote")
                    buf.append(s[i + 1:])
                    i = n
                    break
                buf.append(s[i + 1:end])
                i = end + 1
            elif c == '"':
                i, dyn = self.dquote(i + 1, depth, buf, raw, '"')
                dynamic = dynamic or dyn
            elif c == "$" or c == "`":
                i = self.dollar(i, depth, buf, raw)
                dynamic = True
            else:
                j = i + 1
                while j < n and s[j] not in _SPECIAL:
                    j += 1
                buf.append(s[i:j])
                i = j
        raw.words.append(("".join(buf), dynamic, plain, bare_expansion(s[first:i])))
        return i

    def dquote(self, i: int, depth: int, buf: "list[str]", raw: _Raw, term: str) -> "tuple[int, bool]":
        """The inside of a double-quoted string (term `"`) or of an unquoted here-document's body (term "")."""
        s, n = self.s, self.n
        dynamic = False
        while i < n:
            c = s[i]
            if c == term:
                return i + 1, dynamic
            if c == "\\" and i + 1 < n:
                nxt = s[i + 1]
                if nxt == "\n":
                    i += 2
                    continue
                if nxt in "$`\\" or (nxt == '"' and term):
                    buf.append(nxt)
                    i += 2
                    continue
                buf.append("\\")
                i += 1
            elif c == "$" or c == "`":
                i = self.dollar(i, depth, buf, raw)
                dynamic = True
            else:
                j = i + 1
                while j < n and s[j] not in _DQ_SPECIAL:
                    j += 1
                buf.append(s[i:j])
                i = j
        if term:
            self.unreadable("an unterminated quote")
        return n, dynamic

    def dollar(self, i: int, depth: int, buf: "list[str]", raw: _Raw) -> int:
        """`$(...)`, `` `...` ``, `$((...))`, `${...}`, `$'...'`, `$"..."`, `$NAME` from s[i], kept as written in
        the word; the commands of a substitution go to raw.subs."""
        s, n = self.s, self.n
        if s[i] == "`":
            end, cmds = self.seq(i + 1, depth + 1, "`")
            raw.subs.extend(cmds)
            buf.append(s[i:end])
            return end
        nxt = s[i + 1] if i + 1 < n else ""
        if nxt == "(" and not s.startswith("$((", i):
            end, cmds = self.seq(i + 2, depth + 1, ")")
            raw.subs.extend(cmds)
            buf.append(s[i:end])
            return end
        if nxt == "(" or nxt == "{":  # arithmetic or a parameter expansion: to the matching close, quotes aside
            opener, close = ("(", ")") if nxt == "(" else ("{", "}")
            level, j = 0, i + 1
            while j < n:
                ch = s[j]
                if ch == opener:
                    level += 1
                elif ch == close:
                    level -= 1
                    if level == 0:
                        break
                elif ch == "\\":
                    j += 1
                j += 1
            if j >= n:
                self.unreadable(f"an unterminated ${nxt}")
            buf.append(s[i:j + 1])
            return min(j + 1, n)
        if nxt == "'":  # ANSI-C quoting: the common escapes
            j, out = i + 2, []
            while j < n and s[j] != "'":
                if s[j] == "\\" and j + 1 < n:
                    char, used = ansi_escape(s, j + 1)
                    out.append(char)
                    j += 1 + used
                else:
                    out.append(s[j])
                    j += 1
            if j >= n:
                self.unreadable("an unterminated quote")
            buf.append("".join(out))
            return min(j + 1, n)
        if nxt == '"':
            end, _dyn = self.dquote(i + 2, depth, buf, raw, '"')
            return end
        j = i + 1
        if j < n and (s[j] in "@*#?$!-" or s[j].isdigit()):
            j += 1
        else:
            while j < n and s[j] in NAME_CHARS:
                j += 1
        buf.append(s[i:j])
        return j

    def redirect(self, i: int, depth: int, raw: _Raw, docs_out: "list[list]") -> int:  # type: ignore[type-arg]
        """One redirection from s[i] (`2>f`, `&>>f`, `<<-'EOF'`, `<(cmd)`) into raw; the index after it."""
        s, n = self.s, self.n
        j = i
        while j < n and s[j].isdigit():
            j += 1
        for base in ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"):
            if s.startswith(base, j):
                break
        else:  # cannot happen: the caller saw one of them
            return i + 1
        if base in ("<", ">") and s.startswith("(", j + 1):  # process substitution: a word that runs commands
            end, cmds = self.seq(j + 2, depth + 1, ")")
            raw.subs.extend(cmds)
            raw.words.append((s[j:end], True, False, False))
            return end
        op = s[i:j] + base
        k = j + len(base)
        while k < n and s[k] in " \t":
            k += 1
        if k >= n or s[k] in _WORD_END:
            return k
        target = _Raw("")
        k = self.word(k, depth, target, "")
        raw.subs.extend(target.subs)
        text = target.words[0][0] if target.words else ""
        raw.redirects.append((op, text))
        if op.endswith(("<<", "<<-")):
            delim_raw = s[j + len(base):k].strip()
            quoted = any(q in delim_raw for q in "'\"\\")
            doc = [text, op.endswith("-"), quoted, ""]
            raw.docs.append(doc)
        return k

    # --- commands -------------------------------------------------------------------------------------------

    def build(self, raws: "list[_Raw]", depth: int) -> "list[Command]":
        out: "list[Command]" = []
        for k, raw in enumerate(raws):
            feed = ""  # what a pipe feeds it that can be read: a here-document, or echo's or printf's words
            if raw.op == "|" and k:
                prev = raws[k - 1]
                head = name_of(prev.words[0][0]) if prev.words else ""
                if prev.docs:
                    feed = "\n".join(d[3] for d in prev.docs)
                elif head in ("echo", "printf"):
                    args = [w[0] for w in prev.words[1:]]
                    while args and head == "echo" and len(args[0]) > 1 and set(args[0]) <= set("-neE"):
                        args.pop(0)  # echo's own options
                    feed = " ".join(args).replace("\\n", "\n")
            out.extend(self.command(raw, depth, feed))
        return out

    def command(self, raw: _Raw, depth: int, feed: str = "") -> "list[Command]":
        """The command of one raw simple command, then the commands nested in it."""
        words = list(raw.words)
        negated = False
        i = steps = 0
        xargs = False
        while i < len(words) and steps < 64:  # reserved words, assignments and wrappers before the command word
            steps += 1
            text, _dyn, plain, _bare = words[i]
            if plain and (text in _RESERVED or text == "!"):
                negated = negated or text == "!"
                i += 1
            elif plain and assignment(text):
                i += 1
            elif name_of(text) in WRAPPERS and not (text == "command" and prints(words, i)):
                xargs = xargs or name_of(text) == "xargs"
                i = skip_wrapper(words, i, name_of(text))
            else:
                break
        words = words[i:]
        if words and words[0][0] in _CLOSERS and len(words) == 1:
            words = []
        if xargs and feed and words:  # `echo push -f | xargs git`: xargs appends what it reads
            words += [(w, False, True, False) for w in feed.split()[:256]]
        heredoc = "\n".join(d[3] for d in raw.docs)
        redirects = tuple(Redirect(op, t) for op, t in raw.redirects)
        nested: "list[Command]" = []
        for op, target in raw.redirects:  # what the line writes into a file it may run later
            if op in (">", ">|", "1>") and (raw.docs or (words and name_of(words[0][0]) in ("echo", "printf"))):
                body = "\n".join(d[3] for d in raw.docs) if raw.docs else " ".join(w[0] for w in words[1:])
                for key in (target, target[2:] if target.startswith("./") else "./" + target):
                    self.scripts[key] = body
        if words:
            if words[0][1]:
                self.unreadable(f"the command is not a name but {words[0][0][:40]!r}")
            written = self.scripts.get(words[0][0])
            name = name_of(words[0][0])
            words[0] = (name, words[0][1], words[0][2], words[0][3])
            nested = self.nested(name, words, raw, depth, feed)
            if written is not None:  # `./x.sh` for a script this line wrote: what it wrote is what runs
                nested = self.line(written, depth + 1) + nested
        texts = tuple(w[0] for w in words)
        splits = tuple(k for k, w in enumerate(words) if w[3])
        text = self.s[raw.start:raw.end].rstrip() if raw.end else ""
        out = [Command(texts, raw.op, redirects, heredoc, depth, negated, splits, text)] if texts or redirects else []
        for doc in raw.docs:  # an unquoted here-document's substitutions run
            if not doc[2] and ("$(" in doc[3] or "`" in doc[3]):
                child = self.child(doc[3])
                if child is not None:
                    holder = _Raw("")
                    child.dquote(0, depth, [], holder, "")
                    nested.extend(holder.subs)
        return out + nested + raw.subs

    def nested(self, name: str, words: "list[tuple[str, bool, bool, bool]]", raw: _Raw, depth: int,
               feed: str) -> "list[Command]":
        """The commands a command runs from its arguments: a shell's `-c` string or its input (a here-document, a
        here-string, what `echo` or a here-document pipes to it), `eval`, `find -exec`."""
        texts = [w[0] for w in words]
        if name in ("source", ".") and len(texts) > 1 and texts[1] in self.scripts:
            return self.line(self.scripts[texts[1]], depth + 1)
        if name in _SHELLS:
            script = shell_script(texts)
            if script is None:  # `bash x.sh` for a script this line wrote: what it wrote is what runs
                path = next((t for t in texts[1:] if not t.startswith(("-", "+"))), None)
                if path is not None and path in self.scripts:
                    return self.line(self.scripts[path], depth + 1)
            if script is None and len(texts) >= 1 and reads_stdin(texts):
                docs = [d[3] for d in raw.docs] + [t for op, t in raw.redirects if op.endswith("<<<")]
                script = "\n".join(docs) if docs else feed or None
                if script is None and (raw.op == "|" or any(op.endswith("<") for op, _t in raw.redirects)):
                    self.unreadable(f"{name} reads its commands from a pipe or a file")
            return self.line(script, depth + 1) if script else []
        if name == "alias":  # `alias gp='git push -f'`: what the alias will run, read as a line of its own
            out: "list[Command]" = []
            for t in texts[1:16]:
                if "=" in t:
                    out += self.line(t.split("=", 1)[1], depth + 1)
            return out
        if name in C_RUNNERS:
            for k, t in enumerate(texts[1:-1], 1):
                if t in ("-c", "--command") or (t.startswith("-") and not t.startswith("--") and t.endswith("c")):
                    return self.line(texts[k + 1], depth + 1)
        if name == "eval" and len(texts) > 1:
            return self.line(" ".join(texts[1:]), depth + 1)
        if name == "find":
            for k, t in enumerate(texts):
                if t in ("-exec", "-execdir", "-ok", "-okdir"):
                    rest = texts[k + 1:]
                    end = next((m for m, r in enumerate(rest) if r in (";", "+")), len(rest))
                    if rest[:end]:
                        inner = _Raw("")
                        inner.words = [(r, False, True, False) for r in rest[:end]]
                        return self.command(inner, depth + 1)
        return []

    def line(self, text: str, depth: int) -> "list[Command]":
        child = self.child(text)
        if child is None:
            return []
        _end, cmds = child.seq(0, depth, "")
        return cmds

    def child(self, text: str) -> "_Reader | None":
        """A reader of text nested in this one (a `-c` string, a here-document), within the shared work budget."""
        if len(text) > self.budget[0]:
            self.unreadable(f"more than {WORK_MAX:,} characters to read over its nested shells")
            return None
        return _Reader(text, self.budget, self.why)


def parse(line: str) -> Line:
    """The commands of a shell line (module docstring); never raises on any string."""
    if not isinstance(line, str) or not line:
        return Line((), "")
    why = [""]
    text = line
    if len(text) > PARSE_MAX:
        why[0] = f"longer than {PARSE_MAX:,} characters: only its start was read"
        text = text[:PARSE_MAX]
    budget = [WORK_MAX]
    try:
        _end, commands = _Reader(text, budget, why).seq(0, 0, "")
    except RecursionError:  # cannot happen within DEPTH_MAX; a hook must still answer
        return Line((), "nested too deep to read")
    return Line(tuple(commands), why[0])


_BOUNDARY = frozenset(" \t\n;&|()<>'\"`$={}\\/")


def mentions(text: str, word: str) -> bool:
    """Whether `word` appears in `text` between shell separators (or the ends): what a line that could not be read
    in full is searched with. Past MENTIONS_MAX occurrences that are inside other words, it says yes."""
    if not word:
        return False
    at, seen, n, w = text.find(word), 0, len(text), len(word)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + w] if at + w < n else " "
        if before in _BOUNDARY and after in _BOUNDARY:
            return True
        seen += 1
        if seen >= MENTIONS_MAX:
            return True
        at = text.find(word, at + 1)
    return False
