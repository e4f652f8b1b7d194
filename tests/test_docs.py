"""The documentation cites what a reader can open, and says what the code does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "SPEC.md", ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
# A backticked repository file: one of the project's own documents, or a file under one of its folders
# (CLAUDE.md, MEMORY.md and `tools/list` are Claude Code's files and an MCP method, not ours).
CITED = re.compile(r"`((?:DESIGN|SPEC|README|CHANGELOG|LICENSE)(?:\.md)?|"
                   r"(?:seeds|docs|vendor-notes|bench|agentctx|tools|\.ci)/[\w./-]*\.(?:md|py|txt|json|jsonl)|seeds/)`")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_cited_files_exist(doc):
    cited = set(CITED.findall(doc.read_text(encoding="utf-8")))
    missing = sorted(c for c in cited if not (ROOT / c).exists() and not (ROOT / "tests" / c).exists())
    assert not missing, f"{doc.name} cites files that are not in the repository: {missing}"


def test_license_matches_pyproject():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and 'license = "MIT"' in (ROOT / "pyproject.toml").read_text()


def test_spec_states_a_versioning_policy():
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    section = spec.split("## 14. Versioning and deprecation", 1)[1]
    for needed in ("Semantic Versioning", "Public API", "Hook contract", "MCP tools", "Store schema",
                   "agentctx.stash", "Deprecation", "CHANGELOG.md"):
        assert needed in section


def test_fork_is_documented_as_what_it_returns():
    from agentctx.stash import create_stash, encode_recording, fork, load_stash

    stash = create_stash()
    for i in range(3):
        stash.intercept("llm", "step", lambda i=i: {"n": i})
    branch = fork(stash.recording(), at=1, override={"n": 9})
    assert not hasattr(branch, "save")  # a Recording: docs/stash.md must not promise save()
    replay = load_stash(branch)
    assert replay.intercept("llm", "step", lambda: None) == {"n": 0}
    assert replay.intercept("llm", "step", lambda: None) == {"n": 9}
    assert '"version": 1' in encode_recording(branch) or '"version":1' in encode_recording(branch)
    doc = (ROOT / "docs" / "stash.md").read_text(encoding="utf-8")
    assert "`save()` returns the new branch" not in doc and "returns the new branch as a `Recording`" in doc


def test_spec_says_an_over_long_mcp_line_is_answered_with_its_id():
    from agentctx.mcp import server

    # What the server does (the TypeScript SDK puts the id last): a 1 MiB+ request is answered with its own id.
    line = '{"method":"ping","params":{"pad":"' + "x" * server.MAX_LINE + '"},"jsonrpc":"2.0","id":41}\n'
    head, tail = line.encode()[:4096], line.encode()[-4096:]
    assert server.overlong_id(server.Overlong(head, tail)) == 41
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    errors = " ".join(spec.split("- **Errors.** −32700", 1)[1].split("−32600", 1)[0].split())
    assert "longer than 1 MiB (answered with `id: null`" not in errors
    assert "the request's own `id` when it can be read" in errors and "`id: null` only when it cannot" in errors
