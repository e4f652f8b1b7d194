"""The dashboard command: `agentctx ui`."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..base.errors import NotFoundError, UsageError
from .context import Context


def _project(value: str | None, ctx: Context):  # type: ignore[no-untyped-def]
    """`--project` names a directory (its project) or a namespace id (a unique prefix of one) in the store."""
    from ..base.project import Project, detect
    from ..store import browse

    if value is None:
        return ctx.project
    if Path(value).expanduser().is_dir():
        return detect(str(Path(value).expanduser()))
    ids = [p["id"] for p in browse.projects(ctx.conn)]
    found = [i for i in ids if i == value] or [i for i in ids if len(value) >= 6 and i.startswith(value)]
    if len(found) != 1:
        raise NotFoundError("file_unreadable", path=value,
                            detail="neither a directory nor the id of one project in the store (6+ characters)")
    from ..base.roots import names

    return Project(found[0], names().get(found[0], found[0][:12]), str(Path.cwd()), None)


def cmd_ui(args: argparse.Namespace, ctx: Context) -> int:
    from ..ui.server import LOOPBACK, serve

    if args.host not in LOOPBACK and not args.allow_remote:
        raise UsageError("invalid_field", field="--host",
                         problem=f"{args.host!r} is not loopback: add --allow-remote to expose your memory to the network")
    if args.port is not None and not 1 <= args.port <= 65535:
        raise UsageError("invalid_field", field="--port", problem="must be between 1 and 65535")
    project = _project(args.project, ctx)
    if args.host not in LOOPBACK:
        import sys

        sys.stderr.write(f"agentctx ui: WARNING: listening on {args.host}: anyone who can reach it and has the "
                         "token can read and change your memory\n")
    try:
        return serve(project, host=args.host, port=args.port, open_browser=not args.no_browser, out=ctx.out)
    except OSError as exc:
        import errno

        if exc.errno not in (errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL):
            raise
        raise UsageError("port_unavailable", host=args.host, port=args.port, detail=exc.strerror or str(exc)) from None


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ui", help="open the dashboard: browse, search, correct the memory (local web page)")
    p.add_argument("--port", type=int, help="port (default 7377, or a free one when it is taken)")
    p.add_argument("--no-browser", action="store_true", help="print the URL without opening a browser")
    p.add_argument("--project", metavar="PATH|ID", help="the project to open (a directory, or a namespace id)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; others need --allow-remote)")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a non-loopback --host (anyone who can reach it and has the token can change your memory)")
    p.set_defaults(handler=cmd_ui)
