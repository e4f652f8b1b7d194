"""UserPromptSubmit: search on the literal prompt, inject the new records the relevance decision accepts, under budget;
record it in the ledger and the decisions log."""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from ..base.models import SearchHit
    from ..retrieval.relevance import Assessed
    from . import Payload

# One short line says where more comes from: clients that defer MCP tools show the model only their full names.
HEADER = ("Relevant project context (agentctx project memory; search it with mcp__agentctx__ctx_search, whole "
          "records with mcp__agentctx__ctx_get):")
UNCONFIRMED = " (unconfirmed pattern)"
TEAM = " (from the team file)"  # a teammate's entry, imported from .agentctx/context.md: not what this user said
DEDUP_READ_LIMIT = 1024 * 1024  # ~37,000 ids: a session injecting more simply re-injects its oldest
# Characters of a record's body an injection shows: what the record says, not all of it.
BODY_CHARS = 360
# Candidates kept per prompt in the decisions log `agentctx why` reads (injected or not).
NOTED = 3
# Characters of the prompt its pending row carries for the dashboard. Secrets are masked when the row is drained
# (the scrubber's patterns would cost every prompt ~17 ms to compile), which keeps store.sessions.PROMPT_CHARS of
# it: a secret cut at this limit lies far beyond what is kept.
PENDING_PROMPT_CHARS = 4000
# ASCII letters to lower case, one character for one: positions found in the result are the prompt's own.
_ASCII_LOWER = {c: c + 32 for c in range(65, 91)}


def user_prompt_submit(payload: "Payload") -> dict[str, object] | None:
    if not payload.prompt.strip():
        return None
    from ..base import paths

    db_file = paths.db_file()
    if not os.path.exists(db_file):
        return None
    from ..base.roots import cached_project_id  # the root cache consolidation keeps: no URL parsing per prompt

    project_id = cached_project_id(payload.cwd)
    if project_id is None:
        from ..base.project import detect

        project_id = detect(payload.cwd).id
    from ..base import control

    off, notify = control.check(project_id, payload.cwd)
    if off is not None:  # turned off, excluded or not opted in: no search, no ledger row
        return None
    from ..base import tokens
    from ..store import db
    from .budget import lock_wait

    wait = lock_wait("user-prompt-submit")
    try:
        conn = db.connect(db_file, timeout=wait)
    except Exception as exc:  # the store is locked (or unusable): the prompt goes on without context
        from . import log

        log("user-prompt-submit", f"injected nothing: {exc} (waited at most {wait:g} s)")
        _account(payload, project_id, [], 0)
        return None
    try:
        dedup = paths.dedup_file(payload.session_id) if payload.session_id else None
        seen = _read_dedup(dedup) if dedup else set()
        # The handover and the profile this session's SessionStart digest carried are in front of the model whole:
        # once per session (hooks/session.py keeps the digest's ids beside the dedup file). A decision the digest
        # listed as one line may still come with its body when a prompt is about it.
        whole = _read_dedup(dedup + ".digest") if dedup else set()
        weighed, chosen, text, held = select(conn, payload.prompt, project_id, seen=seen, whole=whole,
                                             agent=payload.agent, cwd=payload.cwd)
        _note(payload, project_id, weighed, chosen, held)
        later, later_ids = _rules_later(payload)
        if later:  # the always-apply rules the digest had no room for: whole, once, first
            text = f"{later}\n\n{text}" if text else later
        shown = later_ids + [h.record.id for h in chosen if h.record.id not in later_ids]
        if shown and dedup:
            _append_dedup(dedup, shown)
        _account(payload, project_id, chosen, tokens.estimate(text) if text else 0, later_ids)
    finally:
        conn.close()
    if not text:
        return None
    output: dict[str, object] = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
    from ..memory.notice import prompt_line

    line = prompt_line(chosen, notify=notify) if chosen else ""
    if line:
        output["systemMessage"] = line
    return output


def select(conn: "sqlite3.Connection", prompt: str, project_id: str, *, seen: "set[str] | None" = None,
           whole: "set[str] | None" = None, agent: "str | None" = None,
           cwd: "str | None" = None) -> "tuple[list[Assessed], list[SearchHit], str, dict[str, str]]":
    """The hook's whole decision for a prompt: the relevance decision, then what the session already has in front
    of it (`seen`: injected before; `whole`: the digest carried it whole; what the agent's own memory loads), the
    trust marks, the top-k and the budget. What the agent loads itself (its memory, its rule files for a session
    started in `cwd`: `outside.native`) is held back, and so is a rule file matched only by words of its body. Returns the weighed candidates, the chosen hits, their text, and why each
    candidate that passed the gate was held back. `agentctx search --explain` runs it too, with no session."""
    from ..base import tokens
    from ..retrieval.relevance import decide

    seen, whole = seen or set(), whole or set()
    weighed = decide(conn, prompt, project_id)
    own: "set[str]" = set()
    if weighed and agent:  # what the agent loads itself (its memory, its rule files): not injected again
        from ..outside.native import loaded_ids

        hits = [a.hit.record for a in weighed if a.inject]
        rel = _cwd_rel(cwd) if cwd and any(r.source == "rule_file" for r in hits) else None
        own = loaded_ids(conn, project_id, agent, hits, rel)
    held: "dict[str, str]" = {}
    fresh = []
    for a in weighed:
        rid = a.hit.record.id
        if not a.inject:
            continue
        if rid in seen:
            held[rid] = "already in front of the model this session"
        elif a.hit.record.type in ONCE_A_SESSION and rid in whole:
            held[rid] = "the session's digest carried it whole"
        elif rid in own:
            held[rid] = ("the agent loads this rule file itself" if a.hit.record.source == "rule_file"
                         else "the agent's own memory loads it")
        elif not about_its_head(a.hit):
            held[rid] = "a rule file that shares only words of its body with the prompt"
        else:
            fresh.append(a.hit)
    fresh, flags = trusted(conn, prompt, fresh, held)
    chosen, text = render(fresh[: tokens.PROMPT_TOP_K], flags)
    return weighed, chosen, text, held


def _cwd_rel(cwd: str) -> str:
    """The session's working directory relative to its repository root ("" at the root or outside one)."""
    from ..base.roots import git_root

    root = git_root(cwd) if cwd else None
    if not root:
        return ""
    rel = os.path.relpath(os.path.realpath(cwd), os.path.realpath(root)).replace(os.sep, "/")
    return "" if rel == "." or rel.startswith("..") else rel


def about_its_head(hit: "SearchHit") -> bool:
    """A rule file's record is injected only when the prompt shares a word with its head (path, description or
    heading, governed paths), never only because its long body shares words (retrieval.search.RULE_BODY_WEIGHT).
    Every other record: True."""
    if hit.record.source != "rule_file" or hit.matched is None:
        return True
    from ..retrieval.search import RULE_BODY_WEIGHT

    return any(weight > RULE_BODY_WEIGHT for weight in hit.matched.values())


def _rules_later(payload: "Payload") -> "tuple[str, list[str]]":
    """The always-apply rules SessionStart left for the first prompt or action (`hooks.session.LATER`), claimed
    once: ("", []) when there are none or another hook of the session took them."""
    from .session import take_later

    if not payload.session_id:
        return "", []
    return take_later(payload.session_id)


def trusted(conn: "sqlite3.Connection", prompt: str, hits: "list[SearchHit]",
            held: "dict[str, str] | None" = None) -> "tuple[list[SearchHit], dict[str, str]]":
    """The hits that may be injected, and the flag each unverified one carries (SPEC §3.9): a record waiting for
    review never is; one whose code changed only when the prompt names its file (or its id), flagged. One indexed
    query over the few candidates."""
    if not hits:
        return hits, {}
    from ..store.trust import flag, marks_for

    try:
        marks = marks_for(conn, [h.record.id for h in hits])
    except Exception:  # a store from before migration 15: nothing is marked
        return hits, {}
    kept, flags = [], {}
    low = prompt.lower()
    for h in hits:
        mark = marks.get(h.record.id, {})
        if "review" in mark:
            if held is not None:
                held[h.record.id] = "it waits for review (`agentctx review`)"
            continue
        reason = mark.get("unverified")
        if reason is not None:
            named = [p.split(": ", 1)[0] for p in reason.split("; ")]
            if not any(p.lower() in low or p.rsplit("/", 1)[-1].lower() in low for p in named if p) \
                    and h.record.id.lower()[-8:] not in low:
                if held is not None:
                    held[h.record.id] = f"its code changed since ({reason}) and the prompt does not name it"
                continue
            flags[h.record.id] = flag(reason)
        kept.append(h)
    return kept, flags


def block(hit: "SearchHit", flag: str = "") -> str:
    """What the record is, in a few lines: its type, title and id, then the start of its body (the whole record is
    one `ctx_get` away, by that id). `flag`: " (code changed since: path)" for a record whose code changed."""
    r = hit.record
    title, origin = r.title, ""
    if r.source == "rule_file":  # the rule file says it, not the team file
        from ..outside.native import provenance

        title, origin = provenance(r)
    label = flag + (UNCONFIRMED if r.confidence == "inferred" else origin or (TEAM if r.confidence == "team" else ""))
    body = r.body.strip()
    if len(body) > BODY_CHARS:
        cut = body.rfind(" ", 0, BODY_CHARS)
        body = body[: cut if cut > BODY_CHARS // 2 else BODY_CHARS].rstrip() + " …"
    return f"[{r.type}] {title}{label} (id {r.id})\n{body}"


def header() -> str:
    """HEADER, naming the tools as the model sees them: Claude Code offers the plugin's server under its own prefix
    (claude/aside.py). Only the environment is read: this runs on every prompt (the rare plugin-beside-`init`-MCP
    case keeps the plugin's names here; SessionStart's digest checks ~/.claude.json)."""
    if os.environ.get("CLAUDE_PLUGIN_ROOT") and os.environ.get("AGENTCTX_PLUGIN_ROOT"):
        return HEADER.replace("mcp__agentctx__", "mcp__plugin_agentctx_agentctx__")
    return HEADER


def render(hits: "list[SearchHit]", flags: "dict[str, str] | None" = None) -> "tuple[list[SearchHit], str]":
    """The hits that fit the prompt budget (a block that does not fit is skipped, the next may) and the text."""
    from ..base import tokens

    head = header()
    blocks = [head] + [block(h, (flags or {}).get(h.record.id, "")) for h in hits]
    kept = tokens.fit(blocks, tokens.PROMPT_BUDGET, char_cap=tokens.PROMPT_CHAR_CAP)
    if len(kept) < 2 or kept[0] != head:
        return [], ""
    kept_set = set(kept[1:])
    chosen = [h for h, b in zip(hits, blocks[1:]) if b in kept_set]
    return chosen, "\n\n".join(kept)


# Record types the digest carries whole: a prompt never brings them again in the same session (issue 34 item 9).
ONCE_A_SESSION = ("handover", "profile")


def _read_dedup(path: str) -> set[str]:
    """Ids already injected this session (one per line); a missing or damaged file only means re-injection.

    The file lives in the shared temp dir: read it only as a regular file reached without a symlink, and at
    most DEDUP_READ_LIMIT bytes (a planted link to /dev/zero or a FIFO must not stall or exhaust the hook)."""
    from ..base.safeio import read_ids

    return read_ids(path, DEDUP_READ_LIMIT)


def _append_dedup(path: str, ids: list[str]) -> None:
    """One appended write per prompt: parallel prompts of a session cannot drop each other's ids, and nothing is
    rewritten. O_NOFOLLOW: the file lives in the shared temp dir, where a planted symlink must not be written through."""
    from ..base.safeio import append_ids

    append_ids(path, ids)


def _append(path: str, data: bytes) -> bool:
    from ..base.safeio import append_bytes

    return append_bytes(path, data)


def _account(payload: "Payload", project_id: str, hits: "list[SearchHit]", n_tokens: int,
             later: "list[str] | None" = None) -> None:
    """The prompt's pending row, injected or not (one appended line, no database write on the prompt's path):
    what the user asked and, when something was injected, the ledger row. `agentctx why`, `status`, the dashboard
    and consolidation move it into the database."""
    from ..base.ids import sha256_hex
    from . import record_pending

    record_pending({"event": "UserPromptSubmit", "session_id": payload.session_id, "project_id": project_id,
                    "prompt_hash": sha256_hex(payload.prompt)[:16],
                    "record_ids": (later or []) + [h.record.id for h in hits if h.record.id not in (later or [])],
                    "scores": [1.0] * len(later or []) + [round(h.score, 4) for h in hits
                                                          if h.record.id not in (later or [])], "tokens": n_tokens,
                    "prompt": without_private(payload.prompt)[:PENDING_PROMPT_CHARS],
                    "prompt_chars": len(payload.prompt), "agent": payload.agent})


def without_private(text: str) -> str:
    """`text` without its `<private>…</private>` spans (an unclosed tag hides the rest), so the developer's "never
    remember this" is never written, not even to the pending file. The rule of extract.transcript.strip_private,
    which the drain applies again, written without `re` (not loaded on the prompt's path)."""
    if "<private" not in text.lower():
        return text
    low = text.translate(_ASCII_LOWER)
    out, at = [], 0
    while True:
        start = low.find("<private>", at)
        if start < 0:
            out.append(text[at:])
            break
        out.append(text[at:start] + " ")
        end = low.find("</private>", start + 9)
        if end < 0:
            break
        at = end + 10
    return "".join(out)


def _note(payload: "Payload", project_id: str, weighed: "list[Assessed]", chosen: "list[SearchHit]",
          held: "dict[str, str]") -> None:
    """One line per prompt in the decisions log (`agentctx why`): the best candidates, injected or not, with their
    probability, the threshold and the features that decided it (`retrieval.explain.candidate_rows`, which `search
    --explain` uses too). No prompt text: its hash and length only. A prompt with no candidate at all is not logged."""
    from ..base import jsonfast, paths
    from ..base.ids import now_iso, sha256_hex
    from ..retrieval.explain import candidate_rows, decision_row

    if not weighed:
        return
    rows = candidate_rows(weighed, chosen, payload.prompt, held, NOTED)
    row = {"at": now_iso(), "session_id": payload.session_id, "project_id": project_id,
           "prompt_hash": sha256_hex(payload.prompt)[:16], "prompt_chars": len(payload.prompt),
           **decision_row(weighed, rows)}
    path = paths.decisions_log_file()
    line = (jsonfast.dumps(row) + "\n").encode("utf-8")
    if not _append(path, line):
        paths.ensure_private_dir_str(os.path.dirname(path))  # the first row: create the state directory
        _append(path, line)
