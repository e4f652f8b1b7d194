"""All record SQL: records and supersession, retrieval queries, the entity graph, sessions and the ledger."""

from . import graph, records, retrieval, sessions

__all__ = ["graph", "records", "retrieval", "sessions"]
