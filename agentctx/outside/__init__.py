"""What agentctx reads from outside its store: the repository's rule files for agents, the agents' own memory files,
CLAUDE.md and AGENTS.md drift and sync, and the one-time import of Claude Code's memory.

May import: `base`, `agents`, `store`, `retrieval`, `extract`, `trust`, `stash`. Nothing of `memory`: the lifecycle
calls these readers (consolidation, the digest, the anchor map), never the other way round.

Every file read here was written by the repository or by another agent: untrusted input, read bounded and never
followed outside its place. The SQL of what was read lives in the store (`store.rulefiles`, `store.agentmem`,
`store.drift`).
"""
