"""Both servers (hand-written and `--sdk`) driven by the official `mcp` client over a real subprocess."""

import os
import sys

import pytest

mcp = pytest.importorskip("mcp")

SPEC_ORDER = ["ctx_search", "ctx_get", "ctx_record", "ctx_supersede", "ctx_project", "ctx_related",
              "ctx_sync_claudemd"]


def params(repo, variant, **env):
    from mcp import StdioServerParameters

    args = ["-m", "agentctx", "mcp"] + (["--sdk"] if variant == "sdk" else [])
    base = {"AGENTCTX_HOME": os.environ["AGENTCTX_HOME"], "HOME": os.environ["HOME"]}
    return StdioServerParameters(command=sys.executable, args=args, env=base | env, cwd=str(repo))


async def scenario(server_params, repo):
    from mcp import Client

    async with Client(server_params, read_timeout_seconds=30) as client:
        assert client.protocol_version in ("2025-11-25", "2026-07-28")
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == SPEC_ORDER
        assert all(t.title and t.output_schema and t.annotations is not None for t in tools)

        rec = await client.call_tool("ctx_record", {"type": "decision", "title": "Use REST everywhere",
                                                    "body": "Every service speaks JSON over HTTP."})
        assert not rec.is_error
        old_id = rec.structured_content["id"]

        found = await client.call_tool("ctx_search", {"query": "REST services"})
        assert [h["id"] for h in found.structured_content["results"]] == [old_id]

        got = await client.call_tool("ctx_get", {"ids": [old_id, "nope"]})
        assert got.structured_content["records"][0]["body"].startswith("Every service")
        assert got.structured_content["missing"] == ["nope"]

        sup = await client.call_tool("ctx_supersede", {"old_id": old_id, "new_body": "gRPC between services.",
                                                       "rationale": "typed contracts"})
        new_id = sup.structured_content["new_id"]
        again = await client.call_tool("ctx_supersede", {"old_id": old_id, "new_body": "x", "rationale": "y"})
        assert again.is_error and new_id in again.structured_content["error"]

        bad = await client.call_tool("ctx_search", {"query": 5})  # the client does not validate; we do
        assert bad.is_error and "query must be string" in bad.structured_content["error"]

        related = await client.call_tool("ctx_related", {"file": "src/api.py"})
        assert related.structured_content["results"] == []

        project = await client.call_tool("ctx_project", {})
        assert project.structured_content["name"] == repo.name
        assert project.structured_content["record_counts_by_type"] == {"decision": 1}

        drift = await client.call_tool("ctx_sync_claudemd", {})
        assert [c["id"] for c in drift.structured_content["contradicted"]] == [old_id]
        assert drift.structured_content["missing"][0]["id"] == new_id

        with pytest.raises(mcp.MCPError) as info:
            await client.call_tool("ctx_nope", {})
        assert info.value.code == -32602


@pytest.mark.parametrize("variant", ["raw", "sdk"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_official_client(store, repo_a, variant, mode):
    import anyio

    (repo_a / "CLAUDE.md").write_text("# Services\n\n- Use REST everywhere\n", encoding="utf-8")
    server_params = params(repo_a, variant)

    async def run():
        if mode == "legacy":
            from mcp import Client

            async with Client(server_params, mode="legacy", read_timeout_seconds=30) as client:
                assert client.protocol_version == "2025-11-25"
                assert len((await client.list_tools()).tools) == 7
            return
        await scenario(server_params, repo_a)

    anyio.run(run)


def test_raw_server_negotiates_legacy_with_auto_client(store, repo_a):
    import anyio
    from mcp import Client

    async def run():
        async with Client(params(repo_a, "raw"), read_timeout_seconds=30) as client:
            assert client.protocol_version == "2025-11-25"

    anyio.run(run)


@pytest.mark.parametrize("variant", ["raw", "sdk"])
def test_claude_project_dir_wins_over_cwd(store, repo_a, repo_b, variant):
    """Claude Code may start a user-scope server anywhere; CLAUDE_PROJECT_DIR names the project."""
    import anyio
    from mcp import Client

    async def run():
        async with Client(params(repo_b, variant, CLAUDE_PROJECT_DIR=str(repo_a)), read_timeout_seconds=30) as c:
            out = await c.call_tool("ctx_project", {})
            assert out.structured_content["name"] == "repo-a"

    anyio.run(run)
