"""The MCP server: seven ctx_* tools over newline-delimited JSON-RPC on stdio (SPEC §5).

May import: every layer below the surfaces; the `mcp` SDK (the `[mcp-sdk]` extra) only in `sdk_server`.
"""
