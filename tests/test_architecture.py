"""The package's shape, checked: no import cycle, no import that goes up a layer, a small top level, every package
saying what it owns and may import, and docs/architecture.md drawn from the same layer table (tools/layers.py)."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layers():
    spec = importlib.util.spec_from_file_location("agentctx_layers", ROOT / "tools" / "layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


layers = _layers()


def test_every_module_belongs_to_a_layer():
    for module in layers.modules():
        layers.layer_of(module)  # raises for a module no layer owns


def test_no_import_cycle():
    assert layers.cycles(layers.graph()) == []


def test_no_import_goes_up_a_layer():
    assert layers.upward(layers.graph()) == []


def test_the_top_of_the_package_holds_few_modules():
    assert len(layers.top_level()) <= layers.TOP_LEVEL_MAX, layers.top_level()


def test_every_package_says_what_it_owns_and_what_it_may_import():
    for init in sorted((ROOT / "agentctx").glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert doc.strip(), f"{init.parent.name}: no docstring"
    for name, owners in layers.LAYERS:
        for owner in owners:
            if owner.count(".") != 1 or owner in ("agentctx.stash", "agentctx.__main__"):
                continue
            init = ROOT / Path(*owner.split(".")) / "__init__.py"
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
            assert "May import" in doc, f"{owner}: its docstring does not say what it may import"


def test_no_package_says_it_may_import_a_layer_above_it():
    """What each package's docstring says it may import (its "May import:" sentence) agrees with the layer table:
    memory may name the rooms below it (`outside`, `trust`), and they may not name memory."""
    names = {owner.rpartition(".")[2]: i for i, (_, owners) in enumerate(layers.LAYERS) for owner in owners}
    checked = 0
    for i, (_, owners) in enumerate(layers.LAYERS):
        for owner in owners:
            init = ROOT / Path(*owner.split(".")) / "__init__.py"
            if owner.count(".") != 1 or not init.is_file():
                continue
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
            if "May import:" not in doc:
                continue
            sentence = " ".join(doc.split("May import:", 1)[1].split()).split(". ")[0]
            said = {name.removeprefix("agentctx.") for name in re.findall(r"`([\w.]+)`", sentence)}
            above = sorted(name for name in said if name in names and names[name] > i)
            assert not above, f"{owner} says it may import {above}, a layer above it in tools/layers.py"
            checked += 1
    assert checked >= 10


def test_every_module_has_a_one_line_summary():
    for module, path in layers.modules().items():
        if path.name == "__main__.py" and module.startswith("agentctx.stash"):
            continue
        assert ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))), f"{module}: no docstring"


def test_the_architecture_doc_is_drawn_from_the_table():
    text = layers.DOC.read_text(encoding="utf-8")
    assert layers.doc_block(text) == layers.render_docs(), "run: python tools/layers.py --docs"


def test_the_checks_catch_a_cycle_and_an_upward_import(tmp_path):
    """The checker itself, on a small package laid out like ours: a store that imports the memory above it (lazily,
    as the old freshness module did) and a cycle between two base modules."""
    pkg = tmp_path / "agentctx"
    files = {
        "__init__.py": '"""root."""\n',
        "base/__init__.py": '"""base."""\n',
        "base/a.py": '"""a."""\nfrom . import b\n',
        "base/b.py": '"""b."""\ndef f():\n    from . import a\n',
        "store/__init__.py": '"""store."""\n',
        "store/records.py": '"""records."""\ndef changed():\n    from ..memory import digest\n',
        "memory/__init__.py": '"""memory."""\n',
        "memory/digest.py": '"""digest."""\nfrom ..store import records\n',
        "memory/typed.py": '"""typed."""\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n    from ..hooks import x\n',
        "hooks/__init__.py": '"""hooks."""\n',
    }
    for rel, body in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(body)
    edges = layers.graph(pkg)
    found = layers.cycles(edges)
    assert ["agentctx.base.a", "agentctx.base.b"] in found
    assert ["agentctx.memory.digest", "agentctx.store.records"] in found
    ups = layers.upward(edges)
    assert any(u.startswith("agentctx.store.records:3 imports agentctx.memory.digest (store -> memory)") for u in ups)
    assert not any("typed" in u for u in ups)  # `if TYPE_CHECKING:` imports are not dependencies


def test_the_root_package_imports_nothing_when_the_stash_is_used():
    code = textwrap.dedent("""
        import sys, agentctx.stash
        print(sorted(m for m in sys.modules if m.startswith("agentctx") and not m.startswith("agentctx.stash")))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.strip() == "['agentctx']"


def test_every_surface_that_writes_records_keeps_digests_fresh():
    """The store cannot import the digest: the surfaces that write records register its rebuild (`base.freshness`),
    and so does every memory module."""
    cases = [
        "import agentctx.mcp.handlers",
        "import agentctx.ui.api",
        "import agentctx.memory.capture",
        "import contextlib, io\nfrom agentctx.cli import main\nwith contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--version'])",
    ]
    for case in cases:
        code = f"{case}\nfrom agentctx.base import freshness\nprint(len(freshness._rebuilders))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
        assert out.stdout.strip().splitlines()[-1:] == ["2"], (case, out.stdout, out.stderr)  # the digest and the anchor map
    bare = subprocess.run([sys.executable, "-c", "import agentctx.store.records\nfrom agentctx.base import freshness\n"
                           "print(len(freshness._rebuilders))"], capture_output=True, text=True, cwd=ROOT)
    assert bare.stdout.strip() == "0"  # the store alone registers nothing: the rebuild comes from above
