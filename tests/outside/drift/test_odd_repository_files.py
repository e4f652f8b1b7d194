"""A repository's files are files agentctx does not control: a CLAUDE.md, package.json or MEMORY.md that is a FIFO
or a link to /dev/zero neither hangs nor floods a scan, and a symlinked CLAUDE.md stays a symlink after `sync`."""

from __future__ import annotations

import os
import threading

import pytest

from agentctx.outside import memory_import as claude_memory
from agentctx.memory import profile
from agentctx.outside import drift
from agentctx.base.errors import ConflictError

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"),
                                reason="needs FIFOs and /dev/zero")


def _within(seconds, fn):
    """fn's result, failing (not hanging the suite) when it takes longer than `seconds`."""
    out, done = [], threading.Event()

    def run():
        try:
            out.append(fn())
        except BaseException as exc:  # handed to the test thread
            out.append(exc)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(seconds), "blocked on a file that is not a regular file"
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


@pytest.fixture(params=["fifo", "dev-zero"])
def odd(request):
    def plant(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        if request.param == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")
        return path

    return plant


def test_a_claudemd_that_is_a_fifo_or_dev_zero_is_neither_read_nor_edited(conn, project, repo, add, odd):
    odd(repo / "CLAUDE.md")
    add("Use gRPC between internal services", "Protobuf contracts live in proto/.")
    report = _within(10, lambda: drift.scan(conn, project))
    assert report.proposed_diff == "" and report.new_text is None


def test_applying_to_a_file_that_became_odd_is_refused_in_one_line(conn, project, repo, add, odd):
    path = repo / "CLAUDE.md"
    path.write_text("# App\n", encoding="utf-8")
    add("Use gRPC between internal services")
    report = drift.scan(conn, project)
    path.unlink()
    odd(path)
    with pytest.raises(ConflictError) as info:
        _within(10, lambda: drift.apply(report))
    assert "CLAUDE.md" in str(info.value) and "\n" not in str(info.value)


def test_sync_edits_the_file_a_symlinked_claudemd_points_to_and_keeps_the_link(conn, project, repo, add,
                                                                               isolated_home):
    dotfiles = isolated_home / "dotfiles" / "CLAUDE.md"  # a dotfile manager's checkout
    dotfiles.parent.mkdir()
    dotfiles.write_text("# App\n\nSome notes.\n", encoding="utf-8")
    link = repo / "CLAUDE.md"
    link.symlink_to(dotfiles)
    rec = add("Use gRPC between internal services", "Protobuf contracts live in proto/.")
    report = drift.scan(conn, project)
    assert rec.id in report.proposed_diff
    drift.apply(report)
    assert link.is_symlink() and os.readlink(link) == str(dotfiles)
    assert rec.id in dotfiles.read_text(encoding="utf-8")


def test_profile_detection_reads_no_fifo_or_device(repo, odd):
    odd(repo / "package.json")
    odd(repo / "requirements.txt")
    (repo / "Makefile").write_text("test:\n\tpytest\n", encoding="utf-8")
    detected = _within(10, lambda: profile.detect(repo))
    assert any(c.startswith("test") for c in detected.commands)


def test_claude_memory_import_reads_no_fifo_or_device(repo, odd, tmp_path):
    memory = tmp_path / "memory"
    odd(memory / "MEMORY.md")
    (memory / "testing.md").write_text("- Run the suite with `make test` before pushing\n", encoding="utf-8")
    odd(repo / ".claude" / "CLAUDE.md")
    proposals = _within(10, lambda: claude_memory.propose(repo, memory))
    assert [p.origin for p in proposals] == ["testing.md:1"]
