"""`python -m agentctx`: the same as the `agentctx` command."""

from . import console

console()
