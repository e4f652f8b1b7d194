"""What a prompt means, at prompt time without a model: static token vectors distilled from the embedding model.

The prompt hook may not load a model (SPEC §1, Invariant 6), but it may read precomputed data. `agentctx embed
--static` (the `[vectors]` extra, agentctx/retrieval/vectors/static.py) runs every token of the model's WordPiece
vocabulary through the model once, keeps the main 64 directions of the result (PCA) and writes them as int8 rows:
the *token table*, `models/static-<model>.bin`. A text's vector is the mean of its words' token rows, each word
weighed by its specificity in general software text (search.specificity); consolidation writes each current record's
vector (title twice, body, questions, aliases) to the *record file* beside the store. The gate reads one more
feature, the cosine of the prompt's vector with a candidate's (relevance.py, SPEC §7.4). This module reads both
files with the standard library only (mmap, struct, zlib): a missing, truncated or damaged file means no vector, and
the lexical gate decides alone. No json, re or typing here: it runs in the prompt hook.
"""

import os

# Both files: a header, a hash table of keys (open addressing on crc32), the keys, one float32 scale per row, an
# optional uint32 tag per row (the record file: a checksum of the text the vector was made from), int8 rows.
TABLE_MAGIC = b"AXTOK001"
RECORDS_MAGIC = b"AXREC001"
HEADER = "<8sIIIII"  # magic, dims, rows, slots (a power of two), ident, tagged
HEADER_SIZE = 28
TABLE_NAME = "static-{}.bin"
RECORDS_SUFFIX = "-meaning"
# A word longer than this is one unknown token, as BERT's WordPiece treats it.
MAX_WORD_CHARS = 100
# Words of the prompt that count (its distinct query terms, in order): a long paste's vector is its first words'.
MAX_WORDS = 64
# A title says what a record is about: its words weigh this many times a body word's in the record's vector.
TITLE_WEIGHT = 2.0
_UNAVAILABLE = object()
_cache: "dict[str, object]" = {}


class VectorFile:
    """One mapped vector file: key -> (row index); rows as scaled int8. Every read is bounds-checked by the caller's
    try (VectorFile.row raises ValueError on anything inconsistent)."""

    __slots__ = ("data", "dims", "n", "slots", "ident", "tagged", "_slot_at", "_off_at", "_blob_at", "_scale_at",
                 "_tag_at", "_row_at", "_row", "_mask")

    def __init__(self, data: "bytes | memoryview", magic: bytes) -> None:
        import struct  # here, not at the top: a store without the meaning data never loads it

        if len(data) < HEADER_SIZE:
            raise ValueError("truncated header")
        got, dims, n, slots, ident, tagged = struct.unpack_from(HEADER, data, 0)
        if got != magic or not 0 < dims <= 1024 or slots < n or slots & (slots - 1) or tagged not in (0, 1):
            raise ValueError("not a vector file")
        self.data, self.dims, self.n, self.slots, self.ident, self.tagged = data, dims, n, slots, ident, tagged
        self._slot_at = HEADER_SIZE
        self._off_at = self._slot_at + 4 * slots
        blob_len = struct.unpack_from("<I", data, self._off_at + 4 * n)[0]
        self._blob_at = self._off_at + 4 * (n + 1)
        self._scale_at = self._blob_at + blob_len + (-blob_len % 4)
        self._tag_at = self._scale_at + 4 * n
        self._row_at = self._tag_at + 4 * n * tagged
        if self._row_at + dims * n != len(data):
            raise ValueError("size does not match the header")
        self._row = struct.Struct(f"<{dims}b")
        self._mask = slots - 1

    def find(self, key: bytes) -> int:
        """The row of `key`, or -1."""
        import struct
        from zlib import crc32

        data, slot = self.data, crc32(key) & self._mask
        for _ in range(self.slots):
            i = struct.unpack_from("<I", data, self._slot_at + 4 * slot)[0]
            if not i:
                return -1
            if i > self.n:
                raise ValueError("slot out of range")
            start, end = struct.unpack_from("<II", data, self._off_at + 4 * (i - 1))
            if not start <= end <= self._scale_at - self._blob_at:
                raise ValueError("key out of range")
            if data[self._blob_at + start:self._blob_at + end] == key:
                return i - 1
            slot = (slot + 1) & self._mask
        return -1

    def tag(self, i: int) -> int:
        import struct

        return struct.unpack_from("<I", self.data, self._tag_at + 4 * i)[0] if self.tagged else 0

    def row(self, i: int) -> "tuple[float, tuple[int, ...]]":
        """(scale, int8 values) of row i."""
        import struct

        if not 0 <= i < self.n:
            raise ValueError("row out of range")
        return (struct.unpack_from("<f", self.data, self._scale_at + 4 * i)[0],
                self._row.unpack_from(self.data, self._row_at + self.dims * i))


def _open(path: str, magic: bytes) -> "VectorFile | None":
    """The file mapped, or None when it is missing or not a whole vector file (cached per process)."""
    found = _cache.get(path)
    if found is None:
        found = _UNAVAILABLE
        try:
            fh = open(path, "rb")
        except OSError:  # the usual case without the meaning data: nothing more is imported
            fh = None
        if fh is not None:
            import mmap
            import struct

            with fh:
                try:
                    size = os.fstat(fh.fileno()).st_size
                    if size:
                        found = VectorFile(memoryview(mmap.mmap(fh.fileno(), size, access=mmap.ACCESS_READ)), magic)
                except (OSError, ValueError, struct.error, OverflowError):
                    found = _UNAVAILABLE
        _cache[path] = found
    return None if found is _UNAVAILABLE else found  # type: ignore[return-value]


def table_path(model_name: str) -> str:
    """The token table of a model, in the data directory's models folder."""
    from ..base import paths

    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_name)
    return os.path.join(paths.home_dir(), "models", TABLE_NAME.format(safe))


def records_path(db_file: str) -> str:
    return db_file + RECORDS_SUFFIX


def _strip_accents(word: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def wordpiece(table: VectorFile, word: str) -> "list[int]":
    """The token rows of one lower-cased word by BERT's WordPiece: the longest vocabulary prefix, then the longest
    "##" continuation, and so on; a word with a part that matches nothing is one unknown token (no rows here)."""
    if not word.isascii():
        word = _strip_accents(word)
    if not word or len(word) > MAX_WORD_CHARS:
        return []
    whole = table.find(word.encode("utf-8"))
    if whole >= 0:
        return [whole]
    out, start = [], 0
    while start < len(word):
        end, found = len(word), -1
        while start < end:
            piece = word[start:end] if not start else "##" + word[start:end]
            found = table.find(piece.encode("utf-8"))
            if found >= 0:
                break
            end -= 1
        if found < 0:
            return []
        out.append(found)
        start = end
    return out


def vector(table: VectorFile, weighted: "list[tuple[str, float]]") -> "list[float] | None":
    """The weighted mean of the words' token rows (each word's pieces share its weight), unit length; None when no
    word has rows."""
    acc = [0.0] * table.dims
    any_row = False
    for word, weight in weighted:
        if weight <= 0:
            continue
        rows = wordpiece(table, word)
        for i in rows:
            scale, values = table.row(i)
            c = weight * scale / len(rows)
            acc = [a + c * v for a, v in zip(acc, values)]
            any_row = True
    norm = sum(a * a for a in acc) ** 0.5
    return [a / norm for a in acc] if any_row and norm > 0 else None


def text_words(title: str, body: str, extra: "tuple[str, ...]" = ()) -> "list[tuple[str, float]]":
    """A record's words with their weights: title words TITLE_WEIGHT times their specificity, the others once."""
    from ..base import text
    from .search import specificity

    parts = [(text.content_tokens(title, max_tokens=64), TITLE_WEIGHT),
             (text.content_tokens(body, max_tokens=512), 1.0),
             (text.content_tokens("\n".join(extra), max_tokens=256), 1.0)]
    words = [w for tokens, _ in parts for w in tokens]
    stems = text.stems(words)
    known = specificity(list(dict.fromkeys(stems)))
    spec = {w: known.get(s, 1.0) for w, s in zip(words, stems)}
    return [(w, factor * spec.get(w, 1.0)) for tokens, factor in parts for w in tokens]


def checksum(title: str, body: str, questions: "tuple[str, ...]" = (), aliases: "tuple[str, ...]" = ()) -> int:
    """What a record's vector was made from: a record edited since has none."""
    from zlib import crc32

    return crc32("\x1f".join((title, body, *questions, "\x1e", *aliases)).encode("utf-8"))


class Meaning:
    """The prompt's vector and the candidates' vectors for one prompt hook run (both files present and matching)."""

    __slots__ = ("table", "records", "prompt")

    def __init__(self, table: VectorFile, records: VectorFile, prompt: "list[float]") -> None:
        self.table, self.records, self.prompt = table, records, prompt

    def similarity(self, record_id: str, check: int) -> "float | None":
        """The cosine of the prompt with a record's stored vector, or None (no vector, or one of older text)."""
        try:
            i = self.records.find(record_id.encode("utf-8"))
            if i < 0 or self.records.tag(i) != check:
                return None
            scale, values = self.records.row(i)
        except (ValueError, _struct_error()):
            return None
        dot = sum(p * v for p, v in zip(self.prompt, values)) * scale
        return max(-1.0, min(1.0, dot))


def for_prompt(db_file: str, terms: "list[str]", specific: "dict[str, float]") -> "Meaning | None":
    """The semantic side of one prompt, or None when the store has no record file (or it or its table is missing,
    damaged or of another table). `terms` are the search's query terms, `specific` its stems' specificity."""
    records = _open(records_path(db_file), RECORDS_MAGIC)
    if records is None:
        return None
    from ..base import text

    try:
        table = _open(_table_of(db_file), TABLE_MAGIC)
        if table is None or table.ident != records.ident or table.dims != records.dims:
            return None
        words = terms[:MAX_WORDS]
        weighted = [(w, specific.get(s, 1.0)) for w, s in zip(words, text.stems(words))]
        prompt = vector(table, weighted)
    except (ValueError, _struct_error()):
        return None
    return Meaning(table, records, prompt) if prompt is not None else None


def _table_of(db_file: str) -> str:
    """The token table the record file was built from: its path is stored beside it (`<record file>.table`), so
    the hook reads no configuration."""
    try:
        with open(records_path(db_file) + ".table", "rb") as fh:
            return fh.read(4096).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def _struct_error() -> type:
    import struct

    return struct.error


def reset() -> None:
    """Forget the mapped files (tests; a process that rewrites them)."""
    _cache.clear()
