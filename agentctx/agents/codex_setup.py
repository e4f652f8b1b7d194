"""Codex CLI's settings: our hooks in ~/.codex/hooks.json, trusted through `codex app-server`; our MCP server in
~/.codex/config.toml; the hooks feature flag; what `doctor` checks; byte-exact undo (vendor-notes/codex-cli.md)."""

from __future__ import annotations

import copy
import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any, Callable

from ..base import paths, userfiles
from ..base.errors import ConfigError
from . import codex, files, tomltext
from .appserver import AppServer

KIND = "Codex CLI hooks file"
MCP_NAME = "agentctx"
MCP_PATH = ("mcp_servers", MCP_NAME)
MCP_KEY = "mcp_servers.agentctx"  # what userfiles.owned remembers we wrote
# Our handlers: `… hook <event> --agent codex`, whatever starts agentctx.
_OURS = re.compile(r"(?:^|\s)hook\s+[a-z-]+\s+--agent\s+codex\s*$")
FLAGS = ("hooks", "codex_hooks")  # [features] keys that switch every hook off when false (fact 8)


def hooks_file() -> Path:
    return paths.codex_home() / "hooks.json"


def config_file() -> Path:
    return paths.codex_home() / "config.toml"


def binary() -> str | None:
    """The `codex` on PATH, if any (trust goes through it)."""
    return shutil.which("codex")


def detected() -> bool:
    """Codex CLI is installed: on PATH, or its user directory exists (and is not one agentctx created)."""
    home = paths.codex_home()
    return binary() is not None or (home.is_dir() and not userfiles.created_by_us(home))


def command(argv: tuple[str, ...] | list[str], event: str) -> str:
    return " ".join(shlex.quote(a) for a in (*argv, "hook", event, "--agent", codex.NAME))


def is_ours(handler: Any) -> bool:
    return isinstance(handler, dict) and isinstance(handler.get("command"), str) and bool(_OURS.search(handler["command"]))


def _snake(event: str) -> str:
    return "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(event))


# --- hooks.json ------------------------------------------------------------------------------------------------

def _group(event: str, argv: tuple[str, ...]) -> dict[str, Any]:
    neutral, matcher, timeout = codex.EVENTS[event]
    group: dict[str, Any] = {"matcher": matcher} if matcher else {}
    group["hooks"] = [{"type": "command", "command": command(argv, neutral), "timeout": timeout}]
    return group


def _strip(groups: list[Any]) -> list[Any]:
    """The event's groups without our handlers; the user's handlers and matchers stay where they were."""
    kept = []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(handlers, list) and any(is_ours(h) for h in handlers):
            rest = [h for h in handlers if not is_ours(h)]
            if rest:
                kept.append({**group, "hooks": rest})
        else:
            kept.append(group)
    return kept


def _table(data: dict[str, Any]) -> dict[str, Any]:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError("file_invalid", path=str(hooks_file()), kind=KIND, detail='"hooks" is not an object')
    for event in codex.EVENTS:
        if event in hooks and not isinstance(hooks[event], list):
            raise ConfigError("file_invalid", path=str(hooks_file()), kind=KIND, detail=f'"hooks.{event}" is not an array')
    return hooks


def install_hooks(argv: tuple[str, ...]) -> bool:
    """Our six hooks in ~/.codex/hooks.json (user scope: no project trust needed, fact 7); True when it changed."""
    def change(data: dict[str, Any]) -> None:
        hooks = _table(data)
        for event in codex.EVENTS:
            groups = hooks.get(event, [])
            desired = _group(event, argv)
            ours = [g for g in groups if isinstance(g, dict) and any(is_ours(h) for h in g.get("hooks") or [])]
            if len(ours) == 1 and ours[0] == desired:
                continue  # exactly right already: its position (and so its trust key) stays
            hooks[event] = _strip(groups) + [desired]
    return files.json_edit(hooks_file(), KIND, change)


def _load_hooks() -> dict[str, Any]:
    try:
        return files.load_json(hooks_file().read_text(encoding="utf-8"), hooks_file(), KIND)
    except (OSError, ConfigError):
        return {}


def registered() -> dict[str, str]:
    """Codex event -> our command registered for it (what hooks.json holds now)."""
    hooks = _load_hooks().get("hooks")
    out: dict[str, str] = {}
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            for handler in (group.get("hooks") or []) if isinstance(group, dict) else ():
                if is_ours(handler):
                    out[event] = handler["command"]
    return out


def our_keys() -> list[str]:
    """The trust keys Codex gives our handlers (`<file>:<event_snake>:<group>:<handler>`, fact 10)."""
    hooks = _load_hooks().get("hooks")
    keys = []
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            for h, handler in enumerate((group.get("hooks") or []) if isinstance(group, dict) else ()):
                if is_ours(handler):
                    keys.append(f"{hooks_file()}:{_snake(event)}:{g}:{h}")
    return keys


def remove_hooks() -> bool:
    def change(data: dict[str, Any]) -> None:
        hooks = data.get("hooks")
        if not isinstance(hooks, dict):
            return
        emptied = False
        for event in list(hooks):
            if isinstance(hooks[event], list) and hooks[event]:
                hooks[event] = _strip(hooks[event])
                if not hooks[event]:
                    del hooks[event]
                    emptied = True
        if not hooks and emptied:
            del data["hooks"]
    return files.json_restore(hooks_file(), KIND, change, ("hooks",))


# --- config.toml: the MCP server and trust -----------------------------------------------------------------------

def mcp_block(argv: tuple[str, ...]) -> str:
    """`[mcp_servers.agentctx]`: Codex starts a server with HOME, LANG and PATH only, so AGENTCTX_HOME is passed on
    by name (fact 21)."""
    return (f"[mcp_servers.{MCP_NAME}]\ncommand = {tomltext.string(argv[0])}\n"
            f"args = [{', '.join(tomltext.string(a) for a in (*argv[1:], 'mcp'))}]\n"
            'env_vars = ["AGENTCTX_HOME"]\n')


def _parse(text: str) -> dict[str, Any]:
    try:
        return tomltext.loads(text)
    except ValueError as exc:
        raise ConfigError("file_invalid", path=str(config_file()), kind="TOML", detail=str(exc)[:200]) from None


def _entry(data: dict[str, Any]) -> Any:
    servers = data.get("mcp_servers")
    return servers.get(MCP_NAME) if isinstance(servers, dict) else None


def mcp_is_ours(entry: Any) -> bool:
    """`[mcp_servers.agentctx]` is ours when we wrote it and it still holds what we wrote; `codex mcp add agentctx`
    makes one of the user's own (it cannot write `env_vars`, our mark before agentctx remembered what it wrote)."""
    return isinstance(entry, dict) and userfiles.entry_is_ours(
        config_file(), MCP_KEY, entry, our_shape=lambda e: e.get("env_vars") == ["AGENTCTX_HOME"],
        had_entry=lambda text: _entry(tomltext.loads(text)) is not None)


def _checked(new: str, expected: dict[str, Any], what: str) -> str:
    """`new`, once it reads back as exactly `expected`: a file we could not read back is never written."""
    try:
        got = tomltext.loads(new)
    except ValueError as exc:
        raise ConfigError("edit_unverified", path=str(config_file()), what=what, detail=str(exc)[:160]) from None
    if got != expected:
        raise ConfigError("edit_unverified", path=str(config_file()), what=what,
                          detail="the result would hold other data than intended")
    return new


def _with_mcp(raw: str | None, argv: tuple[str, ...]) -> tuple[str, str]:
    """config.toml with our table (added at the end, or replaced where it stands) and what happened: added,
    updated, same, or theirs (a server of that name the user registered: left alone)."""
    text = raw or ""
    data = _parse(text)  # a file we cannot read as TOML is refused, never rewritten
    block = mcp_block(argv)
    desired = tomltext.loads(block)["mcp_servers"][MCP_NAME]
    current = _entry(data)
    if current == desired:
        return text, "same"
    if current is not None and not mcp_is_ours(current):
        return text, "theirs"
    if current is None:
        rest = text if not text or text.endswith("\n") else text + "\n"
        new, state = rest + ("\n" if rest.strip() else "") + block, "added"
    else:
        parts = tomltext.chunks(text)
        mine = [n for n, (p, _) in enumerate(parts) if p is not None and p[:2] == MCP_PATH]
        if [parts[n][0] for n in mine] != [MCP_PATH]:
            raise ConfigError("file_invalid", path=str(config_file()), kind="Codex config",
                              detail=f"mcp_servers.{MCP_NAME} is not a table of its own; remove it and run init again")
        lines = parts[mine[0]][1]
        blank = len(lines) - len("".join(lines).rstrip().splitlines()) if "".join(lines).strip() else 0
        notes = tomltext.comments(lines)  # the user's comments in or after our table stay, below it
        parts[mine[0]] = (MCP_PATH, block.splitlines(keepends=True) + (["\n"] + notes if notes else [])
                          + lines[len(lines) - blank:])  # its blank lines stay
        new, state = "".join("".join(chunk) for _, chunk in parts), "updated"
    expected = copy.deepcopy(data)
    servers = expected.setdefault("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ConfigError("file_invalid", path=str(config_file()), kind="Codex config",
                          detail="mcp_servers is not a table")
    servers[MCP_NAME] = desired
    return _checked(new, expected, f"adding [mcp_servers.{MCP_NAME}]"), state


def install_mcp(argv: tuple[str, ...]) -> str:
    """Register (or repair) `[mcp_servers.agentctx]` in config.toml, as a table of its own (at the end when new, in
    place when ours changed); a server of that name the user registered is left as it is. What happened: added,
    updated, same or theirs."""
    outcome = ["same"]

    def change(raw: str | None) -> str:
        text, outcome[0] = _with_mcp(raw, argv)
        if outcome[0] in ("added", "updated"):
            userfiles.own(config_file(), MCP_KEY, tomltext.loads(mcp_block(argv))["mcp_servers"][MCP_NAME])
        return text
    files.edit(config_file(), change)
    return outcome[0]


def check_config(argv: tuple[str, ...] | None) -> None:
    """Refuse now (ConfigError) what `install_mcp` (argv given) or `remove_config` (None) would refuse, before any
    other file is written."""
    raw = files.read(config_file())
    if raw is None:
        return
    if argv is not None:
        _with_mcp(raw, argv)
    else:
        _without_ours(raw, our_keys(), commit=False)


def _ours_in_config(keys: list[str], mcp: bool) -> Callable[[tuple[str, ...]], bool]:
    wanted = set(keys)
    return lambda p: (mcp and p[:2] == MCP_PATH) or (len(p) == 3 and p[:2] == ("hooks", "state") and p[2] in wanted)


def _without_ours(raw: str, keys: list[str], *, commit: bool) -> str:
    """config.toml without our MCP table (while it holds what we wrote), the trust entries of our hooks and a
    `[hooks.state]` they leave empty, with the flags init turned on false again; checked to read back as the same
    document less exactly those. A file with nothing of ours in it is not even parsed (uninstall never refuses a
    file it has nothing to take out of)."""
    flags = _flags_set()
    if "agentctx" not in raw and not any(k in raw for k in keys) and not flags:
        return raw
    data = _parse(raw)
    mcp = mcp_is_ours(_entry(data))
    text = tomltext.drop(raw, _ours_in_config(keys, mcp))
    leftover = set(tomltext.empty_tables(text)) - set(tomltext.empty_tables(raw))
    text = tomltext.drop(text, lambda p: p in leftover and p[:1] == ("hooks",))
    text = _set_flags(text, "false", flags)
    expected = copy.deepcopy(data)
    if mcp:
        del expected["mcp_servers"][MCP_NAME]
    state = (expected.get("hooks") or {}).get("state") if isinstance(expected.get("hooks"), dict) else None
    if isinstance(state, dict):
        for key in keys:
            state.pop(key, None)
    for key in flags:
        section = expected.get("features")
        name = key.split(".", 1)[1]
        if isinstance(section, dict) and section.get(name) is True:
            section[name] = False
    got = _checked_loose(text, expected)
    if commit:
        if mcp:
            userfiles.disown(config_file(), MCP_KEY)
        _flags_file().unlink(missing_ok=True)
    return got


def _checked_loose(new: str, expected: dict[str, Any]) -> str:
    """As `_checked`, empty tables aside (an emptied `[hooks.state]` or `[mcp_servers]` may go or stay)."""
    try:
        got = tomltext.loads(new)
    except ValueError as exc:
        raise ConfigError("edit_unverified", path=str(config_file()), what="removing agentctx's entries",
                          detail=str(exc)[:160]) from None
    if tomltext.pruned(got) != tomltext.pruned(expected):
        raise ConfigError("edit_unverified", path=str(config_file()), what="removing agentctx's entries",
                          detail="the result would hold other data than intended")
    return new


def remove_config(keys: list[str]) -> bool:
    """Our MCP table and the trust entries of our hooks out of config.toml (and a `[hooks.state]` they leave empty);
    the user's original bytes back when nothing else changed."""
    kept = lambda original, rest: userfiles.leaves_kept(_parse(original), _parse(rest))  # noqa: E731
    return files.restore(config_file(), lambda raw: _without_ours(raw, keys, commit=True), tomltext.same, kept)


def trust(cwd: str, argv: tuple[str, ...], *, codex_bin: str | None = None) -> str:
    """Trust exactly our hooks, as Codex's /hooks review would: `hooks/list` gives each hook's key and current hash,
    `config/batchWrite` stores them (fact 10; we never compute a hash). What happened, in words."""
    exe = codex_bin or binary()
    if exe is None:
        return ("Codex CLI is not on PATH, so agentctx could not trust its hooks: Codex skips untrusted hooks "
                "silently; open `codex` and review them with /hooks, or run `agentctx init --agent codex` again "
                "with `codex` on PATH")
    wanted = {command(argv, neutral) for neutral, _, _ in codex.EVENTS.values()}
    files.ensure_backup(config_file())  # Codex writes the trust into the user's config.toml: back it up first
    with AppServer(exe, cwd) as server:
        listed = [h for h in server.hooks(cwd) if h.get("command") in wanted and h.get("source") == "user"]
        todo = {h["key"]: {"trusted_hash": h["currentHash"]} for h in listed
                if h.get("trustStatus") in ("untrusted", "modified")}
        if todo:
            server.call("config/batchWrite", {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert",
                                                          "value": todo}]})
    if len(listed) < len(wanted):
        return f"Codex lists {len(listed)} of our {len(wanted)} hooks: run `agentctx doctor`"
    return (f"trusted our {len(todo)} Codex hooks (codex app-server: hooks/list, config/batchWrite)" if todo
            else "our Codex hooks were already trusted")


def trust_status(cwd: str, *, codex_bin: str | None = None) -> dict[str, str] | None:
    """Our command -> its trust status as Codex reports it (trusted, untrusted, modified, managed); None without
    `codex`."""
    exe = codex_bin or binary()
    if exe is None:
        return None
    with AppServer(exe, cwd) as server:
        return {h["command"]: str(h.get("trustStatus")) for h in server.hooks(cwd)
                if is_ours({"command": h.get("command")}) and h.get("source") == "user"}


# --- the hooks feature flag ------------------------------------------------------------------------------------

def disabled_flag() -> str | None:
    """`features.hooks` (or the deprecated `codex_hooks`) when it is false: then no hook runs at all."""
    try:
        data = _parse(config_file().read_text(encoding="utf-8"))
    except (OSError, ConfigError):
        return None
    features = data.get("features") if isinstance(data.get("features"), dict) else {}
    return next((f"features.{k}" for k in FLAGS if features.get(k) is False), None)


def _flag_line(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?m)^(\s*{re.escape(key)}\s*=\s*)(false|true)(\s*(?:#.*)?)$")


def _set_flags(text: str, value: str, keys: list[str]) -> str:
    """Each `[features]` KEY line set to `value` in place (the rest of the line, comments included, kept)."""
    out = []
    for path, lines in tomltext.chunks(text):
        chunk = "".join(lines)
        if path == ("features",):
            for key in keys:
                chunk = _flag_line(key.split(".", 1)[1]).sub(rf"\g<1>{value}\g<3>", chunk)
        out.append(chunk)
    return "".join(out)


def _flags_file() -> Path:
    return paths.state_dir() / "codex-flags.json"


def enable_hooks_flag() -> str:
    """Set the disabling flag to true (asked first, by the caller) and remember it for `uninstall`."""
    key = disabled_flag()
    if key is None:
        return "Codex hooks were already on"
    changed = files.edit(config_file(), lambda raw: _set_flags(raw or "", "true", [key]))
    if not changed or disabled_flag() is not None:
        raise ConfigError("file_invalid", path=str(config_file()), kind="Codex config",
                          detail=f"{key} = false is not a line of a [features] table; set it to true yourself")
    paths.ensure_private_dir(paths.state_dir())
    _flags_file().write_text(json.dumps([key]), encoding="utf-8")
    return f"set {key} = true in {config_file()} (it was false: no Codex hook ran)"


def _flags_set() -> list[str]:
    """The flags `init` turned on (uninstall sets them false again)."""
    try:
        return [k for k in json.loads(_flags_file().read_text(encoding="utf-8")) if isinstance(k, str)]
    except (OSError, ValueError, TypeError):
        return []


# --- doing it all ----------------------------------------------------------------------------------------------

_MCP_SAID = {"added": "registered MCP server `agentctx` in {}", "updated": "updated MCP server `agentctx` in {}",
             "same": "MCP server `agentctx` already registered in {}",
             "theirs": "MCP server `agentctx` in {} is one you registered yourself: left as it is"}


def check_hooks_file() -> None:
    """A hooks.json we cannot read is refused before any file is written."""
    raw = files.read(hooks_file())
    if raw is not None:
        files.load_json(raw, hooks_file(), KIND)


def wire(argv: tuple[str, ...], cwd: str, *, mcp: bool = True, trust_hooks: bool = True) -> list[str]:
    """Register the hooks and the MCP server, then trust the hooks; what was done, in words. Both files are checked
    first: when either step would refuse, nothing is written."""
    check_hooks_file()
    if mcp:
        check_config(argv)
    done = [("registered hooks in " if install_hooks(argv) else "hooks already registered in ") + str(hooks_file())]
    if mcp:
        done.append(_MCP_SAID[install_mcp(argv)].format(config_file()))
    if trust_hooks:
        try:
            done.append(trust(cwd, argv))
        except (OSError, RuntimeError) as exc:
            done.append(f"could not trust the hooks through `codex app-server` ({exc}): review them in `codex` "
                        "with /hooks (Codex skips untrusted hooks silently)")
    return done


def unwire() -> list[str]:
    check_hooks_file()
    check_config(None)
    keys = our_keys()
    done = []
    if remove_hooks():
        done.append(f"removed agentctx hooks from {hooks_file()}")
    if remove_config(keys):
        done.append(f"removed agentctx's entries from {config_file()}")
    for path in (hooks_file(), config_file()):
        left = files.backup_left(path)
        if left is not None:
            done.append(f"kept {left}: your file before agentctx, which holds something {path.name} no longer does")
    return done


def mcp_registered() -> bool:
    """`[mcp_servers.agentctx]` is in config.toml."""
    try:
        data = tomltext.loads(config_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    servers = data.get("mcp_servers")
    return isinstance(servers, dict) and isinstance(servers.get(MCP_NAME), dict)
