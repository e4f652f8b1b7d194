"""The record model: closed sets, limits, and the immutable records every layer passes around.

Records are tuple subclasses with named fields (`record_type`), built without `collections.namedtuple`'s cost:
namedtuple compiles a constructor with eval for every class (~0.1 ms each, more on a cold start), and the hooks
define several such classes on every prompt. `record_type` builds the same shape from plain closures: a tuple
subclass with a property per field, keyword construction with defaults, `_fields`, `_replace`, `_asdict` and a
readable repr.
"""

from operator import itemgetter

# The hooks import this module on every prompt: frozen dataclasses would pull in `inspect` (~8 ms) and
# `typing` (~3 ms), so records are immutable tuples with named fields (`record_type`) and the Literal aliases
# exist for type checkers only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    RecordType = Literal["decision", "convention", "preference", "discovery", "bugfix", "handover", "profile"]
    Scope = Literal["project", "global"]
    Confidence = Literal["explicit", "inferred", "reinforced", "team"]
    Source = Literal["llm_extraction", "hook_observation", "mcp_tool", "cli", "import", "team_import", "dashboard",
                     "claude_memory", "rule_file", "agent_memory"]
    NodeKind = Literal["file", "symbol", "package", "module", "branch"]
    RelType = Literal["supersedes", "applies_to", "observed_in", "derives_from", "scoped_to"]


def record_type(name: str, fields: str | tuple[str, ...], *, defaults: "tuple[Any, ...]" = ()) -> type:
    """A tuple subclass named `name` with `fields` (space-separated or a tuple); the last len(defaults) are optional."""
    names = tuple(fields.split()) if isinstance(fields, str) else tuple(fields)
    count = len(names)
    optional = dict(zip(names[count - len(defaults):], defaults))

    def __new__(cls, *args: "Any", **kwargs: "Any") -> "Any":  # noqa: N807
        if len(args) == count and not kwargs:
            return tuple.__new__(cls, args)
        if len(args) > count:
            raise TypeError(f"{name}() takes {count} values, got {len(args)}")
        values = list(args)
        for field in names[len(args):]:
            if field in kwargs:
                values.append(kwargs.pop(field))
            elif field in optional:
                values.append(optional[field])
            else:
                raise TypeError(f"{name}() missing required argument: {field!r}")
        if kwargs:
            raise TypeError(f"{name}() got unexpected or repeated arguments: {', '.join(sorted(kwargs))}")
        return tuple.__new__(cls, values)

    def _replace(self: "Any", **changes: "Any") -> "Any":
        unknown = set(changes) - set(names)
        if unknown:
            raise ValueError(f"{name} has no field(s) {', '.join(sorted(unknown))}")
        return tuple.__new__(type(self), [changes.get(f, v) for f, v in zip(names, self)])

    def _asdict(self: "Any") -> "dict[str, Any]":
        return dict(zip(names, self))

    def __repr__(self: "Any") -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={v!r}' for f, v in zip(names, self))})"

    def __getnewargs__(self: "Any") -> "tuple[Any, ...]":
        return tuple(self)

    namespace: "dict[str, Any]" = {
        "__slots__": (), "_fields": names, "_field_defaults": optional, "__new__": __new__,
        "_replace": _replace, "_asdict": _asdict, "__repr__": __repr__, "__getnewargs__": __getnewargs__,
        "__match_args__": names,
    }
    for index, field in enumerate(names):
        namespace[field] = property(itemgetter(index), doc=f"field {index}: {field}")
    try:  # like namedtuple: the class belongs to the caller's module (pickling looks it up there)
        import sys

        namespace["__module__"] = sys._getframe(1).f_globals.get("__name__", __name__)
    except (AttributeError, ValueError):
        pass
    return type(name, (tuple,), namespace)


RECORD_TYPES: tuple[str, ...] = ("decision", "convention", "preference", "discovery", "bugfix", "handover", "profile")
SCOPES: tuple[str, ...] = ("project", "global")
# `team`: brought in from a teammate's `.agentctx/context.md` (below what this user typed; docs/team.md).
CONFIDENCES: tuple[str, ...] = ("explicit", "inferred", "reinforced", "team")
# `rule_file`: read from the repository's own rules for agents (`.cursor/rules`, `.claude/rules`,
# `.github/instructions`, nested AGENTS.md/CLAUDE.md/GEMINI.md; outside/rulefiles.py), confidence `team`.
SOURCES: tuple[str, ...] = ("llm_extraction", "hook_observation", "mcp_tool", "cli", "import", "team_import", "dashboard",
                            "claude_memory", "rule_file", "agent_memory")
NODE_KINDS: tuple[str, ...] = ("file", "symbol", "package", "module", "branch")
REL_TYPES: tuple[str, ...] = ("supersedes", "applies_to", "observed_in", "derives_from", "scoped_to")

GLOBAL_PROJECT = "_global"
TITLE_MAX = 120
BODY_MAX = 2000
# How a record will be asked (write-time expansion, SPEC §3.1): the questions it answers and other names for what it
# is about. Search reads them as their own index columns; nobody is shown them as the record's text.
QUESTIONS_MAX = 8
QUESTION_CHARS = 200
ALIASES_MAX = 16
ALIAS_CHARS = 80
# What a record governs (base/anchors.py: `path:`, `symbol:`, `command:`, `tool:` lines) and, for a record the user
# made a guard, what the pre-action hook enforces; both index data, never injected as the record's text.


class NewRecord(record_type("NewRecord", "type title body project_id scope confidence source session_id pinned valid_from "
                                          "questions aliases anchors guard",
                           defaults=("project", "inferred", "cli", None, False, None, (), (), (), ""))):
    """What a caller asks to store; validated by the store before anything is written.

    Fields: type, title, body, project_id, scope="project", confidence="inferred", source="cli",
    session_id=None, pinned=False, valid_from=None (defaults to recorded_at), questions=() (the questions the record
    answers), aliases=() (other names for what it is about), anchors=() (what it governs: `kind:value` lines,
    base/anchors.py), guard="" (how the pre-action hook enforces it; empty: it does not).
    """

    __slots__ = ()

    def replace(self, **changes: "Any") -> "NewRecord":
        return self._replace(**changes)


_RECORD_FIELDS = (
    "id project_id type title body scope pinned confidence reinforce_count valid_from recorded_at superseded_at "
    "superseded_by access_count last_accessed score claudemd_drift_score source session_id pending_embedding "
    "questions aliases anchors guard"
)


class Record(record_type("Record", _RECORD_FIELDS, defaults=((), (), (), ""))):
    """A stored record, as read back: the SPEC §3.1 columns in schema order (`questions` and `aliases`: tuples of
    strings, empty for a record nobody expanded; `anchors`: what it governs, a tuple of `kind:value`; `guard`: its
    enforcement, empty for all but the records a user made guards)."""

    __slots__ = ()

    @property
    def is_current(self) -> bool:
        return self.superseded_at is None

    def to_dict(self) -> "dict[str, Any]":
        return dict(self._asdict())

    def replace(self, **changes: "Any") -> "Record":
        return self._replace(**changes)


class SearchHit(record_type("SearchHit", "record score relevance degraded matched asked", defaults=(None, None, None))):
    """One ranked search result: the record, its final score, and its relevance (how surely it is about the query;
    the specificity of the query words it shares; relevance floors apply to it). `matched` (FTS rung only): the
    query stems the record contains, each with the weight of the best field it is in (2 title, 1 body). `asked`:
    those found in the record's questions or aliases, each True when its title and body lack it (found only through
    how the record will be asked)."""

    __slots__ = ()

    def to_index(self) -> "dict[str, Any]":
        """The compact index form (no body) used by search output and MCP."""
        r = self.record
        return {
            "id": r.id,
            "type": r.type,
            "title": r.title,
            "confidence": r.confidence,
            "score": round(self.score, 3),
            "relevance": round(self.relevance, 3),
            "recorded_at": r.recorded_at,
            "pinned": r.pinned,
            "superseded_by": r.superseded_by,
        }


class SearchResult(record_type("SearchResult", "hits degraded terms specific frequency",
                               defaults=((), None, (), None, None))):
    """Hits plus the rung of the degradation ladder that produced them (None = full FTS5); `specific` (FTS rung
    only): each distinct query stem's specificity, in query order (what the injection decision reads);
    `frequency` (FTS rung only): (rows in the index, each query stem's document frequency there), how common each
    word is in this store."""

    __slots__ = ()
