"""The command line: `main(argv) -> int` parses, calls the library, prints, and returns a sysexits status.

May import: every layer below, and the other surfaces it starts (`hooks`, `mcp`, `ui`).
"""

from __future__ import annotations

import sys

# Only `sys` at import time: `agentctx hook` must reach its handler with as little as possible loaded.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from .parser import Parser

# Each module registers its subcommands; the order here is the order of `agentctx --help`.
COMMAND_MODULES = ("admin", "project", "records", "actions", "mcp", "extract", "integration", "rules", "vectors",
                   "team", "ui", "control", "dispatched")


def build_parser() -> "Parser":
    import importlib

    from ..base import __version__
    from .parser import Parser

    parser = Parser(prog="agentctx", description="Memory for coding agents: typed, bi-temporal records in one SQLite file.")
    parser.add_argument("--version", action="version", version=f"agentctx {__version__}")
    parser.add_argument("-C", "--cwd", metavar="DIR", help="act for the project at DIR instead of the current directory")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # Hooks run on every prompt: dispatch them before building the parser or importing anything else.
    if args_list[:1] == ["hook"]:
        try:
            from ..hooks import run as run_hook
        except Exception:  # a hook must never break the agent's session
            return 0
        return run_hook(args_list[1:])
    if args_list[:1] == ["mcp"] and all(a == "--sdk" for a in args_list[1:]):
        # The MCP client waits for the server: start it without building the whole command line.
        if "--sdk" in args_list:
            from ..mcp.sdk_server import main as serve
        else:
            from ..mcp.server import main as serve
        try:
            return serve(cwd=None)
        except KeyboardInterrupt:
            return 130
        except Exception as exc:  # the extra missing, a store that cannot open: one line and a status, no traceback
            from ..base.errors import AgentctxError
            from .terminal import printable

            sys.stderr.write(printable(f"agentctx: {exc}" if isinstance(exc, AgentctxError)
                                       else f"agentctx: unexpected {type(exc).__name__}: {exc}") + "\n")
            return exc.exit_code if isinstance(exc, AgentctxError) else 1
    if args_list[:1] == ["stash"]:
        from ..stash.cli import main as stash_main

        return stash_main(args_list[1:])
    import sqlite3

    from ..base.errors import EX_USAGE, AgentctxError
    from ..memory import keep_digests_fresh
    from .context import Context, fail

    keep_digests_fresh()  # a record any command writes rebuilds the digests it changes
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EX_USAGE
    if not getattr(args, "handler", None):
        # One line like every other usage error; `--help` has the long form.
        sys.stderr.write("agentctx: error: no command given (see `agentctx --help`)\n")
        return EX_USAGE
    ctx = Context(cwd=args.cwd, json=bool(getattr(args, "json", False)))
    try:
        return int(args.handler(args, ctx) or 0)
    except AgentctxError as exc:
        return fail(ctx, exc)
    except sqlite3.Error as exc:
        from ..store.db import translate
        from ..base import paths

        return fail(ctx, translate(exc, paths.db_path()))
    except KeyboardInterrupt:
        sys.stderr.write("agentctx: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # an unwritable data dir, a file where a directory should be: one line, not a traceback
        where = f": {exc.filename}" if exc.filename else ""
        from .terminal import printable

        sys.stderr.write(printable(f"agentctx: {exc.strerror or exc}{where}") + "\n")
        return 1
    except Exception as exc:  # never a traceback on the command line
        from .terminal import printable

        sys.stderr.write(printable(f"agentctx: unexpected {type(exc).__name__}: {exc}") + "\n")
        return 1
    finally:
        ctx.close()


def console() -> None:
    """Run main() and exit with its status (the `agentctx` command reaches it through `agentctx.console`)."""
    sys.exit(main())
