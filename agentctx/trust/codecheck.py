"""What a record's code looked like, and whether it still does: fingerprints of the files a record names (git blob,
a sketch of its distinct lines, or of the lines or symbol it names), and the check against a tree of today (a work
tree, or a commit read through one `git cat-file --batch`), following git's renames. No store, no hooks."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import zlib
from collections.abc import Iterable

SKETCH_K = 64  # bottom-k line hashes kept per fingerprint: containment within ~±0.12 at k=64
# A fingerprint whose lines are kept below this share is "substantially rewritten" (fitted on attrs and click's
# history, bench/verify.py; reported on the others).
KEPT_AT_LEAST = 0.5
PATHS_PER_RECORD = 8
GIT_TIMEOUT_S = 20.0
SYMBOL_BLOCK_LINES = 80  # most lines of a named symbol fingerprinted (its definition and what is indented under it)

# A file path as people write it in prose: directories and a name with an extension, optionally :line or :a-b or
# #La-Lb. Not inside a URL, not a version number.
_PATH = re.compile(r"(?<![\w/.:@-])((?:\.?[\w@+-][\w.@+-]*/)*\.?[\w@+-][\w.+-]*\.[A-Za-z][A-Za-z0-9]{0,7})"
                   r"(?::(\d{1,6})(?:-(\d{1,6}))?|#L(\d{1,6})(?:-L?(\d{1,6}))?)?(?![\w/])")
_CODE_SYMBOL = re.compile(r"`([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(?:\(\))?`")
_DEF = r"(?:def|class|function|func|fn|struct|interface|type|enum|trait|impl|const|let|var|module)\s+"


def blob_id(data: bytes) -> str:
    """git's blob id of `data` (what `git hash-object` prints), computed here: no subprocess per file."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def line_hashes(lines: Iterable[bytes]) -> set[int]:
    """The distinct non-trivial lines, whitespace-insensitive (indentation and reflow do not count as change)."""
    out = set()
    for line in lines:
        norm = b" ".join(line.split())
        if len(norm) >= 4:  # `}`, `end`, `)`: every file has them
            out.add(zlib.crc32(norm))
    return out


def sketch(hashes: set[int]) -> str:
    return " ".join(f"{h:08x}" for h in sorted(hashes)[:SKETCH_K])


def kept_share(stored: str, hashes: set[int]) -> float:
    """The share of the fingerprinted lines still present (estimated from the bottom-k sketch); 1.0 for an empty one."""
    values = [int(v, 16) for v in stored.split()]
    if not values:
        return 1.0
    return sum(1 for v in values if v in hashes) / len(values)


def symbol_span(lines: list[bytes], symbol: str) -> tuple[int, int] | None:
    """Where `symbol` is defined (its last name, defined with a keyword, or assigned): the 0-based [start, end) of its
    definition line and what is indented under it, at most SYMBOL_BLOCK_LINES; None when the file does not define it."""
    name = symbol.rsplit(".", 1)[-1].encode()
    if not name:
        return None
    assigned = re.compile(rb"^\s*(?:(?:export|pub|static|public|private|protected)\s+)*" + re.escape(name) + rb"\s*[:=]")
    keyed = re.compile(rb"\b(?:" + _DEF.encode() + rb")" + re.escape(name) + rb"\b")
    for i, line in enumerate(lines):
        if name not in line or not (keyed.search(line) or assigned.match(line)):
            continue
        indent = len(line) - len(line.lstrip())
        end = i + 1
        for nxt in lines[i + 1:i + SYMBOL_BLOCK_LINES]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent and not nxt.lstrip().startswith((b")", b"}", b"]")):
                break
            end += 1
        return i, end
    return None


def symbol_block(lines: list[bytes], symbol: str) -> list[bytes] | None:
    span = symbol_span(lines, symbol)
    return None if span is None else lines[span[0]:span[1]]


class Content:
    """One file's content as a pass sees it, with what the checks ask of it computed once per file (its blob id,
    lines, line hashes, symbol spans), however many records name it."""

    __slots__ = ("data", "_blob", "_lines", "_hashes", "_spans", "_sketch")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._blob: str | None = None
        self._lines: list[bytes] | None = None
        self._hashes: set[int] | None = None
        self._spans: dict[str, tuple[int, int] | None] = {}
        self._sketch: str | None = None

    @property
    def whole_sketch(self) -> str:
        if self._sketch is None:
            self._sketch = sketch(self.hashes)
        return self._sketch

    @property
    def blob(self) -> str:
        if self._blob is None:
            self._blob = blob_id(self.data)
        return self._blob

    @property
    def lines(self) -> list[bytes]:
        if self._lines is None:
            self._lines = self.data.splitlines()
        return self._lines

    @property
    def hashes(self) -> set[int]:
        if self._hashes is None:
            self._hashes = line_hashes(self.lines)
        return self._hashes

    def span(self, symbol: str) -> tuple[int, int] | None:
        if symbol not in self._spans:
            self._spans[symbol] = symbol_span(self.lines, symbol)
        return self._spans[symbol]


def as_content(data: "bytes | Content | None") -> "Content | None":
    return data if data is None or isinstance(data, Content) else Content(data)


def named_in(body: str, anchors: Iterable[str], tracked: "Tracked") -> list[tuple[str, str, str]]:
    """(path, lines, symbol) the record is about: its literal `path:` anchors and the file paths its body names that
    exist in `tracked` (a bare file name counts when exactly one tracked file has it), each with the lines it names
    (`a-b`) and a `symbol:` anchor or a backticked name the file defines; at most PATHS_PER_RECORD."""
    found: dict[str, tuple[str, str]] = {}
    for root in tracked.roots:  # agents write absolute paths: the repository's own are relative
        body = body.replace(root + "/", "")
    symbols = [a[7:] for a in anchors if a.startswith("symbol:")]
    symbols += [m.group(1) for m in _CODE_SYMBOL.finditer(body) if "/" not in m.group(1)]
    for anchor in anchors:
        value = anchor[5:] if anchor.startswith("path:") else anchor if ":" not in anchor else ""
        if value and not any(c in value for c in "*?[") and tracked.resolve(value):
            found.setdefault(tracked.resolve(value) or value, ("", ""))
    for m in _PATH.finditer(body):
        path = tracked.resolve(m.group(1))
        if not path:
            continue
        start, end = m.group(2) or m.group(4), m.group(3) or m.group(5)
        span = f"{int(start)}-{int(end or start)}" if start else ""
        if span or path not in found:
            found[path] = (span, found.get(path, ("", ""))[1])
        if len(found) >= PATHS_PER_RECORD:
            break
    out = []
    for path, (span, _) in list(found.items())[:PATHS_PER_RECORD]:
        out.append((path, span, ",".join(dict.fromkeys(symbols))))
    return out


def fingerprint(data: "bytes | Content", span: str, symbols: str) -> tuple[str, str, str, str]:
    """(blob, sketch, lines, symbol) of a file's content for a record: the lines it names, else the first named
    symbol the file defines, else the whole file."""
    content = as_content(data)
    assert content is not None
    lines = content.lines
    if span:
        a, _, b = span.partition("-")
        lo, hi = max(1, int(a)), max(int(a), int(b or a))
        if lo <= len(lines):
            return content.blob, sketch(line_hashes(lines[lo - 1:hi])), f"{lo}-{min(hi, len(lines))}", ""
    for sym in [s for s in symbols.split(",") if s]:
        found = content.span(sym)
        if found is not None:
            return content.blob, sketch(line_hashes(lines[found[0]:found[1]])), "", sym
    return content.blob, content.whole_sketch, "", ""


def check(data: "bytes | Content | None", blob: str, stored: str, symbol: str,
          kept_at_least: float = KEPT_AT_LEAST) -> tuple[str, float]:
    """(verdict, share kept) of one fingerprint against the file now: `same` (the blob is unchanged), `kept` (changed,
    but its lines, or its symbol's, are mostly there: anywhere in the file, so moved code is kept), `rewritten`,
    `symbol_gone` or `deleted` (`data` None)."""
    content = as_content(data)
    if content is None:
        return "deleted", 0.0
    if content.blob == blob:
        return "same", 1.0
    if symbol:
        found = content.span(symbol)
        if found is None:
            return "symbol_gone", 0.0
        share = kept_share(stored, line_hashes(content.lines[found[0]:found[1]]))
    else:
        share = kept_share(stored, content.hashes)
    return ("kept" if share >= kept_at_least else "rewritten"), share


# ---- the code as it is now ----

def _git(args: list[str], cwd: str | None = None, timeout: float = GIT_TIMEOUT_S) -> bytes | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=timeout,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _split_z(out: bytes | None) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in (out or b"").split(b"\0") if p]


def renames_between(git_args: list[str], since: str, until: str | None, cwd: str | None = None) -> dict[str, str]:
    """old path -> new path for the files git's rename detection pairs between `since` and `until` (a commit, or
    the work tree with None)."""
    out = _git([*git_args, "diff", "--find-renames", "--name-status", "-z", "--diff-filter=R", since,
                *([until] if until else []), "--"], cwd=cwd)
    parts = _split_z(out)
    moved = {}
    i = 0
    while i < len(parts):
        if parts[i][:1] in ("R", "C") and i + 2 < len(parts):
            moved[parts[i + 1]] = parts[i + 2]
            i += 3
        else:
            i += 2
    return moved


class Tracked:
    """The files of a tree by path and by name: resolves what a record wrote (`retry.py`, `./src/x.py`)."""

    def __init__(self, paths: Iterable[str], roots: Iterable[str] = ()) -> None:
        self.paths = set(paths)
        self.roots = tuple(dict.fromkeys(r.rstrip("/") for r in roots if r.rstrip("/")))
        self._by_name: dict[str, list[str]] = {}
        for p in self.paths:
            self._by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)

    def resolve(self, written: str) -> str | None:
        p = written.strip()
        p = p[2:] if p.startswith("./") else p
        if p in self.paths:
            return p
        if "/" not in p:
            hits = self._by_name.get(p, [])
            return hits[0] if len(hits) == 1 else None
        tails = [q for q in self._by_name.get(p.rsplit("/", 1)[-1], []) if q.endswith("/" + p)]
        return tails[0] if len(tails) == 1 else None


class WorkTree:
    """The code as it is on disk, in the repository at `root` (git for the file list, HEAD and renames)."""

    def __init__(self, root: str) -> None:
        self.root = root
        head = _git(["rev-parse", "--verify", "-q", "HEAD"], cwd=root)
        self.commit = head.decode().strip() if head else ""
        self.is_git = _git(["rev-parse", "--is-inside-work-tree"], cwd=root) is not None
        self._reflog: list[tuple[float, str, str]] | None = None
        self._trees: dict[str, CommitTree | None] = {}

    def tracked(self) -> Tracked:
        if not self.is_git:
            return Tracked(())
        return Tracked(_split_z(_git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                     cwd=self.root)), (self.root, os.path.realpath(self.root)))

    def read(self, path: str) -> bytes | None:
        full = os.path.join(self.root, path)
        if os.path.islink(full) or not os.path.isfile(full):
            return None
        try:
            with open(full, "rb") as fh:
                return fh.read(4 * 1024 * 1024)
        except OSError:
            return None

    def renames(self, since: str) -> dict[str, str]:
        return renames_between([], since, None, cwd=self.root) if self.is_git and since else {}

    def head_at(self, when: float) -> str:
        """The commit HEAD was at `when` (seconds since the epoch), from HEAD's reflog: what a record written then
        was about, though its file was changed, renamed or deleted before anyone looked (issue 42). "" when the
        reflog does not say (none kept, or it starts later with no commit before)."""
        if self._reflog is None:
            self._reflog = _reflog(self.root) if self.is_git else []
        found = ""
        for at, old, new in self._reflog:  # oldest first
            if at > when:
                return found or old
            found = new
        return found

    def at(self, commit: str) -> "CommitTree | None":
        """The repository's tree at `commit`, read through git (None outside git)."""
        if commit not in self._trees:
            git_dir = _git(["rev-parse", "--absolute-git-dir"], cwd=self.root)
            self._trees[commit] = CommitTree(git_dir.decode().strip(), commit) if git_dir else None
        return self._trees[commit]

    def close(self) -> None:
        for tree in self._trees.values():
            if tree is not None:
                tree.close()
        self._trees.clear()


_NO_COMMIT = "0" * 40


def _reflog(root: str) -> list[tuple[float, str, str]]:
    """(time, old, new) of each entry of HEAD's reflog, oldest first (the file `git reflog` reads)."""
    where = _git(["rev-parse", "--git-path", "logs/HEAD"], cwd=root)
    if not where:
        return []
    path = os.path.join(root, where.decode().strip())
    out = []
    try:
        with open(path, "rb") as fh:
            data = fh.read(8 * 1024 * 1024)
    except OSError:
        return []
    for line in data.splitlines():
        head = line.split(b"\t", 1)[0].split()
        if len(head) < 4:
            continue
        try:
            at = float(head[-2])
        except ValueError:
            continue
        old, new = head[0].decode(), head[1].decode()
        out.append((at, "" if old == _NO_COMMIT else old, "" if new == _NO_COMMIT else new))
    return out


class CommitTree:
    """The code as a commit of a repository has it, read through one `git cat-file --batch` (the replay bench)."""

    def __init__(self, git_dir: str, commit: str) -> None:
        self.git_dir, self.commit = git_dir, commit
        self._proc: subprocess.Popen[bytes] | None = None

    def tracked(self) -> Tracked:
        return Tracked(_split_z(_git(["--git-dir", self.git_dir, "ls-tree", "-r", "-z", "--name-only",
                                      self.commit])))

    def read(self, path: str) -> bytes | None:
        if self._proc is None:
            self._proc = subprocess.Popen(["git", "--git-dir", self.git_dir, "cat-file", "--batch"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(f"{self.commit}:{path}\n".encode("utf-8", "surrogateescape"))
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            if len(header) >= 3:  # a tree or a submodule: skip its content
                self._proc.stdout.read(int(header[2]) + 1)
            return None
        data = self._proc.stdout.read(int(header[2]))
        self._proc.stdout.read(1)
        return data

    def renames(self, since: str) -> dict[str, str]:
        return renames_between(["--git-dir", self.git_dir], since, self.commit) if since else {}

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            self._proc.wait(timeout=10)
            self._proc = None
