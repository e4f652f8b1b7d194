import pytest

from agentctx.outside import drift
from agentctx.base.errors import ConflictError
from agentctx.store import records


def claude(repo, text, where="CLAUDE.md"):
    path = repo / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_no_claudemd_is_an_empty_report(conn, project, add):
    add("Use gRPC transport layer")
    report = drift.scan(conn, project)
    assert (report.missing, report.contradicted, report.proposed_diff, report.files) == ([], [], "", [])


def test_missing_and_reflected(conn, project, repo, add):
    claude(repo, "# Conventions\n\n## Testing\n- Tests are plain pytest functions in tests/, no classes\n"
                 "- Lint with `ruff check`\n")
    covered = add("Write tests as plain pytest functions", "No Test classes.")
    paraphrase = add("Use ruff for linting", "ruff check before commit", type="convention")
    absent = add("Use gRPC between internal services", "Protobuf contracts live in proto/.")
    report = drift.scan(conn, project)
    assert [m["id"] for m in report.missing] == [absent.id]
    assert report.missing[0]["type"] == "decision"
    scores = {r.id: r.claudemd_drift_score for r in records.current(conn, project.id)}
    assert scores[absent.id] > 0.5 and scores[covered.id] < 0.5 and scores[paraphrase.id] < 0.5


def test_scattered_words_do_not_count_as_reflected(conn, project, repo, add):
    """The original matched title words anywhere in the file; a long CLAUDE.md then hid every gap."""
    claude(repo, "# App\n\n- The cache layer is Redis.\n- Deploy on Fridays is forbidden.\n"
                 "- Invalidate nothing by hand.\n- Keys are namespaced per tenant.\n")
    rec = add("Invalidate cache keys on deploy", "Flush tenant keys in the deploy script.")
    assert [m["id"] for m in drift.scan(conn, project).missing] == [rec.id]


def test_inferred_and_vague_records_are_not_candidates(conn, project, repo, add):
    claude(repo, "# App\n")
    add("Use gRPC between internal services", confidence="inferred")
    add("Speed", type="convention")
    assert drift.scan(conn, project).missing == []


def test_root_and_dot_claude_and_imports_count(conn, project, repo, add):
    claude(repo, "# Root\n@docs/decisions.md\n")
    claude(repo, "- Migrations are appended, never edited\n", ".claude/CLAUDE.md")
    claude(repo, "- Storage is one SQLite file in WAL mode\n", "docs/decisions.md")
    add("Migrations are appended and never edited")
    add("Keep storage in one SQLite file", "WAL mode.")
    report = drift.scan(conn, project)
    assert report.missing == [] and len(report.files) == 3


def test_superseded_record_still_stated_is_contradicted(conn, project, repo, add):
    path = claude(repo, "# API\n\n- Use REST everywhere\n- Use API\n")
    old = add("Use REST everywhere", "JSON over HTTP for every service.")
    new = add("Use gRPC for internal services", "REST stays for the public API.", supersedes=old.id)
    vague = add("Use API")
    add("Use API v2", supersedes=vague.id)
    report = drift.scan(conn, project)
    (entry,) = report.contradicted
    assert entry["id"] == old.id and entry["superseded_by"] == new.id
    assert (entry["file"], entry["line"]) == (str(path.resolve()), 3)
    assert new.id in [m["id"] for m in report.missing]

    path.write_text("# API\n\n- Use gRPC for internal services; REST only for the public API\n", encoding="utf-8")
    report = drift.scan(conn, project)
    assert report.contradicted == [] and new.id not in [m["id"] for m in report.missing]


def test_kept_title_supersession(conn, project, repo):
    from agentctx.base.models import NewRecord

    claude(repo, "- Use REST everywhere\n")
    old, _ = records.insert(conn, NewRecord("decision", "Use REST everywhere", "JSON over HTTP.", project.id,
                                            confidence="explicit"))
    _, new = records.supersede(conn, old.id, project.id, body="gRPC between services.", rationale="typed")
    report = drift.scan(conn, project)
    assert [c["id"] for c in report.contradicted] == [old.id]
    assert [m["id"] for m in report.missing] == [new.id]


def test_diff_and_apply(conn, project, repo, add, tmp_path):
    path = claude(repo, "# App\n\nSome notes.\n")
    rec = add("Use gRPC between internal services", "Protobuf contracts live in proto/.\n\nRationale: types")
    report = drift.scan(conn, project)
    assert report.proposed_diff.startswith("--- a/CLAUDE.md\n+++ b/CLAUDE.md\n")
    assert f"+- **Use gRPC between internal services**: Protobuf contracts live in proto/." in report.proposed_diff
    assert rec.id in report.proposed_diff
    target, backup = drift.apply(report)
    assert target == path.resolve() or target == path
    assert backup.read_text(encoding="utf-8") == "# App\n\nSome notes.\n"
    assert drift.SECTION in path.read_text(encoding="utf-8")
    assert drift.scan(conn, project).missing == []  # the record id in CLAUDE.md marks it reflected

    second = add("Cache nothing in process memory", "Redis only.")
    report = drift.scan(conn, project)
    drift.apply(report)
    text = path.read_text(encoding="utf-8")
    assert text.count(drift.SECTION) == 1 and second.id in text
    assert text.index(rec.id) < text.index(second.id)


def test_apply_refuses_a_changed_file(conn, project, repo, add):
    path = claude(repo, "# App\n")
    add("Use gRPC between internal services")
    report = drift.scan(conn, project)
    path.write_text("# App\n\nedited meanwhile\n", encoding="utf-8")
    with pytest.raises(ConflictError):
        drift.apply(report)
    assert path.read_text(encoding="utf-8") == "# App\n\nedited meanwhile\n"


def test_scan_never_raises_on_odd_files(conn, project, repo, add):
    (repo / "CLAUDE.md").write_bytes(b"\xff\xfe binary \x00 junk\n@\n@@\n@ \n")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "CLAUDE.md").mkdir()  # a directory where a file should be
    add("Use gRPC between internal services")
    assert len(drift.scan(conn, project).missing) == 1


def test_bullet_and_section():
    text = drift.add_section("# A\n\n## Project memory (agentctx)\n\n- one\n\n## Other\n- x\n", ["- two"])
    assert text == "# A\n\n## Project memory (agentctx)\n\n- one\n- two\n\n## Other\n- x\n"
    assert drift.add_section("", ["- b"]).startswith(drift.SECTION)


def test_a_vague_title_gets_no_drift_score(conn, project, repo, add):
    from agentctx.mcp.handlers import ToolContext
    from agentctx.mcp.tools import call

    claude(repo, "# App\n\n- Deploy with the Makefile.\n")
    vague = add("Caching", "Cache the parsed manifest between runs.")
    clear = add("Use gRPC between internal services", "Protobuf contracts live in proto/.")
    report = drift.scan(conn, project)
    assert [m["id"] for m in report.missing] == [clear.id]
    assert records.get(conn, vague.id).claudemd_drift_score == 0.0
    assert records.get(conn, clear.id).claudemd_drift_score > 0.5
    ctx = ToolContext(project=project)
    try:
        result = call(ctx, "ctx_get", {"ids": [vague.id]})
    finally:
        ctx.close()
    assert result.structured["records"][0]["claudemd_drift_score"] == 0.0
