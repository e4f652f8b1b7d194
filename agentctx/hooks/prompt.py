"""UserPromptSubmit: search on the literal prompt, inject the top new records under budget, record it in the ledger."""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..models import SearchHit
    from . import Payload

HEADER = "Relevant project context (agentctx):"
SEARCH_LIMIT = 6  # top 3 injected, 3 spare for records already injected this session (pool: 32 candidates)
UNCONFIRMED = " (unconfirmed pattern)"
DEDUP_READ_LIMIT = 1024 * 1024  # ~37,000 ids: a session injecting more simply re-injects its oldest


def user_prompt_submit(payload: "Payload", *, floor: float | None = None) -> dict[str, object] | None:
    if not payload.prompt.strip():
        return None
    from .. import paths

    db_file = paths.db_file()
    if not os.path.exists(db_file):
        return None
    from ..roots import cached_project_id  # the root cache consolidation keeps: no URL parsing per prompt

    project_id = cached_project_id(payload.cwd)
    if project_id is None:
        from ..project import detect

        project_id = detect(payload.cwd).id
    from .. import control

    off, notify = control.check(project_id, payload.cwd)
    if off is not None:  # turned off, excluded or not opted in: no search, no ledger row
        return None
    from .. import db, search, tokens
    from .budget import lock_wait

    wait = lock_wait("user-prompt-submit")
    try:
        conn = db.connect(db_file, timeout=wait)
    except Exception as exc:  # the store is locked (or unusable): the prompt goes on without context
        from . import log

        log("user-prompt-submit", f"injected nothing: {exc} (waited at most {wait:g} s)")
        return None
    try:
        result = search.search(conn, payload.prompt, project_id, limit=SEARCH_LIMIT,
                               floor=search.PROMPT_FLOOR if floor is None else floor)
        dedup = paths.dedup_file(payload.session_id) if payload.session_id else None
        seen = _read_dedup(dedup) if dedup else set()
        fresh = [h for h in result.hits if h.record.id not in seen][: tokens.PROMPT_TOP_K]
        chosen, text = render(fresh)
        if not chosen:
            return None
        if dedup:
            _append_dedup(dedup, [h.record.id for h in chosen])
        _account(payload, project_id, chosen, tokens.estimate(text))
    finally:
        conn.close()
    output: dict[str, object] = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
    from ..notice import prompt_line

    line = prompt_line(chosen, notify=notify)
    if line:
        output["systemMessage"] = line
    return output


def block(hit: "SearchHit") -> str:
    r = hit.record
    label = UNCONFIRMED if r.confidence == "inferred" else ""
    return f"[{r.type}] {r.title}{label}\n{r.body}"


def render(hits: "list[SearchHit]") -> "tuple[list[SearchHit], str]":
    """The hits that fit the prompt budget (a block that does not fit is skipped, the next may) and the text."""
    from .. import tokens

    blocks = [HEADER] + [block(h) for h in hits]
    kept = tokens.fit(blocks, tokens.PROMPT_BUDGET, char_cap=tokens.PROMPT_CHAR_CAP)
    if len(kept) < 2 or kept[0] != HEADER:
        return [], ""
    kept_set = set(kept[1:])
    chosen = [h for h, b in zip(hits, blocks[1:]) if b in kept_set]
    return chosen, "\n\n".join(kept)


def _read_dedup(path: str) -> set[str]:
    """Ids already injected this session (one per line); a missing or damaged file only means re-injection.

    The file lives in the shared temp dir: read it only as a regular file reached without a symlink, and at
    most DEDUP_READ_LIMIT bytes (a planted link to /dev/zero or a FIFO must not stall or exhaust the hook)."""
    from ..safeio import read_tail

    try:
        raw, _ = read_tail(path, DEDUP_READ_LIMIT, follow=False)
    except OSError:
        return set()
    return set(raw.decode("ascii", "replace").split())


def _append_dedup(path: str, ids: list[str]) -> None:
    """One appended write per prompt: parallel prompts of a session cannot drop each other's ids, and nothing is
    rewritten. O_NOFOLLOW: the file lives in the shared temp dir, where a planted symlink must not be written through."""
    from ..safeio import open_append

    try:
        fd = open_append(path)  # no symlink, FIFO, device or another user's file
        try:
            os.write(fd, ("\n".join(ids) + "\n").encode("ascii", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def _account(payload: "Payload", project_id: str, hits: "list[SearchHit]", n_tokens: int) -> None:
    """The ledger row goes to the pending file (one appended line, no database write on the prompt's path);
    `agentctx why`, `status` and consolidation move it into the database."""
    from ..ids import sha256_hex
    from . import record_pending

    record_pending({"event": "UserPromptSubmit", "session_id": payload.session_id, "project_id": project_id,
                    "prompt_hash": sha256_hex(payload.prompt)[:16], "record_ids": [h.record.id for h in hits],
                    "scores": [round(h.score, 4) for h in hits], "tokens": n_tokens})
