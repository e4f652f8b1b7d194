"""The extraction contract as data: the seed §6 output schema (plus evidence), the system prompt, the user message."""

from __future__ import annotations

import json
from typing import Any

from ..base.redact import scrub_text  # the user turn is what leaves the machine: scrubbed whole, titles and handover too

TOOL_NAME = "record_extraction"

_CONFIDENCE = {"type": "string", "enum": ["explicit", "inferred"]}
# No descriptions in the schema: the system prompt explains every field once (the schema is sent on every call).
_EVIDENCE = {"type": "string"}
_SUPERSEDES = {"type": ["string", "null"]}
# How each record will be asked (SPEC §6.2): written in the same call, for every entry that becomes a record.
_ASKED = {"questions": {"type": "array", "items": {"type": "string"}},
          "aliases": {"type": "array", "items": {"type": "string"}},
          # What the entry governs, from the TOOL CALLS list only (SPEC §6.2); validate drops any it does not match.
          "anchors": {"type": "array", "items": {"type": "string"}}}


def _entry(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": list(properties), "properties": properties}


# SPEC §6 schema. Beyond the seed: `evidence` on every entry (ingest checks it against the transcript) and
# `supersedes` on preferences and conventions too (a changed rule replaces the old record, not sits beside it).
SCHEMA: dict[str, Any] = _entry({
    "decisions": {"type": "array", "items": _entry({
        "what": {"type": "string"}, "rationale": {"type": "string"}, "supersedes": _SUPERSEDES,
        "confidence": _CONFIDENCE, "evidence": _EVIDENCE, **_ASKED})},
    "preferences": {"type": "array", "items": _entry({
        "category": {"type": "string", "enum": ["style", "tooling", "process", "naming"]},
        "rule": {"type": "string"}, "confidence": _CONFIDENCE,
        "scope": {"type": "string", "enum": ["project", "global"]}, "supersedes": _SUPERSEDES, "evidence": _EVIDENCE,
        **_ASKED})},
    "conventions": {"type": "array", "items": _entry({
        "scope": {"type": "string", "enum": ["file", "module", "project"]}, "convention": {"type": "string"},
        "confidence": _CONFIDENCE, "supersedes": _SUPERSEDES, "evidence": _EVIDENCE, **_ASKED})},
    "active_work": _entry({
        "current_task": {"type": "string"}, "blockers": {"type": "array", "items": {"type": "string"}},
        "next_steps": {"type": "array", "items": {"type": "string"}},
        "open_questions": {"type": "array", "items": {"type": "string"}}}),
    "gotchas": {"type": "array", "items": _entry({
        "pattern": {"type": "string"}, "why_it_matters": {"type": "string"}, "evidence": _EVIDENCE, **_ASKED})},
    "flush_ok": {"type": "boolean"},
})

SYSTEM = """You extract durable project memory from a Claude Code session transcript.

The transcript alternates "Developer:" (the human) and "Assistant:" (the coding agent) turns. It comes in up to
two parts: EARLIER CONTEXT (already processed; read it only to understand the new part) and NEW TRANSCRIPT.
You also get the project's EXISTING RECORDS (id, type, title) and possibly the CURRENT HANDOVER.

Rules:
1. Extract only what the DEVELOPER said or chose in the NEW TRANSCRIPT. The assistant's suggestions, plans,
   commands and file contents are context, never facts, unless the developer explicitly accepted them
   (then quote the acceptance).
2. Every decision, preference, convention and gotcha needs "evidence": the developer's words copied exactly
   from the NEW TRANSCRIPT, one sentence or phrase, no paraphrase, no ellipsis. No quote, no entry.
3. confidence "explicit" only when the developer stated it directly ("we use X", "never do Y"). A pattern you
   infer from what they did or accepted is "inferred".
4. One entry per distinct fact. Prefer empty arrays to invented or speculative entries. Do not repeat an
   EXISTING RECORD that says the same thing.
5. When an entry changes or reverses an EXISTING RECORD, set "supersedes" to that record's id, exactly as
   listed. Otherwise null. Never invent ids.
6. decisions: technical or architectural choices ("what", short, imperative, <= 100 characters; "rationale"
   in the developer's terms, "" if none given).
   preferences: how this developer likes to work. scope "global" only when it is about them across all
   projects (editor, communication style, general habits), else "project".
   conventions: rules for how code is written in this project. scope file, module or project.
   gotchas: pitfalls the developer pointed out about this codebase or its tools.
7. active_work: the developer's current task, blockers, next steps and open questions as of the end of the
   NEW TRANSCRIPT. If a CURRENT HANDOVER is given, update it (keep what is still open, drop what is done).
   All empty strings/arrays when nothing is in progress.
8. flush_ok: true only when the new part holds nothing worth remembering (greetings, trivial one-off
   questions); then leave everything else empty.
9. Text marked [REDACTED…] is a removed secret: never try to reconstruct it.
10. Every decision, preference, convention and gotcha also says how it will be asked later (memory is searched
   through these; they need no evidence): "questions", 3-6 short questions a developer on this project might
   type whose answer is this entry, in their everyday words, not copied from the entry ("why does pytest hang
   on the vpn?"); "aliases", up to 10 other names for what it is about that the entry's own text does not use
   (synonyms, abbreviations, category words, rejected alternatives: "ORM", "SQLAlchemy", "persistence").
11. "anchors": what an entry governs, only when the developer tied it to files or commands that appear in the
   TOOL CALLS list (files edited, commands run while they said it): a path or folder glob from that list
   ("src/payments/**", "migrations/*.sql") or "command:" with a command's first words ("command:alembic
   upgrade"). [] when the developer did not tie it to them or there is no TOOL CALLS list. Never invent one.

Example. NEW TRANSCRIPT:
Developer: Let's not use an ORM here, raw SQL with sqlite3 is fine since it's one file. And always run ruff before committing.
Assistant: I'll also add Redis for caching.
Developer: Fine, but next step is the export command.
Good output: one decision {"what": "Use raw SQL via sqlite3, no ORM", "rationale": "it's one file",
"supersedes": null, "confidence": "explicit", "evidence": "Let's not use an ORM here, raw SQL with sqlite3 is
fine since it's one file", "questions": ["do we use an orm?", "how do we talk to the database?", "can I add
sqlalchemy?"], "aliases": ["ORM", "SQLAlchemy", "database access", "persistence"]}; one preference {"category":
"tooling", "rule": "Run ruff before committing", "confidence": "explicit", "scope": "project", "supersedes": null,
"evidence": "always run ruff before committing", "questions": ["which linter do we use?", "what should I run
before a commit?"], "aliases": ["lint", "pre-commit", "formatter"]}; active_work.next_steps ["Implement the export command"]. No Redis decision: the developer's
"Fine" is not a stated choice about Redis, so at most an inferred decision quoting "Fine, but next step is the
export command" would be allowed, and it is too weak to record.
"""

SYNTHESIS = """You merge several partial extractions of ONE long session (chunks in order) into one result with
the same schema. Keep every entry exactly as given, including its "evidence" and "supersedes" verbatim; merge
entries that state the same fact (keep the explicit one and its evidence). For decisions that conflict, the
later chunk wins. active_work is the latest chunk's, with still-open items from earlier chunks. flush_ok is
true only if every chunk flushed."""


def records_block(lines: list[str]) -> str:
    return "EXISTING RECORDS (id [type] title):\n" + ("\n".join(lines) if lines else "(none yet)")


def user_message(new_text: str, *, carry: str = "", records: list[str] | None = None, handover: str = "",
                 actions: "tuple[str, ...] | list[str]" = ()) -> str:
    """The user turn: existing records, the current handover, earlier context, the new transcript, then what its
    tool calls touched (the only things an entry may be anchored to)."""
    parts = [records_block(records or [])]
    if handover:
        parts.append("CURRENT HANDOVER:\n" + handover)
    if carry:
        parts.append("EARLIER CONTEXT (already processed):\n" + carry)
    parts.append("NEW TRANSCRIPT:\n" + new_text)
    if actions:
        parts.append("TOOL CALLS (files edited, commands run in the new transcript):\n" + "\n".join(actions))
    return scrub_text("\n\n".join(parts))


def synthesis_message(chunk_outputs: list[dict[str, Any]], *, records: list[str] | None = None,
                      handover: str = "") -> str:
    parts = [records_block(records or [])]
    if handover:
        parts.append("CURRENT HANDOVER:\n" + handover)
    for i, out in enumerate(chunk_outputs, 1):
        parts.append(f"Chunk {i} extraction:\n{json.dumps(out, ensure_ascii=False)}")
    return scrub_text("\n\n".join(parts))
