"""All record SQL: records and supersession, retrieval queries, the entity graph, sessions and the ledger.

Submodules are imported where used (`from agentctx.store import records`): the hooks load only what they need.
"""
