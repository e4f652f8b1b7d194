"""PreToolUse (each agent's pre-action hook): the records whose anchors match what a tool call is about to edit, run
or use reach the model before it runs, once per session each, within ACTION_BUDGET tokens; guards the user set ask
or deny. The hot path opens no database: the project's anchor map is one file read, and no map means nothing."""

import os

from ..base.models import record_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from . import Payload

ACTION_BUDGET = 400  # tokens an action may receive (SPEC §4.11), the header included
# A call that only reads (the agent's read of the file it is about to change) may carry more: it is the one chance
# for a file many rules govern to bring them all before the edit; each still comes once per session, so a session
# spends about the same (fitted by bench/action.py on half the repositories).
READ_BUDGET = 800
TEXT_SCAN = 32_000  # characters of an edit's text searched for symbol anchors
PATHS_MAX = 64  # files of one call matched for delivery (guards check every file, up to FILES_MAX)
FILES_MAX = 100_000  # files of one call a guard checks: more than any patch; a payload is at most 16 MB anyway
# Neutral (Claude Code) tool names whose target is a file, and the input fields that name it; adapters map their
# own tools to these (Gemini's replace/write_file, Codex's apply_patch as `file_paths`).
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
# Tools that read a file: the agent usually reads the file it is about to change, and what the hook returns for the
# read reaches the model with the file, before it writes the edit (SPEC §4.11). Grep and Glob only when their path
# names one file (a folder or a pattern reads nothing in particular).
READ_TOOLS = frozenset({"Read", "NotebookRead"})
SEARCH_TOOLS = frozenset({"Grep", "Glob"})
_PATH_FIELDS = ("file_path", "notebook_path", "path")
_TEXT_FIELDS = ("new_string", "old_string", "content", "new_source")
SHELL_TOOLS = frozenset({"Bash"})
MAP_READ_LIMIT = 8 * 1024 * 1024
NOTES_READ_LIMIT = 1024 * 1024
COMMAND_KEY = 16_000  # characters of a shell line that tie the post-action hook's call to this one


class Target(record_type("Target", ("tool", "paths", "command", "text", "line", "writes", "root", "outside", "read"),
                         defaults=("", (), "", "", None, (), "", (), ()))):
    """What a tool call is about to touch: its tool name, the repository-relative files it edits (the first
    PATHS_MAX, for delivery; a shell line's writes among them), the shell line it runs (whole) and as base/shell.py
    reads it, the text it writes (for symbol anchors), every repository-relative file it writes (edits and shell
    writes, for guards), the root, the absolute files it writes outside the repository (guardcheck.tamper), and the
    repository-relative files it reads (`read`: a record anchored to one is delivered with what the read returns; a
    guard's path pattern never stops a read)."""

    __slots__ = ()

    def shell(self) -> "Any":
        """The shell line as base/shell.py reads it (parsed here when the target was built without it)."""
        if self.line is not None:
            return self.line
        from ..base.shell import parse

        return parse(self.command)


class Pick(record_type("Pick", ("entry", "anchor", "decision", "block", "why"), defaults=("",))):
    """One record chosen for an action: its map entry, the anchor that matched (or the guard pattern), the guard's
    decision (`ask`, `deny`, or "" for a plain delivery), the text block delivered, and why a guard stopped a line
    it could not read in full ("" otherwise)."""

    __slots__ = ()


def _rel(path: str, cwd: str, root: str) -> str:
    """`path` relative to the repository root, or "" when it lies outside it."""
    return _rel_or_none(path, cwd, root) or ""


def _rel_or_none(path: str, cwd: str, root: str) -> "str | None":
    """`path` relative to the repository root ("" for the root itself), or None when it lies outside it."""
    path = path.replace("\\", "/")
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    for base in (root, os.path.realpath(root)):
        if full == base.rstrip("/"):
            return ""
        base = base.rstrip("/") + "/"
        if full.startswith(base):
            return full[len(base):]
    real = os.path.realpath(full)
    base = os.path.realpath(root).rstrip("/") + "/"
    return real[len(base):] if real.startswith(base) else None


def _rels(names: "list[object]", cwd: str, root: str) -> "list[str]":
    """The repository-relative form of each file name, in order, each once (outside the repository: left out)."""
    out: list[str] = []
    for name in names[:PATHS_MAX * 2]:
        if isinstance(name, str) and name.strip() and len(name) <= 4096:
            rel = _rel(name.strip(), cwd, root)
            if rel and rel not in out:
                out.append(rel)
    return out[:PATHS_MAX]


def _one_file(name: object, cwd: str) -> bool:
    """Whether a search tool's `path` names one existing file (not a folder, not a pattern)."""
    if not isinstance(name, str) or not name.strip() or len(name) > 4096 or any(c in name for c in "*?[{"):
        return False
    return os.path.isfile(name if os.path.isabs(name) else os.path.join(cwd, name))


def target_of(tool: str, tool_input: object, cwd: str, root: str) -> Target:
    """The target of a tool call in the neutral shape (file edits, file reads, shell lines; every tool by its name)."""
    data = tool_input if isinstance(tool_input, dict) else {}
    if tool in READ_TOOLS or tool in SEARCH_TOOLS:
        names = [data.get(k) for k in _PATH_FIELDS]
        listed = data.get("file_paths")
        if isinstance(listed, list):
            names += listed
        if tool in SEARCH_TOOLS:
            names = [n for n in names if _one_file(n, cwd)]
        return Target(tool, (), "", "", None, (), root, (), tuple(_rels(names, cwd, root)))
    paths: list[str] = []
    text = ""
    line = None
    writes: "tuple[str, ...]" = ()
    outside: list[str] = []
    read: list[str] = []
    if tool in EDIT_TOOLS:
        names = [data.get(k) for k in _PATH_FIELDS]
        listed = data.get("file_paths")
        if isinstance(listed, list):
            names += listed[:FILES_MAX]
        seen: set[str] = set()
        for name in names:
            if isinstance(name, str) and name.strip() and len(name) <= 4096:
                rel = _rel_or_none(name.strip(), cwd, root)
                if rel is None:
                    outside.append(_full(name.strip(), cwd))
                elif rel and rel not in seen:
                    seen.add(rel)
                    paths.append(rel)
        writes = tuple(paths)
        parts = [data.get(k) for k in _TEXT_FIELDS]
        edits = data.get("edits")
        if isinstance(edits, list):
            for e in edits[:64]:
                if isinstance(e, dict):
                    parts += [e.get("new_string"), e.get("old_string")]
        text = "\n".join(p for p in parts if isinstance(p, str))[:TEXT_SCAN]
    command = data.get("command") if tool in SHELL_TOOLS else None
    if isinstance(command, list):  # an argv (`["/bin/bash", "-lc", "..."]`): one line the shell reads back as it
        command = " ".join("'" + str(w).replace("'", "'\\''") + "'" for w in command[:4096])
    command = command if isinstance(command, str) else ""
    where = data.get("dir_path")  # Gemini's run_shell_command may run in a folder of the project
    if isinstance(where, str) and where.strip() and len(where) <= 4096:
        cwd = os.path.join(cwd, where.strip())
    if command:
        from ..base.shell import parse
        from ..base.shellpaths import writes as shell_writes

        line = parse(command)
        found = shell_writes(line, lambda p: os.path.isdir(os.path.join(cwd, p)), root) + _patched(line, cwd)
        rels: list[str] = []
        for p in found[:FILES_MAX]:
            if len(p) > 4096:
                continue
            if p.startswith("~"):
                p = os.path.expanduser(p)
            rel = _rel_or_none(p, cwd, root)
            if rel is None:
                outside.append(_full(p, cwd))
            else:
                rels.append(rel)
        writes = tuple(dict.fromkeys(rels))
        paths = list(writes[:PATHS_MAX])  # a shell line that changes files is an edit of them (SPEC §4.11)
        from ..base.shellpaths import reads as shell_reads

        here = cwd
        found_reads = shell_reads(line, lambda p: os.path.isfile(p if os.path.isabs(p) else os.path.join(here, p)),
                                  root)
        read = [r for r in _rels(list(found_reads), cwd, root) if r not in writes]  # and one that reads them, a read
    return Target(tool, tuple(paths[:PATHS_MAX]), command, text, line, writes, root, tuple(outside[:FILES_MAX]),
                  tuple(read))


PATCH_READ_LIMIT = 1024 * 1024


def _patched(line: "Any", cwd: str) -> "tuple[str, ...]":
    """The files named by the patch files a shell line applies (`git apply x.patch`): each read up to 1 MB, at most
    8 of them; one that cannot be read names nothing."""
    from ..base.shellpaths import patch_files, patch_inputs

    out: list[str] = []
    for name in patch_inputs(line)[:8]:
        try:
            with open(_full(name, cwd), "rb") as fh:
                out += patch_files(fh.read(PATCH_READ_LIMIT).decode("utf-8", "replace"))
        except OSError:
            continue
    return tuple(out)


def _full(path: str, cwd: str) -> str:
    path = path.replace("\\", "/")
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def matches(anchor: str, target: Target) -> bool:
    """Whether one stored anchor (`kind:value`) governs the target (hooks/guardcheck.py's, loaded only when a map
    has entries to match)."""
    from .guardcheck import matches as anchor_matches

    if target.read and anchor.startswith("path:"):  # the files it reads are targets too (never for a guard)
        target = target._replace(paths=target.paths + target.read)
    return anchor_matches(anchor, target)


def guard_decision(entry: dict, target: Target) -> str:  # type: ignore[type-arg]
    """`ask` or `deny` when the entry's guard stops this action, else "" (hooks/guardcheck.py)."""
    from .guardcheck import stop

    return stop(entry, target)[0]


def block(entry: dict, decision: str = "") -> str:  # type: ignore[type-arg]
    """What the model reads of a record before the action: its type, title (and flag), id and the start of it."""
    flag = f" {entry['flag']}" if entry.get("flag") else ""
    if entry.get("confidence") == "inferred":  # a capture stub or an unconfirmed extraction: said as such
        flag = " (unconfirmed pattern)" + flag
    elif entry.get("origin"):  # a rule file's record: that file, not the team file, says it
        flag = f" ({entry['origin']})" + flag
    elif entry.get("confidence") == "team":
        flag = " (from the team file)" + flag
    head = f"[{entry.get('type') or 'record'}] {entry.get('title') or ''}{flag} (id {entry['id']})"
    if decision:
        head = f"GUARD ({'denied' if decision == 'deny' else 'asks the user'}) " + head
    text = str(entry.get("text") or "")
    return f"{head}\n{text}" if text else head


HEADER = "agentctx: project memory about what this tool call touches (the whole record: ctx_get with its id):"


def budget_of(target: Target) -> int:
    """The tokens a call may receive: READ_BUDGET for a call that only reads files, else ACTION_BUDGET."""
    return READ_BUDGET if target.read and not (target.paths or target.writes) else ACTION_BUDGET


def select(entries: "list[dict]", target: Target, agent: str, delivered: "set[str] | frozenset[str]",  # type: ignore[type-arg]
           cwd_rel: str = "", budget: "int | None" = None) -> "list[Pick]":
    """The records to deliver before this action, within `budget` tokens (header included; default
    `budget_of(target)`): every guard the action trips, then the entries whose anchors match, in map order, skipping
    those already delivered this session and those the agent loads itself in a session started at `cwd_rel`
    (`outside.native.entry_skips`; for a shell line, only those it has from the start). Pure: the hook and
    bench/action.py call exactly this."""
    from ..outside.native import entry_skips
    from .guardcheck import stop

    guarded: list[Pick] = []
    plain: list[Pick] = []
    seen: set[str] = set()
    for e in entries:
        rid = e.get("id") if isinstance(e, dict) else None
        if not isinstance(rid, str) or rid in seen:
            continue
        seen.add(rid)
        decision, why = stop(e, target) if e.get("guard") else ("", "")
        if decision:
            guarded.append(Pick(e, "guard", decision, block(e, decision), why))
            continue
        if rid in delivered or entry_skips(e, agent, cwd_rel, bool(target.command)):
            continue
        anchor = next((a for a in e.get("anchors") or () if isinstance(a, str) and matches(a, target)), "")
        if anchor:
            plain.append(Pick(e, anchor, "", block(e)))
    cap = (budget_of(target) if budget is None else budget) * 4 - len(HEADER)
    out: list[Pick] = []
    for pick in guarded + plain:
        room = cap - sum(len(p.block) + 2 for p in out) - 2
        if len(pick.block) > room:
            if not pick.decision or room < 40:
                continue
            pick = pick._replace(block=pick.block[: room - 2].rstrip() + " …")  # a guard is never left out
        out.append(pick)
    return out


def render(picks: "list[Pick]") -> str:
    return "\n\n".join([HEADER] + [p.block for p in picks]) if picks else ""


def candidates(data: object, target: Target) -> "list[dict]":  # type: ignore[type-arg]
    """The entries of an anchor map that may match the target: those in the buckets its keys name."""
    from ..base.anchors import target_keys

    if not isinstance(data, dict):
        return []
    entries = data.get("entries")
    index = data.get("index")
    if not isinstance(entries, list) or not entries:
        return []
    if not isinstance(index, dict):
        return [e for e in entries if isinstance(e, dict)]
    # Every guard is checked (they are few, and first in the map): a guard may stop what its buckets cannot name (a
    # line not read in full, a folder above its path, a shell glob, a symlinked folder, an expansion).
    positions = {i for i, e in enumerate(entries) if isinstance(e, dict) and e.get("guard")}
    commands = [c.words for c in target.shell().commands] if target.command else []
    for key in target_keys(tuple(target.writes or target.paths) + target.read, commands, target.tool,
                           bool(target.text)):
        found = index.get(key)
        if isinstance(found, list):
            positions.update(i for i in found if isinstance(i, int))
    return [entries[i] for i in sorted(positions) if 0 <= i < len(entries) and isinstance(entries[i], dict)]


def action_key(payload: "Payload", target: Target) -> str:
    """What ties the post-action hook's call to this one: the agent's tool-use id, else the target itself."""
    from ..base.ids import sha256_hex

    raw = payload.tool_use_id or "\0".join((target.tool, *target.paths, target.command[:COMMAND_KEY]))
    return sha256_hex(raw)[:16]


def _project(cwd: str) -> "tuple[str, str] | None":
    """(project id, repository root) of the working directory, from the root cache when it has them."""
    from ..base.roots import cached_id_of_root, git_root

    root = git_root(cwd)
    pid = cached_id_of_root(root) if root else None
    if pid is not None and root is not None:
        return pid, root
    from ..base.project import detect

    project = detect(cwd)
    return project.id, (getattr(project, "root_dir", "") or root or cwd)


def _read_map(project_id: str) -> object:
    from ..base import jsonfast, paths

    try:
        fd = os.open(paths.anchor_map_file(project_id), os.O_RDONLY)
    except OSError:
        return None  # no anchored record in this project: the common case, one failed open
    try:
        raw = os.read(fd, MAP_READ_LIMIT)
    finally:
        os.close(fd)
    try:
        return jsonfast.loads(raw)
    except ValueError:
        return None


def notes(session_id: str) -> "list[dict]":  # type: ignore[type-arg]
    """The session's notes, one row a line (what was delivered before which call; unreadable: none)."""
    from ..base import paths
    from ..base.safeio import jsonl_tail

    if not session_id:
        return []
    return jsonl_tail(paths.actions_file(session_id), NOTES_READ_LIMIT)


def delivered_ids(session_id: str) -> "set[str]":
    """Ids already delivered before an action this session, a guard's that stopped one included: its record was
    quoted then, and is not delivered again as a plain delivery (the guard itself still stops every action it
    names). From the session's notes; unreadable: none."""
    return _delivered(notes(session_id))


def _delivered(rows: "list[dict]") -> "set[str]":  # type: ignore[type-arg]
    out: set[str] = set()
    for row in rows:
        out.update(i for i in row.get("ids") or () if isinstance(i, str))
    return out


def pre_tool_use(payload: "Payload") -> "dict[str, object] | None":
    if not payload.tool_name:
        return None
    from ..base import paths

    if not os.path.exists(paths.db_file()):
        return None
    found = _project(payload.cwd)
    if found is None:
        return None
    project_id, root = found
    from .session import take_later

    # The always-apply rules the session's digest had no room for: whole, once, at its first prompt or action that
    # reaches the model (Gemini drops what comes before a tool AfterTool does not run for: left for the next call).
    carried = payload.agent != "gemini" or _gemini_carries(payload.tool_name)
    later, later_ids = take_later(payload.session_id) if payload.session_id and carried else ("", [])
    data = _read_map(project_id)
    if data is None and not later:
        return None  # no anchored record in this project: the common case
    target = target_of(payload.tool_name, payload.tool_input, payload.cwd, root)
    if data is not None and (target.outside or "agentctx" in target.command or "/guard" in target.command or any(
            w[:1] == "." or "/." in w for w in target.writes)):  # what could touch what enforces the guards
        stopped = _tamper(data, target, project_id, payload.cwd)
        if stopped is not None:
            if later:  # the rules taken for this call still go out, before the stop
                specific = stopped["hookSpecificOutput"]
                specific["additionalContext"] = later + "\n\n" + str(specific["additionalContext"])  # type: ignore[index]
                _note(payload, project_id, target, [], action_key(payload, target), later, later_ids)
            return stopped
    pool = candidates(data, target) if data is not None else []
    rows = notes(payload.session_id)
    cwd_rel = _rel(payload.cwd, payload.cwd, root) if payload.cwd else ""
    picks = select(pool, target, payload.agent, _delivered(rows), cwd_rel) if pool else []
    if picks and not carried:  # no AfterTool for this tool: a delivery would never reach the model
        picks = [p for p in picks if p.decision]
    retried = _retry(payload, project_id, rows) if any("stop" in r for r in rows) else False
    if not picks and not later:
        return None
    from ..base import control

    off, _notify = control.check(project_id, payload.cwd)
    if off is not None:  # turned off for this project: nothing delivered, nothing enforced
        return None
    text = "\n\n".join(t for t in (later, render(picks)) if t)
    key = action_key(payload, target)
    specific: dict[str, object] = {"hookEventName": "PreToolUse", "additionalContext": text}
    stop = next((p for p in picks if p.decision == "deny"), None) or next((p for p in picks if p.decision), None)
    firsts = [] if stop or retried or not (target.paths or target.writes) else [
        p for p in picks if not p.decision and p.entry.get("before")]
    if firsts:  # the rule must come first: this one call is denied with it, the same call again goes through
        picks = select(pool, target, payload.agent, _delivered(rows), cwd_rel, budget=READ_BUDGET)  # as a read's
        text = "\n\n".join(t for t in (later, render(picks)) if t)
        specific["additionalContext"] = text
        specific["permissionDecision"] = "deny"
        specific["permissionDecisionReason"] = first_reason(text)
        _note(payload, project_id, target, picks, key, text, later_ids, stop_key=input_key(payload))
    else:
        _note(payload, project_id, target, picks, key, text, later_ids)
    if stop is not None:
        specific["permissionDecision"] = stop.decision
        specific["permissionDecisionReason"] = reason(stop)
    return {"hookSpecificOutput": specific}


def _gemini_carries(tool: str) -> bool:
    """Whether Gemini shows the model what this hook returns for `tool`: only from AfterTool, which runs for CARRIED."""
    from ..agents.gemini import CARRIED

    return tool in CARRIED


FIRST = ("agentctx stopped this call once: a project rule governs it and must come before it. Read it, then make "
         "the same call again (unchanged, it goes through) or change it to follow the rule.")


def first_reason(text: str) -> str:
    return f"{FIRST}\n\n{text}"


def input_key(payload: "Payload") -> str:
    """What makes a retry the same call: the tool and its whole input, hashed."""
    from ..base import jsonfast
    from ..base.ids import sha256_hex

    try:
        raw = jsonfast.dumps(payload.tool_input)
    except (TypeError, ValueError):
        raw = repr(payload.tool_input)
    return sha256_hex(payload.tool_name + "\0" + raw)[:16]


def _retry(payload: "Payload", project_id: str, rows: "list[dict]") -> bool:  # type: ignore[type-arg]
    """Whether this call repeats one stopped once this session (its note, by input key): it goes through, and the
    retry is noted once (ledger row `PreToolUse/retry`)."""
    from ..base import jsonfast, paths
    from . import record_pending

    ikey = input_key(payload)
    stopped = next((r for r in rows if r.get("stop") == ikey), None)
    if stopped is None:
        return False
    if not any(r.get("retried") == ikey for r in rows):
        ids = [i for i in stopped.get("ids") or () if isinstance(i, str)]
        record_pending({"event": "PreToolUse/retry", "session_id": payload.session_id, "project_id": project_id,
                        "prompt_hash": stopped.get("key") or "", "record_ids": ids, "mark": True,
                        "agent": payload.agent})
        _append(paths.actions_file(payload.session_id), (jsonfast.dumps({"retried": ikey}) + "\n").encode("utf-8"))
    return True


def _tamper(data: object, target: Target, project_id: str, cwd: str) -> "dict[str, object] | None":
    """While the project has a guard, an action that would change or switch off what enforces it (guardcheck.tamper)
    is asked of the user: the agent running `agentctx guard ID --off` is not the user lifting the guard."""
    from ..base import control, paths
    from .guardcheck import tamper

    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not any(isinstance(e, dict) and e.get("guard") for e in entries):
        return None
    why = tamper(target, paths.home_dir())
    if not why:
        return None
    if control.check(project_id, cwd)[0] is not None:
        return None
    text = (f"agentctx: this action was stopped because {why}: only the user changes or lifts a guard, or turns "
            "agentctx off (run it yourself, outside the agent, if you mean it)")
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text,
                                   "permissionDecision": "ask", "permissionDecisionReason": text}}


def reason(pick: Pick) -> str:
    """The guard's reason, shown to the user (ask) or the model (deny): the record quoted, and how to lift it."""
    from ..base import guards

    e = pick.entry
    rule = guards.describe(str(e.get("guard") or ""))
    text = str(e.get("text") or "")
    why = f" ({pick.why})" if pick.why else ""
    return (f"agentctx guard {e['id']} ({rule}){why}: \"{e.get('title') or ''}\"" + (f" — {text}" if text else "")
            + f" [lift it: agentctx guard {e['id']} --off]")


def _note(payload: "Payload", project_id: str, target: Target, picks: "list[Pick]", key: str, text: str,
          later: "list[str] | None" = None, stop_key: str = "") -> None:
    """The delivery, three ways, none of them the database: the ledger row (pending file), the session's notes
    (the post-action hook and once-per-session delivery read them) and the decisions log `agentctx why` reads."""
    from ..base import jsonfast, paths, tokens
    from ..base.ids import now_iso
    from . import record_pending

    ids = [p.entry["id"] for p in picks]
    decisions = [p.decision for p in picks]
    n_tokens = tokens.estimate(text)
    shown = (later or []) + [i for i in ids if i not in (later or [])]  # the ledger: every record shown
    record_pending({"event": "PreToolUse", "session_id": payload.session_id, "project_id": project_id,
                    "prompt_hash": key, "record_ids": shown, "scores": [1.0] * len(shown), "tokens": n_tokens,
                    "agent": payload.agent, "guards": [i for i, d in zip(ids, decisions) if d],
                    **({"stops": [i for i, d in zip(ids, decisions) if not d]} if stop_key else {})})
    what = {"tool": target.tool, "paths": list((target.paths + target.read)[:8])}
    if payload.session_id:
        note = {"key": key, "ids": ids, "decisions": decisions, "tool": target.tool,
                "guards": {p.entry["id"]: [p.entry.get("guard") or "", p.entry.get("anchors") or []] for p in picks
                           if p.entry.get("guard")}}
        if stop_key:  # denied once with the records as the reason: the same input again goes through
            note["stop"] = stop_key
        elif payload.agent == "gemini":  # its BeforeTool takes no context: AfterTool delivers it (docs/agents.md)
            note["carry"] = text
        _append(paths.actions_file(payload.session_id), (jsonfast.dumps(note) + "\n").encode("utf-8"))
    row = {"at": now_iso(), "session_id": payload.session_id, "project_id": project_id, "key": key,
           "agent": payload.agent, **what, "tokens": n_tokens,
           "picks": [{"id": p.entry["id"], "anchor": p.anchor, "decision": p.decision or ("first" if stop_key else "")}
                     for p in picks]}
    path = paths.action_decisions_file()
    line = (jsonfast.dumps(row) + "\n").encode("utf-8")
    if not _append(path, line):
        paths.ensure_private_dir_str(os.path.dirname(path))
        _append(path, line)


def _append(path: str, data: bytes) -> bool:
    """One O_APPEND write, 0600 (base.safeio.append_bytes); False when it failed."""
    from ..base.safeio import append_bytes

    return append_bytes(path, data)
