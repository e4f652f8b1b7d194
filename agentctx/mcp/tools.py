"""The tool table: name → Tool(title, description, schemas, annotations, handler); tools/list and calls derive from it."""

from __future__ import annotations

import json
import sqlite3
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from ..base import paths
from ..base.errors import AgentctxError, StoreError
from ..base.anchors import ANCHOR_CHARS, ANCHORS_MAX
from ..base.models import (ALIAS_CHARS, ALIASES_MAX, BODY_MAX, QUESTION_CHARS, QUESTIONS_MAX, RECORD_TYPES, SCOPES,
                           TITLE_MAX)
from ..base.tokens import SEARCH_LIMIT_MAX
from ..store.db import translate
from . import handlers
from .handlers import ToolContext
from .schema import validate

Handler = Callable[[ToolContext, dict[str, Any]], dict[str, Any]]

ID = {"type": "string", "minLength": 1, "maxLength": 64}
# A path argument longer than Linux's PATH_MAX names no file; capped so resolving it stays cheap (an uncapped
# "a/" x 262,144 took 11 s).
MAX_PATH_CHARS = 4096
NULLABLE_STR = {"type": ["string", "null"]}
INDEX_ENTRY = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "type": {"type": "string"}, "title": {"type": "string"},
                   "age": {"type": "string"}, "confidence": {"type": "string"}, "score": {"type": "number"},
                   # A record some agent loads itself (its rule files, its memory, outside/native.py).
                   "loaded_by": {"type": "array", "items": {"type": "string"}}, "note": {"type": "string"}},
    "required": ["id", "type", "title", "age", "confidence", "score"],
}
RECORD = {
    "type": "object",
    "properties": {
        "id": {"type": "string"}, "project_id": {"type": "string"}, "type": {"type": "string"},
        "title": {"type": "string"}, "body": {"type": "string"}, "scope": {"type": "string"},
        "pinned": {"type": "boolean"}, "confidence": {"type": "string"}, "reinforce_count": {"type": "integer"},
        "valid_from": {"type": "string"}, "recorded_at": {"type": "string"}, "superseded_at": NULLABLE_STR,
        "superseded_by": NULLABLE_STR, "access_count": {"type": "integer"}, "last_accessed": NULLABLE_STR,
        "score": {"type": "number"}, "claudemd_drift_score": {"type": "number"}, "source": {"type": "string"},
        "session_id": NULLABLE_STR, "pending_embedding": {"type": "boolean"},
        "questions": {"type": "array", "items": {"type": "string"}},
        "aliases": {"type": "array", "items": {"type": "string"}},
        "marks": {"type": "object", "additionalProperties": {"type": "string"},
                  "description": "why the record cannot be taken as it is: unverified (its code changed since), "
                                 "review (waiting for the user's review)"},
    },
    "required": ["id", "type", "title", "body", "scope", "confidence", "valid_from", "recorded_at", "source"],
}
CHAIN_STEP = {"type": "object", "properties": {
    "id": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"}, "state": {"type": "string"},
    "valid_from": {"type": "string"}, "recorded_at": {"type": "string"}, "superseded_at": NULLABLE_STR,
    "superseded_by": NULLABLE_STR, "rationale": NULLABLE_STR}, "required": ["id", "state", "recorded_at"]}
DRIFT_ENTRY = {"type": "object", "properties": {"id": {"type": "string"}, "type": {"type": "string"},
                                                "title": {"type": "string"}}, "required": ["id", "type", "title"]}


# How a record will be asked: searched as their own fields, so the record is found the way people ask; never shown
# as its text. Both writing tools ask the calling model for them (it knows the conversation the fact came from).
# What a record governs (SPEC §3.1): the pre-action hook delivers it before a matching edit or command.
ANCHORS = {
    "anchors": {"type": "array", "maxItems": ANCHORS_MAX,
                "items": {"type": "string", "minLength": 1, "maxLength": ANCHOR_CHARS},
                "description": "what the record governs, only when the developer tied it to them: repository-relative "
                               "paths or globs (\"src/payments/**\", \"migrations/*.sql\"), \"command:alembic "
                               "upgrade\", \"symbol:Client.send\", \"tool:WebFetch\". It is then shown before an "
                               "edit of those files or that command"},
}
ASKED = {
    "questions": {"type": "array", "maxItems": QUESTIONS_MAX,
                  "items": {"type": "string", "minLength": 1, "maxLength": QUESTION_CHARS},
                  "description": "3-6 short questions a developer on this project might later ask whose answer is "
                                 "this record, in their words (\"why does pytest hang on the VPN?\")"},
    "aliases": {"type": "array", "maxItems": ALIASES_MAX,
                "items": {"type": "string", "minLength": 1, "maxLength": ALIAS_CHARS},
                "description": "up to 10 other names for what it is about that the record's text does not use: "
                               "synonyms, abbreviations, category words, rejected alternatives"},
}


def _obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _out(properties: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


# Hints are untrusted by clients, but let them auto-approve reads. ctx_get only bumps derived access counters.
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
WRITE = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}


@dataclass(frozen=True)
class Tool:
    """One MCP tool: what tools/list advertises and the handler tools/call runs."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    annotations: dict[str, Any]
    handler: Handler

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "description": self.description,
                "inputSchema": self.input_schema, "outputSchema": self.output_schema,
                "annotations": {"title": self.title, **self.annotations}}


_TOOL_LIST = (
    Tool(
        "ctx_search", "Search project memory",
        "Search this project's memory (decisions, conventions, preferences, discoveries, bugfixes, handovers, "
        "profile) before making a choice the project may already have settled, or when the user refers to past "
        "work. Returns a compact index (id, type, title, age, confidence, score), never bodies: call ctx_get "
        "with the ids you need. `file` narrows to records linked to that path; `scope` \"project\" = this "
        "project only, \"global\" = the developer's global preferences only; default both. "
        "Confidence \"inferred\" means an unconfirmed pattern, not an established fact.",
        _obj({"query": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "keywords or a question"},
              "type": {"type": "string", "enum": list(RECORD_TYPES)},
              "file": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_CHARS, "description": "a path, absolute or relative to the project root"},
              "scope": {"type": "string", "enum": list(SCOPES)},
              "limit": {"type": "integer", "minimum": 1, "default": 10,
                        "description": f"results wanted; more than {SEARCH_LIMIT_MAX} are capped"},
              "as_of": {"type": "string", "minLength": 1, "maxLength": 200,
                        "description": "history: what was current at that moment (YYYY-MM-DD, an ISO 8601 "
                                       "timestamp, or a git ref of this repository: its commit date)"}},
             ("query",)),
        _out({"results": {"type": "array", "items": INDEX_ENTRY}, "degraded": NULLABLE_STR}, ("results",)),
        READ_ONLY, handlers.ctx_search,
    ),
    Tool(
        "ctx_get", "Read memory records",
        "Read full records (body, bi-temporal fields, provenance) for up to 10 ids from ctx_search, ctx_related "
        "or the session context. Ids that are unknown, belong to another project, or were superseded come back "
        "in `missing`; `heads` maps a superseded id to the record that replaced it.",
        _obj({"ids": {"type": "array", "items": ID, "minItems": 1, "maxItems": 10},
              "history": {"type": "boolean", "default": False,
                          "description": "also return each id's whole supersession chain in `chains` (oldest "
                                         "first: valid_from, recorded_at, superseded_at, rationale at each step)"}},
             ("ids",)),
        _out({"records": {"type": "array", "items": RECORD}, "missing": {"type": "array", "items": {"type": "string"}},
              "heads": {"type": "object", "additionalProperties": {"type": "string"}},
              "chains": {"type": "object", "additionalProperties": {"type": "array", "items": CHAIN_STEP}}},
             ("records", "missing")),
        READ_ONLY | {"idempotentHint": False}, handlers.ctx_get,
    ),
    Tool(
        "ctx_record", "Record a fact",
        "Store one fact the developer stated or chose, as an explicit record: a decision (with its rationale), "
        "a convention, a preference, a discovery, a bugfix or a handover. One fact per record; title <= 120 "
        "characters, body <= 2000. Search first: if it replaces a current record, pass that id as `supersedes` "
        "(or use ctx_supersede). scope \"global\" stores a preference for every project. Add `questions` (how a "
        "developer would later ask for it) and `aliases` (other names for it): the project memory is searched "
        "through them, so the record is found when someone asks in other words. Superseding a record the user made a "
        "guard keeps its guard and anchors on the new record (`guard` in the result says so): only the user lifts a "
        "guard.",
        _obj({"type": {"type": "string", "enum": list(RECORD_TYPES)},
              "title": {"type": "string", "minLength": 1, "maxLength": TITLE_MAX},
              "body": {"type": "string", "minLength": 1, "maxLength": BODY_MAX},
              "rationale": {"type": "string", "minLength": 1, "maxLength": 1000,
                            "description": "why (a decision's reason): stored after the body"},
              "supersedes": ID, "scope": {"type": "string", "enum": list(SCOPES)}, **ASKED, **ANCHORS},
             ("type", "title", "body")),
        _out({"id": {"type": "string"}, "type": {"type": "string"}, "title": {"type": "string"},
              "scope": {"type": "string"}, "recorded_at": {"type": "string"},
              "superseded": {"type": "array", "items": {"type": "string"}}, "note": {"type": "string"},
              "guard": {"type": "string"}},
             ("id", "type", "title", "scope")),
        WRITE, handlers.ctx_record,
    ),
    Tool(
        "ctx_supersede", "Replace a record",
        "Replace a current record whose fact changed: the old one is kept as history and stops surfacing; the "
        "new one keeps its type and scope, and its title unless you pass `title`, with `new_body` plus the "
        "rationale. Pass `title` when the new body changes what the old title states: keeping a title the new body "
        "no longer says is refused. Fails if `old_id` was already superseded: the error names the current head to "
        "supersede instead. The new record keeps the old one's `questions`, `aliases` (how it will be asked) and "
        "`anchors` (what it governs) unless you pass new ones; a record the user made a guard keeps its guard and its "
        "anchors whatever you pass (`guard` in the result says so): only the user lifts a guard.",
        _obj({"old_id": ID, "new_body": {"type": "string", "minLength": 1, "maxLength": BODY_MAX},
              "rationale": {"type": "string", "minLength": 1, "maxLength": 1000},
              "title": {"type": "string", "minLength": 1, "maxLength": TITLE_MAX}, **ASKED, **ANCHORS},
             ("old_id", "new_body", "rationale")),
        _out({"old_id": {"type": "string"}, "new_id": {"type": "string"}, "type": {"type": "string"},
              "title": {"type": "string"}, "guard": {"type": "string"}}, ("old_id", "new_id")),
        WRITE, handlers.ctx_supersede,
    ),
    Tool(
        "ctx_project", "Project profile",
        "The project's profile: name, id, stack, commands, entry points, record counts by type and when the "
        "last session was. Use it at the start of unfamiliar work instead of guessing build or test commands.",
        {"type": "object", "additionalProperties": False},
        _out({"name": {"type": "string"}, "project_id": {"type": "string"}, "root": {"type": "string"},
              "stack": {"type": ["array", "null"], "items": {"type": "string"}},
              "commands": {"type": ["array", "null"], "items": {"type": "string"}},
              "entry_points": {"type": ["array", "null"], "items": {"type": "string"}},
              "record_counts_by_type": {"type": "object", "additionalProperties": {"type": "integer"}},
              "last_session_at": NULLABLE_STR},
             ("name", "project_id", "stack", "commands", "entry_points", "record_counts_by_type", "last_session_at")),
        READ_ONLY, handlers.ctx_project,
    ),
    Tool(
        "ctx_related", "Memory about a file",
        "The few records tied to a file, best tied first, in the compact index format: written in a session that "
        "edited it, naming it, failing there, or decisions about it (a record shown in every session is not tied "
        "to each file). Use it before changing a file you have not touched this session.",
        _obj({"file": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_CHARS, "description": "absolute, or relative to the project root"},
              "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_LIMIT_MAX, "default": 5}},
             ("file",)),
        _out({"file": {"type": "string"}, "results": {"type": "array", "items": INDEX_ENTRY}}, ("file", "results")),
        READ_ONLY, handlers.ctx_related,
    ),
    Tool(
        "ctx_sync_claudemd", "CLAUDE.md drift report",
        "Compare the project's current decisions and conventions with CLAUDE.md (root, .claude/CLAUDE.md and "
        "their @-imports). Returns `missing` (records not reflected), `contradicted` (superseded records still "
        "written there) and `proposed_diff`, a unified diff adding the missing ones. Read-only: show the diff "
        "to the developer and edit CLAUDE.md only if they agree.",
        {"type": "object", "additionalProperties": False},
        _out({"missing": {"type": "array", "items": DRIFT_ENTRY}, "contradicted": {"type": "array", "items": DRIFT_ENTRY},
              "proposed_diff": {"type": "string"}, "files": {"type": "array", "items": {"type": "string"}}},
             ("missing", "contradicted", "proposed_diff")),
        READ_ONLY, handlers.ctx_sync_claudemd,
    ),
)

TOOLS: dict[str, Tool] = {t.name: t for t in _TOOL_LIST}

# The server's `instructions` (Claude Code loads them up front, tool definitions on demand; cut at 2 KB).
INSTRUCTIONS = (
    "agentctx is this project's memory: decisions, conventions, preferences, discoveries, bugfixes and the last "
    "session's handover. Before settling a design or tooling question, ctx_search it; read bodies with ctx_get. "
    "When the developer states a decision or convention, store it with ctx_record (or ctx_supersede when it "
    "replaces one). Records marked inferred are unconfirmed patterns, not facts."
)


@dataclass(frozen=True)
class ToolResult:
    """A tools/call result: structured content plus whether it is a tool error."""

    structured: dict[str, Any]
    is_error: bool = False

    def to_dict(self) -> dict[str, Any]:
        text = json.dumps(self.structured, ensure_ascii=False, separators=(",", ":"))
        return {"content": [{"type": "text", "text": text}], "structuredContent": self.structured,
                "isError": self.is_error}


def tool_error(message: str, degraded: str | None = None) -> ToolResult:
    payload = {"error": message}
    if degraded:
        payload["degraded"] = degraded
    return ToolResult(payload, True)


def project_off(ctx: ToolContext) -> ToolResult | None:
    """Checked on every call, so `agentctx off` applies to a running server (docs/control.md)."""
    from ..base import control

    reason = control.check(ctx.project.id, str(ctx.project.root))[0]
    if reason is None:
        return None
    return ToolResult({"error": f"agentctx is off for this project: {control.describe(reason)}", "off": reason}, True)


def call(ctx: ToolContext, name: str, arguments: dict[str, Any]) -> ToolResult:
    """Validate `arguments` against the tool's schema and run it; every failure becomes an isError result.

    The caller checks that `name` is in TOOLS (an unknown tool is a protocol error, −32602).
    """
    tool = TOOLS[name]
    problems = validate(arguments, tool.input_schema)
    if problems:
        return tool_error(f"invalid arguments for {name}: " + "; ".join(problems))
    off = project_off(ctx)
    if off is not None:
        return off
    try:
        return ToolResult(tool.handler(ctx, arguments))
    except StoreError as exc:
        return tool_error(str(exc), "store-unavailable")
    except AgentctxError as exc:
        return tool_error(str(exc))
    except sqlite3.Error as exc:
        return tool_error(str(translate(exc, ctx.db_path or paths.db_path())), "store-unavailable")
    except Exception as exc:  # a bug must not reach the channel as a raw exception (SPEC §5)
        traceback.print_exc(file=sys.stderr)
        return tool_error(f"internal error in {name}: {type(exc).__name__}: {exc}")
