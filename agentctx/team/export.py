"""Markdown export of a project's current records, grouped by type (Markdown is an export, never the source)."""

from __future__ import annotations

from ..base.models import RECORD_TYPES, Record
from ..base.redact import scrub_text

_HEADINGS = {"decision": "Decisions", "convention": "Conventions", "preference": "Preferences",
             "discovery": "Discoveries", "bugfix": "Bug fixes", "handover": "Handover", "profile": "Project profile"}


def _entry(record: Record) -> str:
    meta = f"`{record.id}` · {record.confidence} · {record.source} · {record.recorded_at}"
    if record.pinned:
        meta += " · pinned"
    # Scrubbed again on the way out: a record stored before a rule existed must not leave the machine with it.
    return f"### {scrub_text(record.title)}\n\n{meta}\n\n{scrub_text(record.body)}\n"


def to_markdown(project_name: str, records: list[Record]) -> str:
    """One `##` section per type in SPEC order, project records first, then the global ones."""
    own = [r for r in records if r.scope != "global"]
    shared = [r for r in records if r.scope == "global"]
    out = [f"# agentctx context: {project_name}\n"]
    for title, group in ((None, own), ("Global", shared)):
        if not group:
            continue
        if title:
            out.append(f"# {title}\n")
        for type_ in RECORD_TYPES:
            of_type = sorted((r for r in group if r.type == type_), key=lambda r: r.recorded_at)
            if of_type:
                out.append(f"## {_HEADINGS[type_]}\n")
                out.extend(_entry(r) for r in of_type)
    if len(out) == 1:
        out.append("_No records yet._\n")
    return "\n".join(out)
