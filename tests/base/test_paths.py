"""Data locations: AGENTCTX_HOME overrides ~/.agentctx; private directories; safe per-session file names."""

from __future__ import annotations

import stat
import os
import tempfile
from pathlib import Path

import pytest

from agentctx.base import paths


def test_agentctx_home_overrides_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTCTX_HOME", str(tmp_path / "elsewhere"))
    assert paths.home() == tmp_path / "elsewhere"
    assert paths.db_path() == tmp_path / "elsewhere" / "agentctx.db"
    assert paths.config_path() == tmp_path / "elsewhere" / "config.json"
    assert paths.logs_dir().parent == paths.home()


def test_default_home_is_dot_agentctx_under_home(monkeypatch, isolated_home):
    monkeypatch.delenv("AGENTCTX_HOME")
    assert paths.home() == isolated_home / ".agentctx"


def test_empty_override_falls_back_to_default(monkeypatch, isolated_home):
    monkeypatch.setenv("AGENTCTX_HOME", "")
    assert paths.home() == isolated_home / ".agentctx"


def test_tilde_in_override_is_expanded(monkeypatch, isolated_home):
    monkeypatch.setenv("AGENTCTX_HOME", "~/custom")
    assert paths.home() == isolated_home / "custom"


def test_ensure_private_dir_is_0700(tmp_path):
    target = tmp_path / "a" / "b"
    assert paths.ensure_private_dir(target) == target
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    target.chmod(0o755)
    paths.ensure_private_dir(target)  # tightens an existing directory too
    assert stat.S_IMODE(target.stat().st_mode) == 0o700


def test_ensure_private_dir_makes_every_missing_parent_private_whatever_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        paths.ensure_private_dir(tmp_path / "x" / "y" / "z")
    finally:
        os.umask(old)
    for part in ("x", "x/y", "x/y/z"):
        assert stat.S_IMODE((tmp_path / part).stat().st_mode) == 0o700, part


def test_ensure_private_dir_refuses_a_file_where_a_directory_belongs(tmp_path):
    (tmp_path / "taken").write_text("the user's file")
    (tmp_path / "taken").chmod(0o644)
    with pytest.raises(FileExistsError):
        paths.ensure_private_dir(tmp_path / "taken" / "sub")
    with pytest.raises(FileExistsError):
        paths.ensure_private_dir(tmp_path / "taken")
    assert stat.S_IMODE((tmp_path / "taken").stat().st_mode) == 0o644  # left as it was


def test_session_files_cannot_escape_their_directory():
    path = paths.dedup_path("../../etc/passwd")
    assert path.parent == Path(os.environ["TMPDIR"])  # the temp dir, as tempfile would choose it
    assert "/" not in path.name and path.name.startswith("agentctx-")
    assert paths.digest_path("a/b").parent == paths.digests_dir()
    assert paths.dedup_path("").name == "agentctx-_.seen"


def test_session_file_names_are_bounded():
    assert len(paths.dedup_path("x" * 1000).name) < 160


@pytest.mark.parametrize("session_id", ["../../canary", "..", ".", "a.b", "x/../y", "sess\n1", "é" * 200])
def test_session_ids_become_plain_tokens_in_file_names(session_id):
    token = paths.session_token(session_id)
    assert token and not token.strip(paths._TOKEN_CHARS) and len(token) <= 128
    assert paths.session_token(session_id) == token  # stable: the same session finds its files again
    for path in (paths.dedup_file(session_id), paths.compact_file(session_id), paths.open_marker_file(session_id)):
        name = os.path.basename(path)
        assert ".." not in name and token in name


def test_plain_session_ids_are_kept_and_different_ids_never_share_a_token():
    uuid = "01a235dd-2f1e-7c52-9a1b-0c1d2e3f4a5b"
    assert paths.session_token(uuid) == uuid
    assert paths.session_token("a.b") != paths.session_token("a_b") != paths.session_token("a/b")
