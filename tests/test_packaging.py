"""Every data file the package reads ships in the wheel: an installed (not editable) agentctx has it too."""

from __future__ import annotations

import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _package_data() -> dict[str, list[str]]:
    try:
        import tomllib
    except ImportError:
        from agentctx.base import minitoml as tomllib
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return data["tool"]["setuptools"]["package-data"]


def test_every_data_file_in_the_package_is_declared_package_data():
    # relevance.txt once shipped only in editable installs: installed hooks then injected nothing at all.
    declared = _package_data()
    missing = []
    for path in sorted((ROOT / "agentctx").rglob("*")):
        if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(ROOT)
        owners = [(pkg, globs) for pkg, globs in declared.items()
                  if rel.parent.parts[:len(pkg.split("."))] == tuple(pkg.split("."))]
        pkg, globs = max(owners, key=lambda o: len(o[0]))  # the innermost package holding the file
        inside = "/".join(rel.parts[len(pkg.split(".")):])
        if not any(fnmatch.fnmatch(inside, g) for g in globs):
            missing.append(str(rel))
    assert missing == []
