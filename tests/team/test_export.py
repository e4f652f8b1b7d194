"""Markdown export: grouped by type in SPEC order, project records before global ones."""

from __future__ import annotations


from agentctx.team.export import to_markdown
from agentctx.base.models import RECORD_TYPES, Record

BASE = Record(id="01A", project_id="P", type="decision", title="T", body="B", scope="project", pinned=False,
              confidence="explicit", reinforce_count=0, valid_from="2024-01-01T00:00:00.000Z",
              recorded_at="2024-01-01T00:00:00.000Z", superseded_at=None, superseded_by=None, access_count=0,
              last_accessed=None, score=1.0, claudemd_drift_score=0.0, source="cli", session_id=None,
              pending_embedding=True)


def rec(i, **kw):
    return BASE.replace(id=f"01R{i:02d}", recorded_at=f"2024-01-{i + 1:02d}T00:00:00.000Z", **kw)


def test_empty_export():
    assert to_markdown("my-app", []) == "# agentctx context: my-app\n\n_No records yet._\n"


def test_sections_follow_the_type_order():
    records = [rec(i, type=t, title=f"{t} record") for i, t in enumerate(reversed(RECORD_TYPES))]
    out = to_markdown("my-app", records)
    headings = [line for line in out.splitlines() if line.startswith("## ")]
    assert headings == ["## Decisions", "## Conventions", "## Preferences", "## Discoveries", "## Bug fixes",
                        "## Handover", "## Project profile"]


def test_entries_are_oldest_first_with_metadata():
    out = to_markdown("x", [rec(3, title="Later"), rec(1, title="Earlier", pinned=True, confidence="inferred")])
    assert out.index("### Earlier") < out.index("### Later")
    assert "`01R01` · inferred · cli · 2024-01-02T00:00:00.000Z · pinned" in out
    assert "`01R03` · explicit" in out and "· pinned" not in out.split("### Later")[1]


def test_global_records_come_last_under_their_own_heading():
    out = to_markdown("x", [rec(1, scope="global", type="preference", title="Terse"), rec(2, title="Local")])
    assert out.index("### Local") < out.index("# Global") < out.index("### Terse")


def test_bodies_are_kept_verbatim():
    body = "Line one\n\n- bullet `code` | pipe ### not a heading\nÜnïcødé 数据库"
    assert body in to_markdown("x", [rec(1, body=body)])
