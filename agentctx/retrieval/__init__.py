"""Finding records: keyword search, query expansion, the prompt hook's relevance decision and its explanation,
vectors and hybrid fusion.

May import: `base`, `store`, `stash`. Reads the store; writes only derived data (vectors, term statistics).
"""
