"""Whether a record can still be trusted: the code it names fingerprinted and checked again, inferred records left
unused retired, near-duplicates merged into one fact, and whether one statement already says another.

May import: `base`, `agents`, `store`, `retrieval`, `extract`, `stash`. Nothing of `memory` (consolidation and
`agentctx review` call these checks) or of `outside` (its drift and import use `paraphrase`).

The SQL of fingerprints and marks (unverified, expired, merged) lives in the store (`store.trust`).
"""
