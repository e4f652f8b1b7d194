"""Which command Claude Code should run to start agentctx, and whether the registered commands run from a login PATH.

Claude Code runs hooks and MCP servers with the PATH of the session that started it (an IDE's or a desktop
launcher's may lack ~/.local/bin), not of the shell where `agentctx init` ran. So the user's own settings get an
absolute command: the `agentctx` a login PATH finds when it is this installation outside a virtualenv (a tool
install in ~/.local/bin, a system or user-site install; the tool manager keeps that path across upgrades), else
this interpreter with `-m agentctx` (an activated virtualenv, pyenv, conda). A project's shared settings
(`init --project`) get the bare `agentctx` in the first case, since every teammate's path differs."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The PATH a login shell gives on a stock system: Debian's and Ubuntu's ~/.profile add ~/.local/bin (where uv and
# pipx put tools) when it exists; /usr/local/bin holds system-wide pip installs.
LOGIN_PATH_DIRS = ("~/.local/bin", "/usr/local/bin", "/usr/bin", "/bin")
PROBE_TIMEOUT_S = 20.0
# Where `uvx` and `pipx run` keep throwaway environments: an absolute command into one breaks when it is cleaned.
TEMPORARY_ENVS = ("/uv/archive-v", "/uv/builds-v", "/.cache/pipx/")
# Our entry in Claude Code's `mcpServers`, and how our hook commands look (any launcher, then `hook <event>`).
MCP_NAME = "agentctx"
_OURS = re.compile(r"(?:^|[\s/\\\"'])agentctx['\"]?\s+hook\s+[a-z-]+\s*$|\s-m\s+agentctx\s+hook\s+[a-z-]+\s*$")


def is_ours(handler: Any) -> bool:
    """A settings hook handler whose command runs `agentctx hook <event>` (whatever starts agentctx)."""
    return isinstance(handler, dict) and isinstance(handler.get("command"), str) and bool(_OURS.search(handler["command"]))


def login_path() -> str:
    """The login PATH as a string, with ~ expanded for the current HOME."""
    return os.pathsep.join(os.path.expanduser(d) for d in LOGIN_PATH_DIRS)


def minimal_env() -> dict[str, str]:
    """What `env -i HOME=… PATH=<login PATH>` leaves: the environment the doctor runs registered commands in."""
    return {"HOME": os.path.expanduser("~"), "PATH": login_path()}


@dataclass(frozen=True)
class Choice:
    """The command prefix to register (`argv`), whether it is PATH-resolved, and why, in words for `init`."""

    argv: tuple[str, ...]
    on_path: bool
    reason: str


def _shebang(script: str) -> str | None:
    try:
        with open(script, "rb") as fh:
            first = fh.readline(512).decode("utf-8", "replace")
    except OSError:
        return None
    parts = first[2:].split() if first.startswith("#!") else []
    return parts[0] if parts else None


def in_virtualenv(directory: str) -> bool:
    """A script directory inside a virtualenv (`bin/` next to `pyvenv.cfg`), judged before symlinks are followed."""
    return (Path(directory).parent / "pyvenv.cfg").exists()


def is_this_installation(script: str) -> bool:
    """Whether `script` starts the agentctx this interpreter runs: same bin directory, or its shebang names us."""
    here = os.path.realpath(os.path.dirname(sys.executable))
    if os.path.realpath(os.path.dirname(os.path.realpath(script))) == here:
        return True  # the script itself, or a tool manager's symlink to it (uv, pipx)
    python = _shebang(os.path.realpath(script))
    return (python is not None and os.path.realpath(os.path.dirname(python)) == here
            and os.path.realpath(python) == os.path.realpath(sys.executable))


def interpreter_command() -> tuple[str, ...]:
    """This interpreter running agentctx as a module: `-I` in a virtualenv (uv and pipx tools are), so neither the
    project directory Claude Code runs hooks in (a checkout holding an `agentctx` package) nor PYTHON* variables
    change what runs; `-P` (3.11+) outside one, where `-I` would also hide the user site a `pip install --user` uses.
    The installer-made `agentctx` script imports `re` before any of our code (~4 ms of a ~26 ms floor, measured in
    docs/benchmarks.md), which is why hooks are not registered through it."""
    if sys.prefix != sys.base_prefix:
        return (sys.executable, "-I", "-m", "agentctx")
    if sys.version_info >= (3, 11):
        return (sys.executable, "-P", "-m", "agentctx")
    return (sys.executable, "-m", "agentctx")


def choose(*, shared: bool = False, agent: str = "Claude Code") -> Choice:
    """The login PATH's `agentctx` when it is this installation outside a virtualenv (bare for `shared` settings,
    else its absolute path); otherwise this interpreter with `-m agentctx`. `agent` names, in the reason, the agent
    that will start it."""
    found = shutil.which("agentctx", path=login_path())
    if found and not in_virtualenv(os.path.dirname(found)) and is_this_installation(found):
        if shared:
            return Choice(("agentctx",), True, f"using `agentctx` from PATH (shared project settings; here it is "
                                               f"{found}, on the login PATH)")
        argv = interpreter_command()
        return Choice(argv, False, f"using `{_join(argv)}`: the interpreter of this installation's command on the "
                                   f"login PATH ({found}), by its absolute path so it runs whatever PATH {agent} "
                                   "has; a hook starts faster this way than through the installer's script")
    absolute = interpreter_command()
    if sys.prefix != sys.base_prefix:
        why = f"this agentctx lives in a virtualenv ({sys.prefix}) that {agent} will not have on its PATH"
    elif found:
        why = f"the `agentctx` on the login PATH ({found}) is another installation"
    else:
        why = f"no `agentctx` on the login PATH ({login_path()})"
    if any(part in sys.prefix.replace(os.sep, "/") for part in TEMPORARY_ENVS):
        why += ("; WARNING: this is a temporary `uvx`/`pipx run` environment that may be deleted: install with "
                "`uv tool install` or `pipx install` and run `agentctx init` again")
    if shared:
        why += "; note: the project's shared settings now hold a path of this machine"
    return Choice(absolute, False, f"using the absolute command `{_join(absolute)}`: {why}")


def _join(argv: tuple[str, ...] | list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


# --- what is registered, and whether it runs --------------------------------------------------------------------

@dataclass(frozen=True)
class Probe:
    """One registered command prefix, where it is registered, and how running it from a minimal environment went."""

    prefix: str
    where: tuple[str, ...]
    ok: bool
    detail: str

    def registrations(self) -> str:
        """`6 hooks in ~/.claude/settings.json; MCP server in ~/.claude.json`."""
        counts: dict[str, int] = {}
        for w in self.where:
            counts[w] = counts.get(w, 0) + 1
        return "; ".join(w.replace("hook in", f"{n} hooks in", 1) if w.startswith("hook in") and n > 1 else w
                         for w, n in counts.items())


def prefix_of_hook(command: str) -> str | None:
    """`… hook <event>` without the `hook <event>` part: what starts agentctx."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    return _join(argv[:-2]) if len(argv) >= 3 and argv[-2] == "hook" else None


def registered(settings_files: list[Path], state_file: Path) -> dict[str, list[str]]:
    """Command prefix -> where it is registered, for our hooks in `settings_files` and our MCP entry in `state_file`."""
    out: dict[str, list[str]] = {}
    for path in settings_files:
        data = json_object(path)
        hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                for handler in (group.get("hooks") or []) if isinstance(group, dict) else []:
                    if is_ours(handler):
                        prefix = prefix_of_hook(handler["command"])
                        if prefix is not None:
                            out.setdefault(prefix, []).append(f"hook in {path}")
    servers = json_object(state_file).get("mcpServers")
    entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    if isinstance(entry, dict) and isinstance(entry.get("command"), str):
        args = entry.get("args") if isinstance(entry.get("args"), list) else []
        argv = [entry["command"], *[str(a) for a in args]]
        prefix = _join(argv[:-1] if argv[-1:] == ["mcp"] else argv)
        out.setdefault(prefix, []).append(f"MCP server in {state_file}")
    return out


def json_object(path: Path) -> dict[str, Any]:
    """The JSON object a Claude Code file holds; {} when it is missing, unreadable, malformed or not an object."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def probe(prefix: str, env: dict[str, str] | None = None) -> tuple[bool, str]:
    """Run `<prefix> --version` as Claude Code would (through /bin/sh, minimal environment); (ok, what happened)."""
    command = f"{prefix} --version"
    try:
        done = subprocess.run(["/bin/sh", "-c", command], env=env or minimal_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, cwd=os.path.expanduser("~"))
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"`{command}` could not run: {exc}"
    if done.returncode == 0 and done.stdout.startswith("agentctx "):
        return True, done.stdout.strip()
    said = (done.stderr or done.stdout).strip().splitlines()
    return False, f"`{command}` exited {done.returncode}" + (f": {said[-1][:200]}" if said else "")


def check(settings_files: list[Path], state_file: Path) -> list[Probe]:
    """Every distinct registered prefix, probed once."""
    return [Probe(prefix, tuple(where), *probe(prefix))
            for prefix, where in registered(settings_files, state_file).items()]
