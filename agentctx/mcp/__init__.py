"""The MCP server: seven ctx_* tools over newline-delimited JSON-RPC on stdio (SPEC §5)."""
