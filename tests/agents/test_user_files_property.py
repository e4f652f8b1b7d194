"""Nothing a user wrote is lost by any init/uninstall sequence on any agent's files (issue 34): seeded random
sequences of `init`, `uninstall`, `init` from a moved installation, Codex writing its trust, and the user editing
the file meanwhile, over real users' settings files (tests/data/userfiles, SOURCES.md there). After every step the
file parses and holds every key, value and comment the user wrote; after the last uninstall, a file the user did
not touch meanwhile is back byte for byte."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

import pytest

from agentctx import cli
from agentctx.agents import codex_setup, copilot_setup, gemini_setup, tomltext
from agentctx.base import paths
from agentctx.claude import wiring

DATA = Path(__file__).parents[1] / "data" / "userfiles"
STEPS = 7
SEEDS = range(3)
# The user's own `agentctx` servers, as the agents' own `mcp add` commands wrote them (SOURCES.md).
CODEX_OWN = '\n[mcp_servers.agentctx]\ncommand = "agentctx"\nargs = ["mcp"]\n'
GEMINI_OWN = {"command": "agentctx", "args": ["mcp"], "trust": True}
COPILOT_OWN = {"tools": ["*"], "type": "local", "command": "agentctx", "args": ["mcp"]}  # `copilot mcp add`, 1.0.102
CLAUDE_OWN = {"type": "stdio", "command": "agentctx", "args": ["mcp"], "env": {}}
# A Codex file whose instructions quote our table's header (the file is valid; the header is text).
QUOTE = 'developer_instructions = """\nMemory lives in\n[mcp_servers.agentctx]\nand nowhere else.\n"""\n'


def _cases() -> list[tuple[str, str, str]]:
    """(agent, sample file, variant): every real file as it is, and with the user's own agentctx server."""
    out = []
    for path in sorted(DATA.glob("*.*")):
        agent = path.name.split("-", 1)[0]
        if agent in ("codex", "gemini", "claude", "copilot"):
            out += [(agent, path.name, "as-is"), (agent, path.name, "own-server")]
            if agent == "codex":
                out.append((agent, path.name, "quoted-header"))
    return out


# --- what the user wrote ---------------------------------------------------------------------------------------

def _load(agent: str, text: str) -> Any:
    return tomltext.loads(text) if agent == "codex" else json.loads(text or "{}")


def _contains(original: Any, now: Any) -> bool:
    """Everything in `original` is in `now`: each key with its value (recursively), each list item still listed."""
    if isinstance(original, dict):
        return isinstance(now, dict) and all(k in now and _contains(v, now[k]) for k, v in original.items())
    if isinstance(original, list):
        return isinstance(now, list) and all(any(_contains(item, n) for n in now) for item in original) and (
            len(now) >= len(original))
    return bool(original == now)


def _comments(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("#")]


class World:
    """One agent's user files and what the user wrote in them (the original plus their edits since)."""

    def __init__(self, agent: str, sample: str, variant: str, repo: Path, home: Path) -> None:
        self.agent, self.repo, self.home = agent, repo, home
        text = (DATA / sample).read_text(encoding="utf-8")
        if agent == "codex":
            self.file = codex_setup.config_file()
            if variant == "own-server":
                text += CODEX_OWN
            elif variant == "quoted-header":
                text = QUOTE + text
        elif agent in ("gemini", "copilot"):
            self.file = gemini_setup.settings_file() if agent == "gemini" else copilot_setup.mcp_file()
            if variant == "own-server":
                data = json.loads(text)
                data.setdefault("mcpServers", {})["agentctx"] = GEMINI_OWN if agent == "gemini" else COPILOT_OWN
                text = json.dumps(data, indent=2)
        else:
            self.file = paths.claude_home() / "settings.json"
        self.files = [self.file]
        self.file.parent.mkdir(parents=True, exist_ok=True)
        self.file.write_text(text, encoding="utf-8")
        self.originals = {self.file: text}
        if agent == "claude":  # its MCP server lives in ~/.claude.json
            state = paths.claude_json()
            servers = {"agentctx": CLAUDE_OWN} if variant == "own-server" else {}
            own = json.dumps({"numStartups": 12, "mcpServers": servers, "projects": {}}, indent=2)
            state.write_text(own, encoding="utf-8")
            self.files.append(state)
            self.originals[state] = own
        self.wrote = {p: _load(agent if p == self.file else "claude", t) for p, t in self.originals.items()}
        self.comments = {p: _comments(t) for p, t in self.originals.items()}
        self.edited = False
        self.edits = 0

    def check(self, step: str) -> None:
        for path in self.files:
            text = path.read_text(encoding="utf-8")
            data = _load(self.agent if path == self.file else "claude", text)  # parseable
            assert _contains(self.wrote[path], data), f"{step}: {path.name} lost something the user wrote"
            missing = [c for c in self.comments[path] if c not in _comments(text)]
            assert not missing, f"{step}: {path.name} lost the comments {missing[:3]}"

    # --- what the user does meanwhile -----------------------------------------------------------------------------
    def user_edit(self) -> None:
        self.edits += 1
        text = self.file.read_text(encoding="utf-8")
        if self.agent == "codex":
            text += f"\n# a note of mine {self.edits}\n[profiles.mine{self.edits}]\nmodel = \"o{self.edits}\"\n"
            self.comments[self.file].append(f"# a note of mine {self.edits}")
        else:
            data = json.loads(text)
            data[f"mine{self.edits}"] = {"on": True, "n": self.edits}
            text = json.dumps(data, indent=2)
        self.file.write_text(text, encoding="utf-8")
        self.wrote[self.file] = _merge(self.wrote[self.file], _load(self.agent, text), self.edits)
        self.edited = True


def _merge(wrote: Any, now: Any, n: int) -> Any:
    """What the user wrote, plus the table or key of edit `n`."""
    out = json.loads(json.dumps(wrote, default=str))
    key = f"mine{n}"
    if key in now:
        out[key] = now[key]
    else:
        out.setdefault("profiles", {})[key] = now["profiles"][key]
    return out


def _codex_trusts() -> None:
    """What `codex app-server` config/batchWrite appends for our hooks (observed with 0.171.0)."""
    keys = codex_setup.our_keys()
    if not keys:
        return
    text = codex_setup.config_file().read_text(encoding="utf-8")
    if "[hooks.state]" not in text:
        text += "\n[hooks.state]\n"
    for key in keys:
        if json.dumps(key) not in text:
            text += f"\n[hooks.state.{json.dumps(key)}]\ntrusted_hash = \"sha256:{abs(hash(key)) % 10**12}\"\n"
    codex_setup.config_file().write_text(text, encoding="utf-8")


@pytest.mark.parametrize("agent,sample,variant", _cases())
def test_nothing_the_user_wrote_is_lost_by_any_sequence(agent, sample, variant, repo, isolated_home, monkeypatch,
                                                        capsys):
    world = World(agent, sample, variant, repo, isolated_home)
    real_choose = wiring.choose
    moved = {"on": False}

    def choose(**kw: Any) -> wiring.Choice:  # an installation that moved: another launcher, same agentctx
        choice = real_choose(**kw)
        return wiring.Choice(("/opt/moved/bin/agentctx",), False, choice.reason) if moved["on"] else choice
    monkeypatch.setattr(wiring, "choose", choose)

    def run(*argv: str) -> None:
        rc = cli.main(["-C", str(repo), *argv])
        out = capsys.readouterr()
        assert rc == 0 and "Traceback" not in out.err, (argv, out.err)

    def move() -> None:
        moved["on"] = not moved["on"]
        run("init", "--agent", agent, "--no-profile")

    actions: dict[str, Callable[[], None]] = {
        "init": lambda: run("init", "--agent", agent, "--no-profile"),
        "uninstall": lambda: run("uninstall", "--agent", agent),
        "init-moved": move,
        "user-edit": world.user_edit,
    }
    if agent == "codex":
        actions["codex-trusts"] = _codex_trusts
    for seed in SEEDS:
        rng = random.Random(f"{sample}/{variant}/{seed}")
        done = []
        for _ in range(STEPS):
            name = rng.choice(sorted(actions))
            actions[name]()
            done.append(name)
            world.check(" -> ".join(done))
        run("uninstall", "--agent", agent)
        world.check(" -> ".join(done + ["uninstall"]))
        if agent == "copilot":  # its hooks file is ours alone: gone once nothing of ours is in it
            assert not copilot_setup.hooks_file().exists(), " -> ".join(done)
        for path in world.files:
            text = path.read_text(encoding="utf-8")
            assert "--agent " + agent + " " not in text and "hook session-start --agent" not in text
            if not world.edited:
                assert text == world.originals[path], f"{' -> '.join(done)}: {path.name} not given back byte for byte"
