"""minitoml: the TOML subset profile detection reads on Python 3.10, checked against tomllib where it exists."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentctx.base import minitoml
from agentctx.memory import profile

ROOT = Path(__file__).resolve().parents[2]

DOCS = {
    "pyproject": ROOT / "pyproject.toml",
    "strings": r'''
a = "tab\there \"quoted\" \u00e9 \\ back"   # comment
b = 'C:\literal\path'
c = """
first line
second "quoted" line \
    joined"""
d = """""two quotes before the end"""""
"quoted key" = 1
dotted.key.path = "x"
''' + "e = '''raw \\n kept'''\n",
    "arrays": '''
deps = [
  "fastapi>=0.100",  # trailing comments
  'pydantic',
  [1, 2], { name = "inline", n = 3 },
]
empty = []
nested = { a = { b = [true, false] }, c = 1.5e3 }
''',
    "tables": '''
[project]
name = "x"
requires-python = ">=3.10"
[project.optional-dependencies]
dev = ["pytest>=7"]
[[bin]]
name = "one"
[[bin]]
name = "two"
[bin.extra]
k = 0x1F
[tool.uv]
dev-dependencies = []
[tool."quoted.name"]
n = -1_000
''',
    "uv-receipt": '''
[tool]
requirements = [
    { name = "agentctx-memory", directory = "/work/checkout" },
    { name = "anthropic", specifier = ">=2,<3" },
]
entrypoints = [
    { name = "agentctx", install-path = "/home/u/.local/bin/agentctx", from = "agentctx-memory" },
]
''',
}


def _text(name: str) -> str:
    doc = DOCS[name]
    return doc.read_text(encoding="utf-8") if isinstance(doc, Path) else doc


@pytest.mark.parametrize("name", sorted(DOCS))
def test_agrees_with_tomllib(name):
    tomllib = pytest.importorskip("tomllib", reason="tomllib is 3.11+; the expected values below cover 3.10")
    assert minitoml.loads(_text(name)) == tomllib.loads(_text(name))


def test_values_without_tomllib():
    doc = minitoml.loads(_text("strings"))
    assert doc["a"] == 'tab\there "quoted" \u00e9 \\ back'
    assert doc["b"] == r"C:\literal\path"
    assert doc["c"] == 'first line\nsecond "quoted" line joined'
    assert doc["d"] == '""two quotes before the end""'
    assert doc["e"] == r"raw \n kept"
    assert doc["quoted key"] == 1 and doc["dotted"] == {"key": {"path": "x"}}
    tables = minitoml.loads(_text("tables"))
    assert tables["project"]["optional-dependencies"] == {"dev": ["pytest>=7"]}
    assert [b["name"] for b in tables["bin"]] == ["one", "two"] and tables["bin"][1]["extra"] == {"k": 31}
    assert tables["tool"]["quoted.name"]["n"] == -1000 and "uv" in tables["tool"]
    arrays = minitoml.loads(_text("arrays"))
    assert arrays["deps"] == ["fastapi>=0.100", "pydantic", [1, 2], {"name": "inline", "n": 3}]
    assert arrays["nested"] == {"a": {"b": [True, False]}, "c": 1500.0}


@pytest.mark.parametrize("bad", ['a = "open', "a = [1, 2", "[table", "a = 1 2", 'a = "\\q"', "= 1",
                                 "a = {b = 1}\n[a.c]\nd = 2", "a = {b = 1}\na.c = 2"])
def test_malformed_raises_value_error(bad):
    with pytest.raises(ValueError):
        minitoml.loads(bad)


def test_profile_reads_pyproject_without_tomllib(tmp_path, monkeypatch):
    """Python 3.10 has no tomllib: detection still reads requires-python, dependencies, scripts and tools."""
    monkeypatch.setitem(sys.modules, "tomllib", None)  # `import tomllib` now raises ImportError, as on 3.10
    with pytest.raises(ImportError):
        import tomllib  # noqa: F401
    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python=">=3.10"\ndependencies=["fastapi"]\n'
                                             '[project.scripts]\ntool="pkg.cli:main"\n[tool.ruff]\n')
    (tmp_path / "Cargo.toml").write_text('[package]\nname="x"\nedition="2021"\n[workspace]\n')
    bodies = profile.detect(tmp_path).bodies()
    assert "Language: Python (>=3.10)" in bodies["Stack"] and "FastAPI" in bodies["Stack"]
    assert "Rust (edition 2021)" in bodies["Stack"] and "Cargo workspace" in bodies["Stack"]
    assert "lint: ruff check ." in bodies["Commands"]
    assert "console script `tool` -> pkg.cli:main" in bodies["Entry points"]


def test_real_codex_configs_and_multiline_strings_read_as_tomllib_reads_them():
    """The Codex configs of real users (tests/data/userfiles) and multi-line strings holding a table header, as
    the 3.10 fallback must read them for `init`/`uninstall` to edit config.toml (issue 34)."""
    tomllib = pytest.importorskip("tomllib")
    from pathlib import Path

    texts = [p.read_text(encoding="utf-8") for p in
             sorted((Path(__file__).parents[1] / "data" / "userfiles").glob("codex-*.toml"))]
    texts += ['a = """\n[mcp_servers.agentctx]\nx = \\"""\n"""\n[b]\nc = 1\n',
              "a = '''\n[mcp_servers.agentctx]\n'''\n[b]\nc = '''one\n''''\n",
              'a = """\nline \\\n   continued"""\n', 'k = """""quoted"""""\n']
    for text in texts:
        assert minitoml.loads(text) == tomllib.loads(text), text[:60]
