"""Embedders: the small protocol, the fastembed implementation, and which model the config selects."""

from __future__ import annotations

import json
import os
from collections import namedtuple
from typing import TYPE_CHECKING, Protocol, Sequence

from ...base import config, paths
from . import Unavailable, extra_fix

if TYPE_CHECKING:
    import numpy as np

# bge models were trained with this instruction in front of short queries (not passages); fastembed 0.9.1 does not
# add it, so we do, to queries only. MiniLM was trained without one.
QUERY_PREFIX = {
    "BAAI/bge-small-en-v1.5": "Represent this sentence for searching relevant passages: ",
    "BAAI/bge-base-en-v1.5": "Represent this sentence for searching relevant passages: ",
    "BAAI/bge-large-en-v1.5": "Represent this sentence for searching relevant passages: ",
}
# A local folder with a model fastembed does not list is loaded as mean-pooled, normalised BERT-style ONNX.
CUSTOM_MODEL_FILE = "model.onnx"

# Texts per ONNX Runtime run (see FastEmbedEmbedder.embed).
RUN_ROWS = 4

# name: stored next to every vector; path: a local model folder or None (the cache in models_dir()).
ModelSpec = namedtuple("ModelSpec", "name path")


class Embedder(Protocol):
    """Turns text into unit-length float32 vectors of `dims` dimensions in the space named `name`."""

    name: str
    dims: int

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        """Passages (records): an (n, dims) float32 array of unit rows."""

    def embed_query(self, text: str) -> "np.ndarray":
        """One query: a (dims,) float32 unit vector."""


def document_text(title: str, body: str) -> str:
    """What a record is embedded as: its title, then its body unless the body merely repeats the title."""
    body = body.strip()
    if not body or body.startswith(title.strip()):
        return body or title
    return f"{title.strip()}\n{body}"


def spec(cfg: dict[str, object] | None = None) -> ModelSpec:
    cfg = cfg if cfg is not None else config.load()
    path = cfg.get("embeddingModelPath")
    return ModelSpec(str(cfg.get("embeddingModel") or config.KEYS["embeddingModel"].default),
                     os.path.expanduser(str(path)) if path else None)


def _import_fastembed():  # noqa: ANN202 - the module, or Unavailable
    try:
        import numpy  # noqa: F401
        from fastembed import TextEmbedding
    except ImportError as exc:
        raise Unavailable(f"the [vectors] extra is not installed ({exc.name or exc})", extra_fix()) from None
    return TextEmbedding


def _description(text_embedding, name: str) -> dict | None:  # noqa: ANN001
    for item in text_embedding.list_supported_models():
        if item.get("model") == name:
            return item
    return None


def _local_dims(folder: str) -> int | None:
    try:
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as fh:
            size = json.load(fh).get("hidden_size")
        return int(size) if size else None
    except (OSError, ValueError, TypeError):
        return None


class FastEmbedEmbedder:
    """fastembed over ONNX Runtime. Loads from a local folder, or from the cache in ~/.agentctx/models/ (offline
    unless `download`): constructing it never touches the network unless asked to."""

    def __init__(self, model: ModelSpec, *, download: bool = False, threads: int | None = None) -> None:
        text_embedding = _import_fastembed()
        self.name = model.name
        self._prefix = QUERY_PREFIX.get(model.name, "")
        described = _description(text_embedding, model.name)
        kwargs: dict[str, object] = {"threads": threads}
        if model.path:
            if not os.path.isdir(model.path):
                raise Unavailable(f"embeddingModelPath {model.path} is not a directory",
                                  "agentctx config set embeddingModelPath <a model folder> (or unset it)")
            model_file = (described or {}).get("model_file", CUSTOM_MODEL_FILE)
            if not os.path.exists(os.path.join(model.path, model_file)):
                raise Unavailable(f"{model.path} has no {model_file}, which model {model.name} needs",
                                  "set embeddingModel to the model that folder holds")
            if described is None:
                described = self._register(text_embedding, model)
            kwargs["specific_model_path"] = model.path
        else:
            if described is None:
                raise Unavailable(f"fastembed does not know the model {model.name}",
                                  "set embeddingModel to a fastembed model, or embeddingModelPath to its folder")
            cache = paths.ensure_private_dir(paths.models_dir())
            kwargs["cache_dir"] = str(cache)
            kwargs["local_files_only"] = not download
        try:
            self._model = text_embedding(model_name=model.name, **kwargs)
        except Exception as exc:  # ONNX Runtime, tokenizer and hub errors have no common base class
            where = model.path or str(paths.models_dir())
            fix = ("check the folder (model.onnx, tokenizer.json)" if model.path
                   else "agentctx models pull (needs the network once)")
            raise Unavailable(f"model {model.name} did not load from {where}: {str(exc).splitlines()[0][:160]}",
                              fix) from None
        self.dims = int(described.get("dim") or 0) or len(self.embed_query("dimension probe"))

    @staticmethod
    def _register(text_embedding, model: ModelSpec) -> dict:  # noqa: ANN001
        from fastembed.common.model_description import ModelSource, PoolingType

        dims = _local_dims(model.path or "")
        if not dims:
            raise Unavailable(f"{model.path} has no config.json with hidden_size", "use a sentence-transformers ONNX export")
        try:
            text_embedding.add_custom_model(model=model.name, pooling=PoolingType.MEAN, normalization=True,
                                            sources=ModelSource(hf=model.name), dim=dims, model_file=CUSTOM_MODEL_FILE)
        except ValueError:
            pass  # registered earlier in this process
        return {"model": model.name, "dim": dims, "model_file": CUSTOM_MODEL_FILE}

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        import numpy as np

        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        # ONNX Runtime's peak memory grows with rows x longest row squared, and its arena keeps the peak: 64 records
        # of up to 512 tokens in one run held 4 GB (bench/retrieval.py --hybrid --adr). Runs of RUN_ROWS texts of
        # similar length (sorted, so little padding) hold ~0.4 GB whatever the batch, at the same speed.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        rows = list(self._model.embed([texts[i] for i in order], batch_size=RUN_ROWS))
        out = np.empty((len(texts), len(rows[0])), dtype=np.float32)
        for i, row in zip(order, rows):
            out[i] = row
        return out

    def embed_query(self, text: str) -> "np.ndarray":
        import numpy as np

        vector = next(iter(self._model.embed([self._prefix + text])))
        return np.asarray(vector, dtype=np.float32)


def download(model: ModelSpec, threads: int | None = None) -> FastEmbedEmbedder:
    """Fetch the model into ~/.agentctx/models/ (the one place the network is used) and load it."""
    return FastEmbedEmbedder(model, download=True, threads=threads)


def _missing_extra() -> str | None:
    """The first missing module of the extra, found without importing it."""
    from ...base.extras import missing

    return missing("vectors")


def _cached_any() -> bool:
    try:
        return any(name.startswith("models--") for name in os.listdir(paths.models_dir()))
    except OSError:
        return False


_loaded: dict[ModelSpec, "FastEmbedEmbedder | Unavailable"] = {}


def shared(cfg: dict[str, object] | None = None) -> FastEmbedEmbedder:
    """The configured embedder, loaded at most once per process (the MCP server's first search pays for it).

    A failure is remembered too: a server must not retry a broken model on every call. Raises Unavailable.
    """
    cfg = cfg if cfg is not None else config.load()
    if not cfg.get("embeddings", True):
        raise Unavailable("embeddings are off in config", "agentctx config set embeddings true")
    model = spec(cfg)
    missing = _missing_extra()
    if missing:
        raise Unavailable(f"the [vectors] extra is not installed ({missing})", extra_fix())
    if model.path is None and not _cached_any():
        # Checked before importing fastembed (~0.5 s): a machine that never pulled a model pays nothing.
        raise Unavailable(f"model {model.name} is not downloaded", "agentctx models pull")
    if model not in _loaded:
        try:
            _loaded[model] = FastEmbedEmbedder(model)
        except Unavailable as exc:
            _loaded[model] = exc
    found = _loaded[model]
    if isinstance(found, Unavailable):
        raise found
    return found
