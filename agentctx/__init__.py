"""agentctx: typed, bi-temporal memory for coding agents, in one SQLite file."""

def __getattr__(name: str) -> str:
    """`agentctx.__version__`, read from `agentctx.base` only when asked: `import agentctx.stash` loads nothing else."""
    if name == "__version__":
        from .base import __version__

        return __version__
    raise AttributeError(f"module 'agentctx' has no attribute {name!r}")


def console() -> None:
    """The `agentctx` command and `python -m agentctx`.

    Hooks go straight to their dispatcher, without the command-line package: a hook process pays for every module
    it imports on every prompt. Everything else runs `agentctx.cli.main`.
    """
    import sys

    if sys.argv[1:2] == ["hook"]:
        try:
            from .hooks import console as hook_console
        except Exception:  # a hook must never break the agent's session, even when agentctx cannot load
            sys.exit(0)
        hook_console(sys.argv[2:])
    from .base.spawn import limit_lifetime

    limit_lifetime()  # a detached worker (consolidate, extract) ends when its spawner's deadline runs out
    from .cli import console as cli_console

    cli_console()
