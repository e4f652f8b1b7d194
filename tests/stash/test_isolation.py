"""The stash stands alone: stdlib only, nothing else from agentctx, `__all__` is the API."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import agentctx.stash as stash

PACKAGE = Path(stash.__file__).parent


def test_import_pulls_in_no_other_agentctx_module():
    code = (
        "import sys, agentctx.stash; "
        "print('\\n'.join(m for m in sys.modules if m.startswith('agentctx')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    modules = set(out.split())
    assert modules - {"agentctx"} == {m for m in modules if m.startswith("agentctx.stash")}
    assert "pytest" not in out


def test_only_stdlib_and_relative_imports():
    allowed = set(sys.stdlib_module_names) | {"pytest", "agentctx"}
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level == 2 or (node.level == 0 and node.module == "agentctx"):
                    raise AssertionError(f"{path.name} imports from the rest of agentctx")
                names = [node.module] if node.level == 0 and node.module else []
            else:
                continue
            for name in names:
                root = name.split(".")[0]
                assert root in allowed, f"{path.name} imports {name}"
                if root == "agentctx":
                    assert name.startswith("agentctx.stash"), f"{path.name} imports {name}"
                if root == "pytest":
                    assert path.name == "pytest_plugin.py"


def test_all_is_the_api():
    for name in stash.__all__:
        assert hasattr(stash, name), name
    assert sorted(stash.__all__) == sorted(set(stash.__all__))
    assert (PACKAGE / "py.typed").exists()


def test_modules_stay_small_and_documented():
    for path in PACKAGE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert ast.get_docstring(ast.parse(text)), path.name
        assert len(text.splitlines()) <= 400, path.name
