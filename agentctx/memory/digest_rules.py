"""The digest's always-apply rules section: rule files that apply in every session, whole, in the room left."""

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from ..base.models import Record

LINE_CHARS = 240  # as the digest's other lines (digest.LINE_CHARS)


def clip(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1].rstrip() + "…"


# The always-apply rules section (SPEC §4.3): whole rule texts, the smallest first, right after the profile, in at
# least RULES_FLOOR tokens when they need them, else the room the other sections leave under SESSION_START_BUDGET; the rest are named, and delivered whole once at the session's first prompt or
# action (`later`, hooks/session.py LATER).
RULES_HEADER = "Rules this repository's rule files apply in every session (agentctx, each whole):"
RULES_NAMED = ("These rules also apply in every session; their whole text comes with your first prompt "
               "(or run `agentctx rules show <path>`):")
RULES_FLOOR = 500  # tokens the rules may take from the sections after them (profile stays first)
LATER_HEADER = "Rules this repository's rule files apply in every session (agentctx, each whole; no room at start):"


def always_rules(conn: "sqlite3.Connection", project_id: str) -> "list[Record]":
    from ..store import rulefiles

    try:
        return rulefiles.always_records(conn, project_id)
    except Exception:  # a store from before migration 17
        return []


def rule_block(record: "Record") -> str:
    """One always-apply rule, whole: `- <path> (<title>):` then its text, without a first heading that only repeats
    the title."""
    from ..outside.native import provenance

    label, origin = provenance(record)
    path = origin.strip()[len("(rule file: "):-1] if origin else record.title
    lines = record.body.strip().splitlines()
    if lines and lines[0].lstrip("#").strip().rstrip(".").lower() == label.rstrip(".").lower():
        lines = lines[1:]
    body = "\n".join(lines).strip()
    head = f"- {path} ({label}):" if label != path else f"- {path}:"
    return f"{head}\n{body}" if body else head


def _named(record: "Record") -> str:
    from ..outside.native import provenance

    label, origin = provenance(record)
    path = origin.strip()[len("(rule file: "):-1] if origin else record.title
    return clip(f"- {path}: {label}" if label != path else f"- {path}")


def rules_section(rules: "list[Record]", room: int) -> "tuple[str, list[str], list[Record]]":
    """(the section, the ids it carries whole, the rules left for later) within `room` tokens."""
    from ..base import tokens

    whole: "list[str]" = []
    ids: "list[str]" = []
    rest = list(rules)
    while rest:
        trial = [RULES_HEADER, *whole, rule_block(rest[0])]
        named = [RULES_NAMED, *(_named(r) for r in rest[1:])] if rest[1:] else []
        if tokens.estimate("\n".join(trial + named)) > room:
            break
        whole.append(rule_block(rest[0]))
        ids.append(rest[0].id)
        rest.pop(0)
    parts = [RULES_HEADER, *whole] if whole else []
    if rest:
        named = [RULES_NAMED, *(_named(r) for r in rest)]
        kept = tokens.fit(named, max(0, room - tokens.estimate("\n".join(parts)) - 1), separator="\n")
        if len(kept) > 1:
            parts += kept
    return "\n".join(parts), ids, rest


