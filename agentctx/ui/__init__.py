"""`agentctx ui`: a local dashboard (standard library HTTP server, static page, token-guarded JSON API).

May import: every layer below the surfaces.
"""
