"""Optional extras: which are installed, and the command that adds one for the way agentctx itself was installed.

Nothing is published under `agentctx-memory` on the package index, so no advice may install `agentctx-memory[x]`
from it: a checkout is re-installed with the extra, a tool install gets the extra's packages added to its own
environment, and anything else gets the packages installed next to agentctx. The Claude Code plugin runs on a
Python it found (often the system's, which PEP 668 closes to pip): its extras go into a virtualenv at
`$AGENTCTX_HOME/venv`, which the plugin's launcher prefers once it exists (plugin/bin/agentctx)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

DIST = "agentctx-memory"
# Mirrors [project.optional-dependencies] in pyproject.toml (tests/test_extras.py keeps the two equal).
REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "llm": ("anthropic>=2,<3",),
    "vectors": ("fastembed>=0.9", "sqlite-vec>=0.1.6", "numpy>=1.24"),
    "mcp-sdk": ("mcp>=2.3,<3",),
}
# The modules whose presence means the extra works (sqlite-vec is optional inside [vectors]: NumPy scans instead).
MODULES: dict[str, tuple[str, ...]] = {"llm": ("anthropic",), "vectors": ("fastembed", "numpy"), "mcp-sdk": ("mcp",)}
PURPOSE = {"llm": "LLM extraction (extract, backfill, Stop)", "vectors": "hybrid retrieval with local embeddings",
           "mcp-sdk": "`agentctx mcp --sdk`"}

Kind = Literal["uv-tool", "pipx", "checkout", "venv", "system", "plugin"]
# Set by the plugin's launcher: the plugin directory this agentctx was imported from.
PLUGIN_ROOT_ENV = "AGENTCTX_PLUGIN_ROOT"


@dataclass(frozen=True)
class Installation:
    """How this agentctx was installed: the kind, and the checkout or URL it came from (None when unknown)."""

    kind: Kind
    source: str | None = None
    editable: bool = False


def missing(extra: str) -> str | None:
    """The first module of `extra` that cannot be found (without importing it), or None when the extra is there."""
    import importlib.util

    for name in MODULES[extra]:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


def installed(extra: str) -> bool:
    return missing(extra) is None


def installation() -> Installation:
    """Read the environment (uv's receipt, pipx's metadata) and the distribution's direct_url.json (PEP 610)."""
    prefix = Path(sys.prefix)
    if os.environ.get(PLUGIN_ROOT_ENV):
        return Installation("plugin", os.environ[PLUGIN_ROOT_ENV])
    source, editable = _direct_url()
    if (prefix / "uv-receipt.toml").exists():
        return Installation("uv-tool", source, editable)
    if (prefix / "pipx_metadata.json").exists():
        return Installation("pipx", source, editable)
    if source and editable:
        return Installation("checkout", source, True)
    if source is None and (Path(__file__).resolve().parents[1] / "pyproject.toml").exists() and not _distribution():
        return Installation("checkout", str(Path(__file__).resolve().parents[1]), True)  # run from the source tree
    return Installation("venv" if sys.prefix != sys.base_prefix else "system", source, editable)


def _distribution():  # noqa: ANN202
    from importlib import metadata

    try:
        return metadata.distribution(DIST)
    except metadata.PackageNotFoundError:
        return None


def _direct_url() -> tuple[str | None, bool]:
    """Where the installed distribution came from: a local directory, a VCS URL, or None (an index or a wheel)."""
    from importlib import metadata

    # A source tree's *.egg-info on sys.path is a distribution too, without direct_url.json: take the installed one.
    raw = next((text for d in metadata.distributions(name=DIST) if (text := d.read_text("direct_url.json"))), None)
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        data = {}
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str):
        return None, False
    if isinstance(data.get("vcs_info"), dict):
        vcs = data["vcs_info"]
        rev = vcs.get("requested_revision")
        return f"{vcs.get('vcs', 'git')}+{url}" + (f"@{rev}" if rev else ""), False
    if url.startswith("file://") and isinstance(data.get("dir_info"), dict):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(url).path), bool(data["dir_info"].get("editable"))
    return None, False


def _uv_receipt(prefix: Path) -> tuple[list[str], list[str]]:
    """A uv tool install's `--with` requirements and agentctx's own extras, so that adding one keeps the others."""
    try:
        text = (prefix / "uv-receipt.toml").read_text(encoding="utf-8")
    except OSError:
        return [], []
    try:
        import tomllib
    except ImportError:
        from . import minitoml as tomllib  # type: ignore[no-redef]
    try:
        reqs = tomllib.loads(text).get("tool", {}).get("requirements", [])
    except (ValueError, AttributeError):
        return [], []
    withs: list[str] = []
    ours: list[str] = []
    for req in reqs if isinstance(reqs, list) else []:
        if not isinstance(req, dict) or not isinstance(req.get("name"), str):
            continue
        if req["name"] == DIST:
            ours = [str(e) for e in req.get("extras") or []]
        else:
            withs.append(f"{req['name']}{req.get('specifier', '')}")
    return withs, ours


def _name(requirement: str) -> str:
    import re

    return re.split(r"[<>=!~\[;\s]", requirement, maxsplit=1)[0].lower()


def install_command(extra: str, inst: Installation | None = None) -> str:
    """A command that adds `extra` to this installation (never `agentctx-memory[...]` from the package index)."""
    inst = inst or installation()
    reqs = list(REQUIREMENTS[extra])
    q = shlex.quote
    python = q(sys.executable)
    if inst.kind == "plugin":
        venv = os.path.join(_home(), "venv")
        pip = f"{q(os.path.join(venv, 'bin', 'python'))} -m pip install " + " ".join(q(r) for r in reqs)
        if os.path.realpath(sys.prefix) == os.path.realpath(venv):
            return pip
        return f"{python} -m venv {q(venv)} && {pip}"
    source_here = inst.source is not None and (not os.path.isabs(inst.source) or os.path.isdir(inst.source))
    if inst.kind == "uv-tool":
        withs, ours = _uv_receipt(Path(sys.prefix))
        if source_here and os.path.isabs(inst.source or ""):  # a checkout: reinstall it with one more extra
            wanted = ",".join(dict.fromkeys([*ours, extra]))
            source = ("--editable " if inst.editable else "") + q(f"{inst.source}[{wanted}]")
            return "uv tool install " + "".join(f"--with {q(r)} " for r in withs) + source
        adding = {_name(r) for r in reqs}
        withs = [r for r in withs if _name(r) not in adding] + reqs
        source = q(inst.source) if source_here and inst.source else "CHECKOUT_OR_GIT_URL"
        return "uv tool install " + "".join(f"--with {q(r)} " for r in withs) + source
    if inst.kind == "pipx":
        return f"pipx inject {DIST} " + " ".join(q(r) for r in reqs)
    if source_here and os.path.isabs(inst.source or ""):
        return f"{python} -m pip install " + ("-e " if inst.editable else "") + q(f"{inst.source}[{extra}]")
    return f"{python} -m pip install " + " ".join(q(r) for r in reqs)


def _home() -> str:
    from .paths import home_dir

    return home_dir()


def describe(extra: str) -> str:
    """One line: the extra, what it enables, and how to add it."""
    return f"the [{extra}] extra ({PURPOSE[extra]}) is not installed; add it with: {install_command(extra)}"
