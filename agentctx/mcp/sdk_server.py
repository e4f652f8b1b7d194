"""`agentctx mcp --sdk`: the same TOOLS table served through the official `mcp` package's low-level Server."""

from __future__ import annotations

from typing import Any

from ..base import __version__
from ..base.errors import MissingExtraError
from .handlers import ToolContext
from .jsonrpc import INVALID_PARAMS
from .server import make_context
from .tools import INSTRUCTIONS, TOOLS, call


def build(tools: ToolContext) -> Any:
    """A low-level `mcp` Server whose list and call handlers delegate to TOOLS (no tool logic here)."""
    try:
        import mcp_types as types
        from mcp import MCPError
        from mcp.server.lowlevel import Server
    except ImportError:
        raise MissingExtraError("agentctx mcp --sdk", "mcp-sdk") from None

    listed = [types.Tool.model_validate(tool.to_dict()) for tool in TOOLS.values()]

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in TOOLS:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}", {"tools": list(TOOLS)})
        result = call(tools, params.name, dict(params.arguments or {}))
        return types.CallToolResult.model_validate(result.to_dict())

    return Server("agentctx", version=__version__, title="agentctx project memory", instructions=INSTRUCTIONS,
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def main(cwd: str | None = None) -> int:
    """Serve over stdio until the client closes stdin."""
    tools = make_context(cwd=cwd)
    server = build(tools)
    from ..retrieval.vectors import search as vector_search

    vector_search.PREFER = "numpy"  # as in the hand-written server: a long-lived process keeps the matrix cached
    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(run)
    except KeyboardInterrupt:
        pass
    finally:
        tools.close()
    return 0
