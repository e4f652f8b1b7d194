"""Records checked against the code: a real git repository, history moved forward, consolidation's pass."""

from __future__ import annotations

import subprocess

import pytest

from agentctx.base.models import NewRecord
from agentctx.base.project import detect
from agentctx.memory import digest, review
from agentctx.trust import verify
from agentctx.store import db, records, trust
from agentctx.base import paths

RETRY = "\n".join(["def retry(call, attempts=3):", "    for n in range(attempts):", "        try:",
                   "            return call()", "        except TimeoutError:", "            sleep(2 ** n)",
                   "    raise GiveUp(attempts)", "", "def sleep(s):", "    time.sleep(s)", "",
                   "class GiveUp(Exception):", "    pass"]) + "\n"


def git(root, *args):
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


@pytest.fixture
def gitrepo(tmp_path):
    root = tmp_path / "code"
    (root / "src" / "payments").mkdir(parents=True)
    (root / "src" / "payments" / "retry.py").write_text(RETRY, encoding="utf-8")
    (root / "src" / "other.py").write_text("\n".join(f"value_{i} = compute({i})" for i in range(40)) + "\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


@pytest.fixture
def store(gitrepo):
    c = db.connect(paths.db_path(), create=True)
    yield c
    c.close()


def _add(conn, project, body, **kw):
    return records.insert(conn, NewRecord(type=kw.pop("type_", "decision"), title=kw.pop("title", "Retry policy"),
                                          body=body, project_id=project.id, **kw))[0]


def _unverified(conn, rid):
    return trust.marks_for(conn, [rid]).get(rid, {}).get("unverified")


def test_unchanged_code_is_never_flagged_and_small_edits_are_kept(store, gitrepo):
    project = detect(gitrepo)
    r = _add(store, project, "Payments retry with exponential backoff in src/payments/retry.py.")
    report = verify.run(store, project)
    assert report["fingerprinted"] == 1 and report["flagged"] == 0
    path = gitrepo / "src" / "payments" / "retry.py"
    path.write_text(RETRY.replace("sleep(2 ** n)", "sleep(2 ** n + 1)"), encoding="utf-8")  # one line edited
    assert verify.run(store, project)["flagged"] == 0 and _unverified(store, r.id) is None


def test_absolute_paths_inside_the_repository_count(store, gitrepo):
    import os

    project = detect(gitrepo)
    r = _add(store, project, f"Backoff is in {os.path.realpath(gitrepo)}/src/payments/retry.py:1-7.")
    verify.run(store, project)
    assert [(f[1], f[4]) for f in trust.fingerprints(store, project.id, [r.id])] == [("src/payments/retry.py", "1-7")]


def test_a_rename_is_followed_and_the_anchor_moves(store, gitrepo):
    project = detect(gitrepo)
    r = _add(store, project, "Backoff lives here.", anchors=("path:src/payments/retry.py",))
    verify.run(store, project)
    git(gitrepo, "mv", "src/payments/retry.py", "src/payments/backoff.py")
    git(gitrepo, "commit", "-qm", "rename")
    report = verify.run(store, project)
    assert report["renamed"] == 1 and report["flagged"] == 0
    assert records.get(store, r.id).anchors == ("path:src/payments/backoff.py",)
    assert [f[1] for f in trust.fingerprints(store, project.id, [r.id])] == ["src/payments/backoff.py"]


def test_deleted_code_flags_the_record_everywhere_and_its_return_clears_it(store, gitrepo, monkeypatch):
    project = detect(gitrepo)
    r = _add(store, project, "Payments retry three times; see src/payments/retry.py.", confidence="explicit")
    verify.run(store, project)
    (gitrepo / "src" / "payments" / "retry.py").unlink()
    assert verify.run(store, project)["flagged"] == 1
    reason = _unverified(store, r.id)
    assert reason == "src/payments/retry.py: deleted"
    assert trust.flag(reason) == " (code changed since: src/payments/retry.py)"
    digest.refresh(store, project.id, project=project)
    assert "Retry policy (code changed since: src/payments/retry.py)" in digest.read_text(project.id)
    assert any(x.id == r.id for x, _ in review.inbox(store, project.id))
    (gitrepo / "src" / "payments" / "retry.py").write_text(RETRY, encoding="utf-8")  # the code came back
    assert verify.run(store, project)["cleared"] == 1 and _unverified(store, r.id) is None


def test_a_rewrite_and_a_vanished_symbol_are_flagged_with_why(store, gitrepo):
    project = detect(gitrepo)
    whole = _add(store, project, "src/other.py computes the values.", title="Values")
    sym = _add(store, project, "`GiveUp` in src/payments/retry.py is what callers catch.", title="Give up")
    verify.run(store, project)
    (gitrepo / "src" / "other.py").write_text("\n".join(f"item_{i} = fetch_remote({i}, cache=True)"
                                                       for i in range(40)) + "\n")
    (gitrepo / "src" / "payments" / "retry.py").write_text(RETRY.replace("GiveUp", "RetriesExhausted"))
    verify.run(store, project)
    assert _unverified(store, whole.id).startswith("src/other.py: rewritten (")
    assert _unverified(store, sym.id) == "src/payments/retry.py: GiveUp gone"


def test_confirming_in_review_verifies_again(store, gitrepo):
    project = detect(gitrepo)
    r = _add(store, project, "See src/other.py.", title="Values")
    verify.run(store, project)
    (gitrepo / "src" / "other.py").write_text("x = 1\n")
    verify.run(store, project)
    assert _unverified(store, r.id) is not None
    review.confirm_record(store, project, r.id)
    assert _unverified(store, r.id) is None
    assert verify.run(store, project)["flagged"] == 0  # fingerprinted again from the code as it is now


def test_outside_git_verification_is_skipped(tmp_path, monkeypatch):
    from agentctx.base.project import Project

    c = db.connect(tmp_path / "x.db", create=True)
    try:
        assert verify.run(c, Project(id="p" * 64, name="x", root_dir=str(tmp_path), remote=None)).startswith("skipped")
    finally:
        c.close()


def test_handovers_are_not_checked(store, gitrepo):
    project = detect(gitrepo)
    _add(store, project, "Files changed: src/other.py", type_="handover", title="Handover: now")
    assert verify.run(store, project)["fingerprinted"] == 0
