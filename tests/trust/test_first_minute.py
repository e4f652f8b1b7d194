"""Trust from the first minute (issue 42, item 1): a record whose file is deleted or renamed before the next
consolidation is still fingerprinted, from the commit HEAD was at when it was written (HEAD's reflog), so the
deletion is flagged and the rename followed. The real case: a record anchored to `src/legacy_billing.py`, `git rm`
it, consolidate."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from agentctx import cli
from agentctx.base import paths
from agentctx.base.project import detect
from agentctx.memory import consolidate
from agentctx.trust import verify
from agentctx.store import db, records, trust

BILLING = "\n".join([
    "def invoice_total(lines):",
    "    total = 0",
    "    for line in lines:",
    "        total += line.cents * line.quantity",
    "    return apply_legacy_rounding(total)",
    "",
    "def apply_legacy_rounding(cents):",
    "    return (cents + 50) // 100 * 100",
]) + "\n"


def git(root, *args, at=None):
    env = dict(os.environ)
    if at is not None:  # the reflog stamps each move of HEAD with the committer's time
        env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"] = f"@{int(at)} +0000"
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True, env=env)


@pytest.fixture
def gitrepo(tmp_path):
    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    (root / "src" / "legacy_billing.py").write_text(BILLING, encoding="utf-8")
    (root / "src" / "app.py").write_text("from legacy_billing import invoice_total\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start", at=time.time() - 120)
    return root


@pytest.fixture
def store(gitrepo):
    c = db.connect(paths.db_path(), create=True)
    yield c
    c.close()


def _record_by_cli(root, capsys):
    assert cli.main(["-C", str(root), "record", "--type", "decision", "--title", "Invoices round the legacy way",
                     "--body", "Invoice totals keep the legacy rounding to whole units until finance signs off.",
                     "--anchor", "src/legacy_billing.py"]) == 0
    capsys.readouterr()
    (rec,) = [r for r in records.current(db.connect(paths.db_path()), detect(root).id) if "legacy" in r.title]
    return rec


def _unverified(conn, rid):
    return trust.marks_for(conn, [rid]).get(rid, {}).get("unverified")


def test_a_file_deleted_and_committed_before_consolidation_flags_the_record(store, gitrepo, capsys):
    rec = _record_by_cli(gitrepo, capsys)
    git(gitrepo, "rm", "-q", "src/legacy_billing.py")
    git(gitrepo, "commit", "-qm", "drop legacy billing", at=time.time() + 60)
    report = consolidate.run(detect(gitrepo), close_stale=False)["verification"]
    assert report["fingerprinted"] == 1 and report["flagged"] == 1
    assert _unverified(store, rec.id) == "src/legacy_billing.py: deleted"
    (fp,) = trust.fingerprints(store, detect(gitrepo).id, [rec.id])
    assert fp[1] == "src/legacy_billing.py" and fp[-1]  # fingerprinted from the commit it was written at


def test_a_file_removed_but_not_committed_flags_the_record(store, gitrepo, capsys):
    rec = _record_by_cli(gitrepo, capsys)
    git(gitrepo, "rm", "-q", "src/legacy_billing.py")
    report = verify.run(store, detect(gitrepo))
    assert report["fingerprinted"] == 1 and report["flagged"] == 1
    assert _unverified(store, rec.id) == "src/legacy_billing.py: deleted"


@pytest.mark.parametrize("commit", [True, False])
def test_a_rename_before_consolidation_is_followed(store, gitrepo, capsys, commit):
    rec = _record_by_cli(gitrepo, capsys)
    git(gitrepo, "mv", "src/legacy_billing.py", "src/billing.py")
    if commit:
        git(gitrepo, "commit", "-qm", "rename", at=time.time() + 60)
    report = verify.run(store, detect(gitrepo))
    assert report["fingerprinted"] == 1 and report["renamed"] == 1 and report["flagged"] == 0
    assert records.get(store, rec.id).anchors == ("path:src/billing.py",)
    assert _unverified(store, rec.id) is None


def test_a_file_rewritten_after_the_record_and_committed_is_flagged(store, gitrepo, capsys):
    rec = _record_by_cli(gitrepo, capsys)
    (gitrepo / "src" / "legacy_billing.py").write_text(
        "\n".join(f"RATE_{i} = lookup_rate({i})" for i in range(20)) + "\n", encoding="utf-8")
    git(gitrepo, "commit", "-qam", "new billing", at=time.time() + 60)
    verify.run(store, detect(gitrepo))
    assert _unverified(store, rec.id).startswith("src/legacy_billing.py: rewritten")


def test_a_body_that_names_a_file_gone_since_is_fingerprinted_too(store, gitrepo):
    from agentctx.base.models import NewRecord

    rec = records.insert(store, NewRecord(type="discovery", title="Rounding lives in one place",
                                          body="apply_legacy_rounding in src/legacy_billing.py is the only rounding.",
                                          project_id=detect(gitrepo).id))[0]
    git(gitrepo, "rm", "-q", "src/legacy_billing.py")
    git(gitrepo, "commit", "-qm", "drop", at=time.time() + 60)
    assert verify.run(store, detect(gitrepo))["flagged"] == 1
    assert _unverified(store, rec.id) == "src/legacy_billing.py: deleted"


def test_a_record_about_a_file_already_gone_when_written_is_not_flagged(store, gitrepo):
    from agentctx.base.models import NewRecord

    git(gitrepo, "rm", "-q", "src/legacy_billing.py")
    git(gitrepo, "commit", "-qm", "drop", at=time.time() - 60)
    rec = records.insert(store, NewRecord(type="decision", title="Legacy billing removed",
                                          body="We removed src/legacy_billing.py; totals come from the ledger.",
                                          project_id=detect(gitrepo).id))[0]
    report = verify.run(store, detect(gitrepo))
    assert report["flagged"] == 0 and _unverified(store, rec.id) is None
