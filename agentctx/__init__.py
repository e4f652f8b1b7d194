"""agentctx: typed, bi-temporal memory for coding agents, in one SQLite file."""

__version__ = "0.1.0"
