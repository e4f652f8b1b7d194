"""agentctx.stash: stdlib-only record/replay of every source of non-determinism in an agent run."""
