"""The Claude Code integration: its settings files (our hooks and MCP entry), which command it runs, the agentctx
plugin (installed, enabled, its generated files), `init` and `reset`, `doctor`, and importing Claude Code's own memory.

May import: `base`, `store`, `retrieval`, `extract`, `memory`, `team`, `stash`.
"""
