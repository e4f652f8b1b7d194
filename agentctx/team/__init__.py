"""Team memory through git: the `.agentctx/context.md` format, export and import of it, the file's change stamp,
and the Markdown export of a project's records.

May import: `base`, `store`, `retrieval`, `trust`, `outside`, `memory`, `stash`.
"""
