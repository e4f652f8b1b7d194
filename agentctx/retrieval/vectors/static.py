"""Build the prompt hook's static token table from the embedding model, and each store's record vectors from it.

The model2vec method (retrieval/meaning.py reads the result): every token of the model's WordPiece vocabulary goes
through the model once, as `[CLS] token [SEP]`, mean-pooled; the vectors are centred and reduced to DIMS by PCA
(the first directions of a token cloud carry frequency, not meaning: centring removes the common one), then each row
is stored as int8 with its own scale. Needs the `[vectors]` extra (numpy, ONNX Runtime through fastembed) and a
loadable model; deterministic for a given model file. The record file needs only the table (pure Python).
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterable

from .. import meaning

DIMS = 64
BATCH = 1024


def _vocab(model_dir: str) -> list[str]:
    """The WordPiece vocabulary, in id order: vocab.txt, else tokenizer.json's model.vocab."""
    plain = os.path.join(model_dir, "vocab.txt")
    if os.path.isfile(plain):
        with open(plain, encoding="utf-8") as fh:
            return [line.rstrip("\n") for line in fh]
    import json

    with open(os.path.join(model_dir, "tokenizer.json"), encoding="utf-8") as fh:
        model = json.load(fh).get("model") or {}
    if model.get("type") != "WordPiece":
        raise ValueError(f"the model's tokenizer is {model.get('type') or 'unknown'}, not WordPiece")
    vocab = model["vocab"]
    return [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]


def _session_and_dir(embedder):  # noqa: ANN001, ANN202 - (ONNX session, model folder) of a FastEmbedEmbedder
    inner = embedder._model.model
    return inner.model, str(inner._model_dir)


def token_vectors(session, vocab: list[str], special: dict[str, int]):  # noqa: ANN001, ANN201
    """(ids kept, their mean-pooled vectors): every token but [unused*] and the special ones."""
    import numpy as np

    keep = np.array([i for i, t in enumerate(vocab) if not (t.startswith("[") and t.endswith("]"))], dtype=np.int64)
    names = {i.name for i in session.get_inputs()}
    out = []
    for at in range(0, len(keep), BATCH):
        ids = keep[at:at + BATCH]
        x = np.stack([np.full_like(ids, special["[CLS]"]), ids, np.full_like(ids, special["[SEP]"])], 1)
        feed = {"input_ids": x, "attention_mask": np.ones_like(x)}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(x)
        out.append(session.run(None, feed)[0].mean(axis=1))
    return keep, np.concatenate(out).astype(np.float64)


def reduce(vectors, dims: int = DIMS):  # noqa: ANN001, ANN201
    """Centred, projected on the first `dims` principal directions (signs fixed: deterministic)."""
    import numpy as np

    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    basis = vt[:dims]
    basis *= np.sign(basis[np.arange(dims), np.abs(basis).argmax(axis=1)])[:, None]
    return centred @ basis.T


def quantize(rows) -> tuple[list[float], bytes]:  # noqa: ANN001
    """Per row: scale = max |value| / 127, values rounded to int8."""
    import numpy as np

    scale = np.abs(rows).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(rows / scale[:, None]), -127, 127).astype(np.int8)
    return [float(s) for s in scale], q.tobytes()


def pack(magic: bytes, dims: int, keys: list[bytes], scales: list[float], rows: bytes, ident: int = 0,
         tags: list[int] | None = None) -> bytes:
    """One vector file (meaning.VectorFile's layout)."""
    from zlib import crc32

    n = len(keys)
    slots = 1
    while slots < 2 * n or slots < 2:
        slots *= 2
    table = [0] * slots
    for i, key in enumerate(keys):
        slot = crc32(key) & (slots - 1)
        while table[slot]:
            slot = (slot + 1) & (slots - 1)
        table[slot] = i + 1
    offsets, at = [], 0
    for key in keys:
        offsets.append(at)
        at += len(key)
    offsets.append(at)
    blob = b"".join(keys)
    parts = [struct.pack("<8sIIIII", magic, dims, n, slots, ident, 1 if tags is not None else 0),
             struct.pack(f"<{slots}I", *table), struct.pack(f"<{n + 1}I", *offsets), blob, b"\0" * (-len(blob) % 4),
             struct.pack(f"<{n}f", *scales)]
    if tags is not None:
        parts.append(struct.pack(f"<{n}I", *tags))
    parts.append(rows)
    return b"".join(parts)


def write_private(path: str, data: bytes) -> None:
    """Written whole beside, then renamed over (a hook never maps half a file), 0600."""
    from ...base import paths

    paths.ensure_private_dir_str(os.path.dirname(path))
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def build_table(embedder, path: str | None = None, dims: int = DIMS) -> dict[str, object]:  # noqa: ANN001
    """Write the token table of a loaded FastEmbedEmbedder; {path, tokens, dims, bytes, seconds}."""
    started = time.monotonic()
    session, model_dir = _session_and_dir(embedder)
    vocab = _vocab(model_dir)
    special = {t: i for i, t in enumerate(vocab) if t in ("[CLS]", "[SEP]")}
    if len(special) != 2:
        raise ValueError("the model's vocabulary has no [CLS]/[SEP]: not a BERT WordPiece model")
    keep, vectors = token_vectors(session, vocab, special)
    scales, rows = quantize(reduce(vectors, dims))
    keys = [vocab[i].encode("utf-8") for i in keep]
    body = pack(meaning.TABLE_MAGIC, dims, keys, scales, rows)
    from zlib import crc32

    ident = crc32(body) or 1
    data = pack(meaning.TABLE_MAGIC, dims, keys, scales, rows, ident=ident)
    path = path or meaning.table_path(embedder.name)
    write_private(path, data)
    return {"path": path, "tokens": len(keys), "dims": dims, "bytes": len(data),
            "seconds": round(time.monotonic() - started, 2)}


def record_rows(table: meaning.VectorFile, records: Iterable,  # noqa: ANN001
                old: meaning.VectorFile | None = None) -> tuple[list[bytes], list[float], bytes, list[int], int]:
    """(ids, scales, int8 rows, checksums, rows reused) of the records that have a vector (pure Python); a record
    whose text is unchanged since `old` (the previous record file, of the same table) keeps its row."""
    keys, scales, rows, tags, reused = [], [], bytearray(), [], 0
    for r in records:
        check = meaning.checksum(r.title, r.body, r.questions, r.aliases)
        key = r.id.encode("utf-8")
        if old is not None:
            i = old.find(key)
            if i >= 0 and old.tag(i) == check:
                scale, values = old.row(i)
                rows += struct.pack(f"<{table.dims}b", *values)
                keys.append(key)
                scales.append(scale)
                tags.append(check)
                reused += 1
                continue
        vec = meaning.vector(table, meaning.text_words(r.title, r.body, (*r.questions, *r.aliases)))
        if vec is None:
            continue
        top = max(abs(v) for v in vec) or 1.0
        scale = top / 127.0
        rows += struct.pack(f"<{table.dims}b", *(max(-127, min(127, round(v / scale))) for v in vec))
        keys.append(key)
        scales.append(scale)
        tags.append(check)
    return keys, scales, bytes(rows), tags, reused


def build_records(conn, db_file: str, table_file: str) -> dict[str, object]:  # noqa: ANN001
    """Write the store's record file from the token table (every current record of every project: namespaces are
    the search's business, the file only answers by id); {path, records, bytes, seconds}, or {skipped: reason}."""
    started = time.monotonic()
    meaning.reset()
    table = meaning._open(table_file, meaning.TABLE_MAGIC)
    if table is None:
        return {"skipped": f"no token table at {table_file} (agentctx embed --static)"}
    from ...store import records

    path = meaning.records_path(db_file)
    old = meaning._open(path, meaning.RECORDS_MAGIC)
    if old is not None and (old.ident != table.ident or old.dims != table.dims):
        old = None
    try:
        keys, scales, rows, tags, reused = record_rows(table, records.all_current(conn), old)
    except (ValueError, struct.error):  # a damaged previous file: everything again
        keys, scales, rows, tags, reused = record_rows(table, records.all_current(conn))
    data = pack(meaning.RECORDS_MAGIC, table.dims, keys, scales, rows, ident=table.ident, tags=tags)
    write_private(path, data)
    write_private(path + ".table", table_file.encode("utf-8"))
    meaning.reset()
    return {"path": path, "records": len(keys), "reused": reused, "bytes": len(data),
            "seconds": round(time.monotonic() - started, 2)}


def refresh(conn, embedder, *, rebuild: bool = False) -> dict[str, object]:  # noqa: ANN001
    """`agentctx embed`'s static step: the model's token table (built when missing, or with `rebuild`), then the
    store's record file. {table: {...}, records: {...}}."""
    from ...base import paths
    from ..relevance import reads_meaning

    if not reads_meaning():
        return {"skipped": "the shipped injection gate does not read it (docs/benchmarks.md, issue 45)"}
    table_file = meaning.table_path(embedder.name)
    out: dict[str, object] = {}
    if rebuild or meaning._open(table_file, meaning.TABLE_MAGIC) is None:
        meaning.reset()
        out["table"] = build_table(embedder, table_file)
    else:
        out["table"] = {"path": table_file, "bytes": os.path.getsize(table_file), "built": "before"}
    out["records"] = build_records(conn, paths.db_file(), table_file)
    return out


def update_records(conn, model_name: str) -> dict[str, object]:  # noqa: ANN001
    """Consolidation's static step: the record file again (unchanged records keep their rows) when the model's
    token table exists; needs no extra."""
    from ...base import paths
    from ..relevance import reads_meaning

    table_file = meaning.table_path(model_name)
    if not reads_meaning():
        return {"skipped": "the shipped injection gate does not read it"}
    if not os.path.isfile(table_file):
        return {"skipped": "no token table (agentctx embed builds it)"}
    return build_records(conn, paths.db_file(), table_file)
