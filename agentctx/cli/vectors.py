"""Vector commands: `agentctx models pull` (the one network step) and `agentctx embed` (the backfill)."""

from __future__ import annotations

import argparse
import sys
import time

from ..base.errors import ConfigError, MissingExtraError, UsageError
from .context import Context
from .parser import add_json


def _raise(exc: Exception) -> None:
    """An Unavailable as the CLI's error contract: one line saying why and how to fix it."""
    reason, fix = getattr(exc, "reason", str(exc)), getattr(exc, "fix", "")
    if "extra is not installed" in reason:
        raise MissingExtraError("vector search", "vectors") from None
    raise ConfigError("config_bad_value", key="embeddingModel", problem=f"{reason} (fix: {fix})") from None


class Progress:
    """A one-line progress bar on a terminal's stderr; silent otherwise (pipes, CI, --json)."""

    def __init__(self, label: str, enabled: bool) -> None:
        self.label = label
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / total) if total else width
        rate = done / max(time.monotonic() - self.start, 1e-9)
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} ({rate:.0f}/s)")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _needs_action(args: argparse.Namespace, ctx: Context) -> int:
    from ..base.errors import UsageError

    raise UsageError("missing_action", command="models", actions="pull")


def cmd_models_pull(args: argparse.Namespace, ctx: Context) -> int:
    from ..base import config, paths
    from ..retrieval.vectors import Unavailable
    from ..retrieval.vectors.embedder import ModelSpec, download, spec

    model = spec(config.load())
    if args.model:
        model = ModelSpec(args.model, None)
    if model.path:
        ctx.out(f"embeddingModelPath is set ({model.path}): nothing to download")
        return 0
    if not ctx.json:
        sys.stderr.write(f"downloading {model.name} into {paths.models_dir()} ...\n")
    try:
        embedder = download(model)  # the hub client prints its own per-file progress on a terminal
    except Unavailable as exc:
        _raise(exc)
    result = {"model": embedder.name, "dims": embedder.dims, "cache_dir": str(paths.models_dir())}
    if ctx.json:
        ctx.emit(result)
    else:
        ctx.out(f"{embedder.name} ({embedder.dims} dims) ready in {paths.models_dir()}")
    return 0


def cmd_embed(args: argparse.Namespace, ctx: Context) -> int:
    from ..store import vectors as store
    from ..retrieval.vectors import Unavailable, backfill
    from ..retrieval.vectors.embedder import shared

    if args.batch < 1:
        raise UsageError("invalid_field", field="--batch", problem="must be at least 1")
    conn = ctx.conn
    try:
        embedder = shared()
    except Unavailable as exc:
        _raise(exc)
    dropped = store.reset(conn) if args.rebuild else 0
    report = backfill.run(conn, embedder, batch=args.batch, progress=Progress("embedding", not ctx.json))
    result = {"model": embedder.name, "dims": embedder.dims, "embedded": report.embedded,
              "remaining": report.remaining, "seconds": round(report.seconds, 2),
              "dropped": dropped + report.dropped}
    from ..retrieval.vectors import static

    try:
        result["static"] = static.refresh(conn, embedder, rebuild=args.rebuild)
    except (ValueError, OSError) as exc:  # a model that is no WordPiece BERT, a full disk: the prompt stays lexical
        result["static"] = {"skipped": str(exc)[:200]}
    if ctx.json:
        ctx.emit(result)
    else:
        rate = report.embedded / report.seconds if report.seconds else 0.0
        ctx.out(f"embedded {report.embedded} records with {embedder.name} in {report.seconds:.1f} s "
                f"({rate:.0f}/s); {report.remaining} pending")
        ctx.out(_static_line(result["static"]))  # type: ignore[arg-type]
    return 0


def _static_line(found: dict) -> str:  # type: ignore[type-arg]
    """What the prompt hook's meaning data is now (SPEC §7.4)."""
    if "skipped" in found:
        return f"prompt-time meaning data: not built ({found['skipped']})"
    table, recs = found["table"], found["records"]
    if "skipped" in recs:
        return f"prompt-time meaning data: {recs['skipped']}"
    built = f"built in {table['seconds']} s" if "seconds" in table else "built before"
    return (f"prompt-time meaning data: token table {table['bytes'] / 1e6:.1f} MB ({built}), {recs['records']} "
            f"record vectors {recs['bytes'] / 1e3:.0f} KB in {recs['seconds']} s")


def _positive(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {value!r}") from None


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from ..retrieval.vectors.backfill import DEFAULT_BATCH

    p = sub.add_parser("models", help="embedding models ([vectors] extra)")
    p.set_defaults(handler=_needs_action)
    models = p.add_subparsers(dest="models_command", metavar="ACTION")
    pull = models.add_parser("pull", help="download the embedding model into ~/.agentctx/models/ (needs network)")
    pull.add_argument("--model", help="a fastembed model name (default: config embeddingModel)")
    add_json(pull)
    pull.set_defaults(handler=cmd_models_pull)

    p = sub.add_parser("embed", help="embed records that have no vector yet (resumable)")
    p.add_argument("--rebuild", action="store_true",
                   help="drop every vector and embed all records again (and rebuild the prompt-time token table)")
    p.add_argument("--batch", type=_positive, default=DEFAULT_BATCH, help=f"records per batch (default {DEFAULT_BATCH})")
    add_json(p)
    p.set_defaults(handler=cmd_embed)

