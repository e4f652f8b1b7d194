"""`agentctx sync` does not propose what CLAUDE.md already says in other words (issue 34, item 13); a record that
contradicts it or adds to it is still proposed. CLAUDE.md: github.com/NicholasGrundl/tokentoss (its test and
command sections)."""

import json

from agentctx.cli import main

TOKENTOSS = """# CLAUDE.md

## Running Commands

Always use `uv run` to execute commands (not `python` or `python3` directly).

## Testing

```bash
uv run pytest tests/ -x -q
```

- The `-x` flag stops on first failure; `-q` gives concise output
- Always use pytest — do not use unittest directly
- When unittest functionality is needed (e.g. mocking), prefer pytest ecosystem equivalents (e.g. `pytest-mock`, `monkeypatch`) over `unittest.mock`
- Integration tests are marked with `@pytest.mark.integration`; run them with `uv run pytest -m integration`
"""


def test_sync_skips_restatements_and_proposes_the_rest(conn, repo, add, capsys):
    (repo / "CLAUDE.md").write_text(TOKENTOSS, encoding="utf-8")
    same_tests = add("Tests are written with pytest, not unittest", "Tests are written with pytest, not unittest.",
                     type="convention")
    same_uv = add("Run commands through uv run", "Run commands through uv run, never plain python.",
                  type="convention")
    opposite = add("Tests use unittest, not pytest", "New tests subclass unittest.TestCase; pytest is not used.",
                   type="convention")
    adds = add("Parallel test runs with pytest-xdist", "Run the suite with pytest -n auto (pytest-xdist) in CI.",
               type="convention")
    assert main(["-C", str(repo), "sync", "--json"]) == 0
    missing = {m["id"] for m in json.loads(capsys.readouterr().out)["missing"]}
    assert same_tests.id not in missing and same_uv.id not in missing
    assert opposite.id in missing and adds.id in missing
