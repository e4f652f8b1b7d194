"""Claude Code integration commands: uninstall, consolidate, profile, why."""

from __future__ import annotations

import argparse

from ..base import paths
from ..base.errors import UsageError
from ..claude import setup
from .context import Context
from .terminal import printable
from .parser import add_json


def cmd_uninstall(args: argparse.Namespace, ctx: Context) -> int:
    if args.data and not args.force and not ctx.confirm(f"Delete every agentctx record and {paths.home()}?"):
        raise UsageError("not_confirmed", action="uninstall --data")
    from . import agents

    done = []
    for agent in agents.chosen(args.agent) if args.agent else agents.NAMES:  # default: every agent
        done += agents.unwire(agent, ctx, args) or ([f"nothing of agentctx was registered with "
                                                     f"{agents.LABELS[agent]}"] if args.agent else [])
    from ..base import userfiles

    done += [f"removed {d} (agentctx created it; it is empty now)" for d in userfiles.remove_new_dirs()]
    if args.data:
        ctx.close()
        done.append(setup.remove_data())
    ctx.emit({"done": done}) if ctx.json else [ctx.out(line) for line in done]
    return 0


def cmd_consolidate(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import consolidate

    if args.transcript and not args.session_id:
        raise UsageError("invalid_field", field="--transcript", problem="needs --session-id")
    if args.close_stale:
        report: dict[str, object] = {"stale_sessions_closed": consolidate.close_stale_sessions()}
    else:
        report = consolidate.run(ctx.project, session_id=args.session_id, transcript=args.transcript, rebuild=args.rebuild)
    if ctx.json:
        ctx.emit(report)
    else:
        for line in consolidate.describe(report):
            ctx.out(line)
    return 0


def cmd_profile(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import digest, profile
    from ..store import records

    if args.action in ("export", "import"):  # the portable developer profile (cli/team.py)
        from .team import cmd_profile_transfer

        return cmd_profile_transfer(args, ctx)
    if args.action in ("edit", "clear"):
        return _profile_change(args, ctx)
    if args.value is not None or (args.key is not None):
        raise UsageError("invalid_field", field=f"profile {args.action}", problem="takes no KEY or VALUE")
    if args.action == "refresh":
        status = profile.refresh(ctx.conn, ctx.project, keep_edits=not args.force)
        digest.refresh(ctx.conn, ctx.project.id, project=ctx.project)
        if ctx.json:
            ctx.emit(status)
        else:
            for title, state in status.items():
                ctx.out(f"{title}: {state}")
            if not status:
                ctx.out("no manifests recognised")
        return 0
    current = records.current(ctx.conn, ctx.project.id, types=["profile"], own_only=True)
    if ctx.json:
        ctx.emit([r.to_dict() for r in current])
    else:
        for r in current:
            ctx.out(f"{r.title}  ({r.id})\n{r.body}\n")
        if not current:
            ctx.out("no profile yet: run `agentctx profile refresh`")
    return 0


def _profile_change(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import profile

    if args.action == "edit":
        if args.key is None or args.value is None:
            raise UsageError("invalid_field", field="profile edit", problem="needs KEY and VALUE")
        import sys

        value = sys.stdin.read() if args.value == "-" else args.value
        record = profile.edit(ctx.conn, ctx.project, args.key, value)
        if ctx.json:
            ctx.emit(record.to_dict())
        else:
            ctx.out(f"{record.title}  ({record.id})\n{record.body}")
        return 0
    if args.key is not None:
        raise UsageError("invalid_field", field="profile clear", problem="takes no KEY")
    question = f"Delete the profile records of {ctx.project.name} (stack, commands, entry points, with history)?"
    if not args.force and not ctx.confirm(question):
        raise UsageError("not_confirmed", action="profile clear")
    removed = profile.clear(ctx.conn, ctx.project)
    if ctx.json:
        ctx.emit({"removed": removed})
    else:
        ctx.out(f"removed {removed} profile records (`agentctx profile refresh` detects them again)")
    return 0


def cmd_why(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import pending
    from ..store import records, sessions

    pending.drain_pending(ctx.conn)  # the hooks append ledger rows to a file; bring them in first
    rows = sessions.injections(ctx.conn, ctx.project.id, session_id=args.session, limit=args.limit)
    from ..agents import LABELS
    from ..retrieval.explain import describe, plain, recent

    prompts = recent(ctx.conn, ctx.project.id, session_id=args.session, limit=args.limit)
    agents = sessions.agents_of(ctx.conn, [i.session_id for i in rows] + [p.get("session_id") for p in prompts])

    def session_label(sid: object) -> str:  # "s1 (Codex CLI)": which agent's session it was
        agent = agents.get(sid) if isinstance(sid, str) else None
        return f"{sid or '-'}" + (f" ({LABELS.get(agent, agent)})" if agent else "")
    from ..memory.anchormap import action_decisions

    acted = action_decisions() if any(i.event == "PreToolUse" for i in rows) else {}
    out = []
    for inj in rows:
        items = []
        for i, rid in enumerate(inj.record_ids):
            rec = records.get(ctx.conn, rid)
            items.append({"id": rid, "score": inj.scores[i] if i < len(inj.scores) else None,
                          "type": rec.type if rec else None, "title": rec.title if rec else "(deleted)",
                          "current": bool(rec and rec.is_current)})
        row: dict[str, object] = {"at": inj.created_at, "session_id": inj.session_id,
                                  "agent": agents.get(inj.session_id or ""), "event": inj.event,
                                  "prompt_hash": inj.prompt_hash, "tokens": inj.tokens, "records": items}
        action = acted.get((inj.session_id or "", inj.prompt_hash or "")) if inj.event == "PreToolUse" else None
        if action:  # before a tool call: which action, and the anchor (or guard) each record matched
            why = {p.get("id"): p for p in action.get("picks") or () if isinstance(p, dict)}  # type: ignore[union-attr]
            row["action"] = {"tool": action.get("tool"), "paths": action.get("paths")}
            for item in items:
                pick = why.get(item["id"]) or {}
                item["anchor"], item["decision"] = pick.get("anchor"), pick.get("decision")
        out.append(row)
    for row in prompts:
        row["agent"] = agents.get(row.get("session_id") or "")
    if ctx.json:
        ctx.emit({"injections": out, "prompts": prompts})
        return 0
    if not out:
        ctx.out("nothing injected yet" + (f" in session {args.session}" if args.session else ""))
    for row in out:
        label = "prompt" if row["event"] in ("UserPromptSubmit", "SessionStart") else "action"
        ctx.out(f"{row['at']}  {row['event']}  session {session_label(row['session_id'])}  {row['tokens']} tokens"
                + (f"  {label} {row['prompt_hash']}" if row["prompt_hash"] else ""))
        act = row.get("action")
        if isinstance(act, dict):
            ctx.out(f"    before {act.get('tool')}" + (f" of {', '.join(act.get('paths') or ())}" if act.get("paths")
                                                     else ""))
        for item in row["records"]:
            score = "" if item["score"] is None else f"{item['score']:.3f}"
            reason = (f"  guard: {item['decision']}" if item.get("decision") else
                      f"  matched {item['anchor']}" if item.get("anchor") else "")
            ctx.out(f"    {score:>8}  [{item['type']}] {item['title']}  {item['id']}{reason}")
    if prompts:
        ctx.out("\nrecent prompts: what was injected, what nearly was, and why"
                + ("" if args.verbose else " (--verbose: the numbers)"))
    for row in prompts:
        start = f"  \"{printable(str(row['prompt_start']))}\"" if row.get("prompt_start") else ""
        if args.verbose:
            ctx.out(f"{row.get('at')}  session {session_label(row.get('session_id'))}  prompt {row.get('prompt_hash')}"
                    f"{start} ({row.get('prompt_chars')} chars, {row.get('prompt_class')}; threshold "
                    f"{row.get('threshold')})")
        else:
            ctx.out(f"{row.get('at')}{start or '  a prompt'} ({row.get('prompt_chars')} characters)")
        for cand in row.get("candidates") or ():
            threshold = row.get("threshold")
            ctx.out(describe(cand) if args.verbose else
                    plain(cand, threshold if isinstance(threshold, (int, float)) else None))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("uninstall", help="remove agentctx from every agent (restoring your settings files)")
    p.add_argument("--agent", action="append", choices=("claude", "codex", "gemini", "copilot", "all"),
                   help="only this agent (repeatable; default: every one)")
    p.add_argument("--project", action="store_true", help="also clean this project's .claude/settings.json")
    p.add_argument("--data", action="store_true", help="also delete the store and every record (asks first)")
    p.add_argument("--force", action="store_true", help="do not ask")
    add_json(p)
    p.set_defaults(handler=cmd_uninstall)

    p = sub.add_parser("consolidate", help="lifecycle, decay, duplicates and the next SessionStart digest")
    p.add_argument("--rebuild", action="store_true", help="recompute all derived data (scores, index, every digest)")
    p.add_argument("--session-id", help="wrap up this session first (final extraction, file links, handover)")
    p.add_argument("--transcript", help="the session's transcript (JSONL)")
    p.add_argument("--close-stale", action="store_true",
                   help="only close sessions that ended without SessionEnd (what SessionStart spawns)")
    add_json(p)
    p.set_defaults(handler=cmd_consolidate)

    p = sub.add_parser("profile", help="the project profile: show, refresh (detect), edit KEY VALUE, clear; "
                                       "export/import [PATH] the global preferences",
                       epilog="KEY is stack, commands or entry-points; VALUE items are separated by ';' or newlines. "
                              "`edit` writes an explicit record superseding that key; `refresh` detects again and "
                              "replaces a key whose detected value differs, except a key edited by hand (--force). `export`/`import` take an optional PATH "
                              "(a directory or file; default ~/.agentctx/profile/preferences.md).")
    p.add_argument("action", nargs="?", choices=("show", "refresh", "edit", "clear", "export", "import"),
                   default="show")
    p.add_argument("key", nargs="?", help="edit: stack, commands or entry-points; export/import: PATH")
    p.add_argument("value", nargs="?", help="edit: the new value ('-' reads stdin)")
    p.add_argument("--force", action="store_true",
                   help="clear: do not ask; refresh: replace keys edited by hand too; export: overwrite changes in "
                        "the file that were not imported")
    p.add_argument("--apply-removals", action="store_true", help="import: retire preferences removed from the file")
    add_json(p)
    p.set_defaults(handler=cmd_profile)

    p = sub.add_parser("why", help="what was injected into the agent's context, and why (and what was not)")
    p.add_argument("--session", help="only this session")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--verbose", action="store_true", help="the gate's probabilities, thresholds and features")
    add_json(p)
    p.set_defaults(handler=cmd_why)
