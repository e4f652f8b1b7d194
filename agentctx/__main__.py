"""`python -m agentctx`: the same as the `agentctx` command."""

from .cli import console

console()
