"""The Claude Code integration: its settings files (our hooks and MCP entry), which command it runs, the agentctx
plugin (installed, enabled, its generated files), `init` and `reset`, and `doctor`.

May import: `base`, `agents`, `store`, `retrieval`, `extract`, `trust`, `outside`, `memory`, `team`, `stash`.
Importing Claude Code's own memory is `outside.memory_import`.
"""
