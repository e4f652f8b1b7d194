"""pytest plugin: a ``stash`` fixture with one recording per test and ``--stash-record-mode``/``--stash-dir``.

Loaded in every pytest run through the ``pytest11`` entry point, so it imports nothing at load time beyond
pytest itself and does nothing unless a test asks for the fixture.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

_MODES = ("once", "new_episodes", "none", "all")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentctx-stash", "agentctx stash recordings")
    group.addoption(
        "--stash-record-mode",
        choices=_MODES,
        default=None,
        help="record mode for the `stash` fixture (default: none, i.e. replay only; use once to record)",
    )
    group.addoption(
        "--stash-dir",
        default=None,
        help="directory holding one recording per test (default: <rootdir>/tests/stashes)",
    )
    group.addoption(
        "--stash-keep-secrets",
        action="store_true",
        default=False,
        help="store values verbatim in new recordings (by default secrets are scrubbed: recordings get committed)",
    )
    parser.addini("stash_record_mode", "default record mode for the `stash` fixture", default="none")
    parser.addini("stash_dir", "directory of stash recordings, relative to rootdir", default="tests/stashes")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    report = yield
    if report.when == "call" and "stash" in getattr(item, "fixturenames", ()):
        item.stash_failed = not report.passed  # type: ignore[attr-defined]
    return report


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "test"


def recording_path(directory: Path, node: Any) -> Path:
    """``<dir>/<module>/<test name>.json``: collision-free per test (parametrize ids included)."""
    module = Path(str(getattr(node, "path", None) or node.fspath)).stem
    return directory / _safe_name(module) / f"{_safe_name(node.name)}.json"


@pytest.fixture
def stash_record_mode(request: pytest.FixtureRequest) -> str:
    """The record mode in force: ``--stash-record-mode``, else the ``stash_record_mode`` ini value."""
    mode = request.config.getoption("--stash-record-mode") or request.config.getini("stash_record_mode")
    if mode not in _MODES:
        raise pytest.UsageError(f"stash record mode must be one of {', '.join(_MODES)}, not {mode!r}")
    return str(mode)


@pytest.fixture
def stash_path(request: pytest.FixtureRequest) -> Path:
    """Where this test's recording lives."""
    configured = request.config.getoption("--stash-dir") or request.config.getini("stash_dir")
    directory = Path(configured)
    if not directory.is_absolute():
        directory = Path(request.config.rootpath) / directory
    return recording_path(directory, request.node)


@pytest.fixture
def stash(request: pytest.FixtureRequest, stash_path: Path, stash_record_mode: str) -> Iterator[Any]:
    """A :class:`agentctx.stash.Stash` bound to this test's recording; written only if the test passed."""
    from agentctx.stash import StashError, create_stash

    try:
        keep = bool(request.config.getoption("--stash-keep-secrets"))
        instance = create_stash(path=stash_path, record_mode=stash_record_mode,  # type: ignore[arg-type]
                                scrub_secrets=not keep)
    except StashError as exc:
        if exc.code != "ERR_NOT_FOUND":
            raise
        # Name the pytest flag, not create_stash's keyword: that is what a test author can change.
        raise StashError("ERR_NOT_FOUND", f"no recording at {stash_path} for this test; record it once with "
                         "`pytest --stash-record-mode=once` (or set stash_record_mode in the pytest ini)",
                         path=str(stash_path)) from None
    yield instance
    instance.close(failed=bool(getattr(request.node, "stash_failed", True)))
