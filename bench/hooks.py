"""Hook latency: each hook as a whole process on a seeded store, next to the interpreter floor measured in the same run.

python bench/hooks.py [--records N ...] [--runs K]
python bench/hooks.py --against OLD_CHECKOUT [--records N] [--runs K]
python bench/hooks.py --meaning TABLE [--records N] [--runs K]
Ends with one line of name=value pairs (ups_ratio, session_start_ratio: hook median / floor median; the same per
adapter: ups_ratio_codex, session_start_ratio_gemini, ups_ratio_copilot, ...). Each Claude Code hook is timed in four forms: `python -m
agentctx hook E`, `python -I -m agentctx hook E` (what `init` registers for a tool install or a virtualenv), the
installed `agentctx` script, and the Claude Code plugin's command, `sh plugin/bin/agentctx hook E` with the
plugin's environment (its launcher, the interpreter it remembered, the package from the plugin directory); each
Codex, Gemini and Copilot form as `python -m` and `python -I -m`. With `--against`, an A/B: the same store, the hooks of
both installs interleaved round by round, and B/A per hook (the median of per-round ratios; B is this checkout, A
the other one).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ("cache storage sqlite index token budget session prompt hook digest record schema migration parser "
         "router handler queue worker retry timeout config logging metric trace deploy build test lint format "
         "auth login user account payment invoice order cart search ranking vector embed model api client server "
         "socket stream buffer file path module package import export version release branch commit merge").split()
TYPES = ("decision", "convention", "discovery", "bugfix", "preference")
# A realistic vocabulary is large and Zipf-distributed: the common words above plus 4,000 rarer made-up terms.
RARE = [f"{a}{b}{c}" for a in ("ka", "lo", "mi", "ne", "pu", "ro", "sa", "ti", "vu", "ze") for b in
        ("bar", "cel", "dor", "fin", "gal", "hom", "jut", "kel", "lum", "mor", "nix", "pav", "quo", "ris", "sol",
         "tem", "urb", "vex", "wol", "yar") for c in ("an", "er", "is", "on", "ux", "al", "ed", "ia", "or", "um",
                                                       "at", "en", "ic", "ot", "us", "ar", "el", "io", "ol", "yr")]


def seed(n: int, env: dict[str, str], repo: Path, py: str) -> None:
    code = f"""
import random, sys
try:
    from agentctx.base import paths
    from agentctx.memory import consolidate
    from agentctx.store import db
    from agentctx.base.ids import ulid, now_iso
    from agentctx.base.project import detect
except ImportError:  # an install from before the packages by concern (bench/hooks.py --against an older checkout)
    from agentctx import consolidate, db, paths
    from agentctx.ids import ulid, now_iso
    from agentctx.project import detect
words = {WORDS!r} + {RARE!r}; types = {TYPES!r}
weights = [1.0 / (rank + 1) for rank in range(len(words))]
rng = random.Random(7); p = detect({str(repo)!r}); conn = db.connect(paths.db_path(), create=True)
now = now_iso(); rows = []
# A store of this release: every record carries how it will be asked (5 questions, 6 aliases), as extraction and the
# expansion pass leave it. An older checkout's store (--against) has no such columns.
columns = [r[1] for r in conn.execute("PRAGMA table_info(records)")]
asked = "questions" in columns
anchored = "anchors" in columns
for i in range({n}):
    title = " ".join(rng.choices(words, weights, k=6)).capitalize()
    body = " ".join(rng.choices(words, weights, k=60))
    # Like a real store: most records come from extraction, a few per session; the rest were added by hand.
    session = f"session-{{i // 8}}" if i % 5 else None
    row = (ulid(), p.id, types[i % len(types)], title, body, "explicit", now, now, "cli", session)
    if asked:
        row += ("\\n".join("how do we " + " ".join(rng.choices(words, weights, k=6)) + "?" for _ in range(5)),
                "\\n".join(rng.choices(words, weights, k=6)))
    if anchored:  # one record in 20 governs something, as rules anchored by hand and extraction leave them
        mod = words[(i // 20) % len(words)]
        row += ("\\n".join((f"path:{{mod}}/**", f"path:{{mod}}/*.sql", f"command:{{mod}} run")) if i % 20 == 0 else "",)
    rows.append(row)
conn.execute("BEGIN")
extra = (", questions, aliases" if asked else "") + (", anchors" if anchored else "")
marks = (",?,?" if asked else "") + (",?" if anchored else "")
conn.executemany("INSERT INTO records (id, project_id, type, title, body, confidence, valid_from, recorded_at, source, "
                 f"session_id{{extra}}) VALUES (?,?,?,?,?,?,?,?,?,?{{marks}})", rows)
if anchored and "guard" in [r[1] for r in conn.execute("PRAGMA table_info(records)")]:
    # one guard, as a user sets it: every shell line that names git is checked against it (issue 41)
    conn.execute("UPDATE records SET guard = ? WHERE id = ?", ("never ask\\ncommand:git push --force", rows[0][0]))
conn.execute("COMMIT")
consolidate.run(p)
"""
    # cwd = the repository: `-c` puts the cwd first on sys.path, and a checkout's own package must not win
    subprocess.run([py, "-c", code], env=env, check=True, cwd=str(repo))


def installed_python(tmp: Path, source: Path | None = None, name: str = "venv") -> str:
    """An interpreter with agentctx installed the way users install it (a regular, non-editable install):
    an editable install's import hook loads pathlib and friends into every process, floor included."""
    venv = tmp / name
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", str(source or Path(__file__).resolve().parent.parent)],
                   check=True, stdout=subprocess.DEVNULL)
    return py


def _bench_home(tmp: Path) -> "tuple[Path, Path, dict[str, str]]":
    """(home, repo, env) of a two-install comparison under `tmp`: a repository with an origin, an isolated home."""
    home, repo = tmp / "home", tmp / "home" / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = https://example.com/bench/repo.git\n')
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "ANTHROPIC_API_KEY")}
    env.update(HOME=str(home), AGENTCTX_HOME=str(home / ".agentctx"), PYTHONPYCACHEPREFIX=str(tmp / "pyc"),
               TMPDIR=str(tmp))
    return home, repo, env


def ab(n: int, runs: int, new_py: str, old_py: str) -> dict[str, float]:
    """B/A per hook: both installs' hooks on the same store, interleaved in every round. The store is seeded by A
    and copied for B (B migrates its copy during the warm-up rounds: an older install cannot open a newer schema)."""
    tmp = Path(tempfile.mkdtemp(prefix="agentctx-bench-ab-"))
    try:
        home, repo, env = _bench_home(tmp)
        seed(n, env, repo, old_py)
        shutil.copytree(home / ".agentctx", tmp / "b-home")
        envs = {"A": env, "B": {**env, "AGENTCTX_HOME": str(tmp / "b-home")}}
        rng = random.Random(1)
        prompts = [json.dumps({"cwd": str(repo), "session_id": f"b{i}",
                               "prompt": "please fix the " + " ".join(rng.choices(WORDS + RARE, k=6))}).encode()
                   for i in range(2 * runs + 4)]
        start_payload = json.dumps({"cwd": str(repo), "session_id": "b", "source": "startup"}).encode()
        commands = {}
        for tag, py in (("A", old_py), ("B", new_py)):
            script = str(Path(py).parent / "agentctx")
            commands[f"user-prompt-submit {tag}"] = [py, "-m", "agentctx", "hook", "user-prompt-submit"]
            commands[f"user-prompt-submit script {tag}"] = [script, "hook", "user-prompt-submit"]
            commands[f"session-start {tag}"] = [py, "-m", "agentctx", "hook", "session-start"]
        samples: dict[str, list[float]] = {name: [] for name in commands}
        names = list(commands)
        for i in range(runs + 2):
            order = names if i % 2 else list(reversed(names))  # neither install always goes first
            for name in order:
                payload = start_payload if name.startswith("session-start") else prompts[2 * i + name.endswith("B")]
                start = time.perf_counter()
                subprocess.run(commands[name], input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=envs[name[-1]], check=False, cwd=str(repo))
                if i >= 2:
                    samples[name].append((time.perf_counter() - start) * 1000)
        out = {}
        for name in names:
            if name.endswith(" B"):
                base = name[:-2]
                out[f"{base} A_ms"] = statistics.median(samples[f"{base} A"])
                out[f"{base} B_ms"] = statistics.median(samples[name])
                out[f"{base} B/A"] = statistics.median(b / a for b, a in zip(samples[name], samples[f"{base} A"]))
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def meaning_ab(n: int, runs: int, py: str, table: Path) -> dict[str, float]:
    """The prompt hook with and without the static meaning data (the `[vectors]` install's record file and token
    table, agentctx/retrieval/meaning.py) on copies of one store, next to the floor, interleaved in every round: each
    form's median ratio to the floor, and B/A (with / without). Also the record file's size and build time."""
    tmp = Path(tempfile.mkdtemp(prefix="agentctx-bench-meaning-"))
    try:
        home, repo, env = _bench_home(tmp)
        seed(n, env, repo, py)
        shutil.copytree(home / ".agentctx", tmp / "b-home")
        envs = {"A": env, "B": {**env, "AGENTCTX_HOME": str(tmp / "b-home")}}
        (tmp / "b-home" / "models").mkdir(exist_ok=True)
        shutil.copy(table, tmp / "b-home" / "models" / table.name)
        code = ("import json; from agentctx.base import paths; from agentctx.store import db; "
                "from agentctx.retrieval.vectors import static; c = db.connect(paths.db_path()); "
                f"print(json.dumps(static.build_records(c, paths.db_file(), {str(tmp / 'b-home' / 'models' / table.name)!r})))")
        built = json.loads(subprocess.run([py, "-c", code], env=envs["B"], check=True, cwd=str(tmp),
                                          capture_output=True, text=True).stdout)
        rng = random.Random(1)
        prompts = [json.dumps({"cwd": str(repo), "session_id": f"m{i}",
                               "prompt": "please fix the " + " ".join(rng.choices(WORDS + RARE, k=6))}).encode()
                   for i in range(runs + 2)]
        script = str(Path(py).parent / "agentctx")
        commands = {"floor": [py, "-I", "-c", "import sqlite3, json"]}
        for tag in ("A", "B"):
            commands[f"python -m {tag}"] = [py, "-m", "agentctx", "hook", "user-prompt-submit"]
            commands[f"python -I -m {tag}"] = [py, "-I", "-m", "agentctx", "hook", "user-prompt-submit"]
            if os.path.exists(script):  # an interpreter without the console script (--python): the others
                commands[f"script {tag}"] = [script, "hook", "user-prompt-submit"]
        samples: dict[str, list[float]] = {name: [] for name in commands}
        names = list(commands)
        for i in range(runs + 2):
            order = names if i % 2 else list(reversed(names))
            for name in order:
                start = time.perf_counter()
                subprocess.run(commands[name], input=prompts[i], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=envs[name[-1]] if name != "floor" else env, check=False, cwd=str(repo))
                if i >= 2:
                    samples[name].append((time.perf_counter() - start) * 1000)
        out: dict[str, float] = {"floor_ms": statistics.median(samples["floor"]),
                                 "record_file_bytes": float(built.get("bytes", 0)),
                                 "record_file_s": float(built.get("seconds", 0)),
                                 "table_bytes": float(table.stat().st_size)}
        for name in names[1:]:
            out[f"{name} ratio"] = statistics.median(v / f for v, f in zip(samples[name], samples["floor"]))
            if name.endswith(" B"):
                out[f"{name[:-2]} B/A"] = statistics.median(
                    b / a for b, a in zip(samples[name], samples[name[:-1] + "A"]))
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _plugin_env(env: dict[str, str], tmp: Path, home: Path, repo: Path, py: str) -> dict[str, str]:
    """The environment Claude Code gives a plugin's hook: CLAUDE_PLUGIN_ROOT, a data directory where the launcher
    has remembered its interpreter (`py`: on the usual path it probes nothing), CLAUDE_PROJECT_DIR; and a user
    settings file naming the plugin, which the hook reads to know it need not stand aside."""
    root = Path(__file__).resolve().parent.parent / "plugin"
    data = tmp / "plugin-data"
    data.mkdir(exist_ok=True)
    (data / "python").write_text(py + "\n")
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"agentctx@agentctx": True}}))
    return {**env, "CLAUDE_PLUGIN_ROOT": str(root), "CLAUDE_PLUGIN_DATA": str(data), "CLAUDE_PROJECT_DIR": str(repo)}


# Each hook as Codex CLI, Gemini CLI and Copilot CLI run it (`--agent`, their own payloads: vendor-notes/codex-cli.md,
# gemini-cli.md, copilot-cli.md); the user waits for the first WAITED, the rest run beside the turn.
AGENTS = ("codex", "gemini", "copilot")
AGENT_FORMS = (*(f"{e}:{a}" for a in AGENTS for e in ("session-start", "user-prompt-submit")),
               *(f"{e}:{a}" for e in ("post-tool-use", "stop") for a in AGENTS))
WAITED = 2 * len(AGENTS)


# The pre-action hook: nothing matches (Claude Code, Codex, Gemini, Copilot payloads), and a record delivered (issue 33); a
# 500-character chained shell line with nothing to deliver but a guard to check, and a 10 MB shell line (issue 41).
PRE_TOOL_FORMS = ("pre-tool-use", "pre-tool-use.match", "pre-tool-use:codex", "pre-tool-use:gemini",
                  "pre-tool-use:copilot", "pre-tool-use.chain", "pre-tool-use.huge",
                  # a Read (the most frequent call) of a file nothing governs, and of one a record governs (issue 43)
                  "pre-tool-use.read", "pre-tool-use.read_match")
CHAIN = ("cd {repo} && git status --short && git diff --stat HEAD~1 && python -m pytest -q tests/unit -x "
         "&& ruff check src tests && grep -rn 'TODO' src | head -20 && sudo -u ci env CI=1 timeout 600 make test "
         "&& git add -A && git commit -m \"$(cat <<'EOF'\nfix: the cache index keeps its token budget\nEOF\n)\" "
         "&& bash -lc 'git log --oneline -3' && git push origin HEAD:main && echo done")
HUGE_CHARS = 10 * 1024 * 1024


def pre_tool_events(edit: dict, repo: Path) -> dict[str, list[bytes]]:
    """The shell payloads of PRE_TOOL_FORMS: the chained line (500 characters, nothing delivered, the guard on
    `git push --force` checked against every command) and a 10 MB line whose guarded words come last."""
    chain = CHAIN.format(repo=repo)
    chain = (chain + " " * 500)[:500] if len(chain) < 500 else chain[:500]
    shell = {**edit, "session_id": "b", "tool_name": "Bash"}
    huge = "echo " + "x " * ((HUGE_CHARS - 40) // 2) + "; git push -f"
    return {"pre-tool-use.chain": [json.dumps({**shell, "tool_input": {"command": chain}}).encode()],
            "pre-tool-use.huge": [json.dumps({**shell, "tool_input": {"command": huge}}).encode()]}


def agent_events(base: dict[str, str], prompts: list[bytes]) -> dict[str, list[bytes]]:
    """The payloads of AGENT_FORMS. Gemini's prompt arrives with SessionStart's context in front of it (headless),
    which its adapter strips: a digest-sized prefix here."""
    prefix = "<hook_context>Active decisions and conventions (agentctx):\n" + "- a decision: its reason\n" * 40
    gemini_prompts, codex_prompts, copilot_prompts = [], [], []
    for raw in prompts:  # sessions of their own: a record injected in one form's session is not deduped in another's
        payload = json.loads(raw)
        copilot_prompts.append(json.dumps({"sessionId": payload["session_id"] + "-copilot", "timestamp": 1796684110168,
                                           "cwd": payload["cwd"], "prompt": payload["prompt"]}).encode())
        codex_prompts.append(json.dumps({**payload, "session_id": payload["session_id"] + "-codex", "turn_id": "t",
                                         "hook_event_name": "UserPromptSubmit", "model": "gpt-5.5"}).encode())
        payload.update(session_id=payload["session_id"] + "-gemini", hook_event_name="BeforeAgent",
                       prompt=f"{prefix}</hook_context>\n\n{payload['prompt']}")
        gemini_prompts.append(json.dumps(payload).encode())
    shell = {"session_id": "b", "tool_input": {"command": "pytest"}}
    copilot = {"sessionId": "b", "timestamp": 1796684110168, "cwd": base["cwd"]}
    return {
        "session-start:codex": [json.dumps({**base, "session_id": "b", "source": "startup", "model": "gpt-5.5"}).encode()],
        "user-prompt-submit:codex": codex_prompts,
        "session-start:gemini": [json.dumps({**base, "session_id": "b", "source": "startup"}).encode()],
        "user-prompt-submit:gemini": gemini_prompts,
        "post-tool-use:codex": [json.dumps({**base, **shell, "tool_name": "Bash", "tool_response": "3 passed"}).encode()],
        "post-tool-use:gemini": [json.dumps({**base, **shell, "tool_name": "run_shell_command", "tool_response": {
            "llmContent": "<untrusted_context>\nOutput: 3 passed\nProcess Group PGID: 1\n</untrusted_context>",
            "returnDisplay": "3 passed"}}).encode()],
        "stop:codex": [json.dumps({**base, "session_id": "b", "stop_hook_active": False}).encode()],
        "stop:gemini": [json.dumps({**base, "session_id": "b", "stop_hook_active": False}).encode()],
        "session-start:copilot": [json.dumps({**copilot, "source": "new", "initialPrompt": "hi"}).encode()],
        "user-prompt-submit:copilot": copilot_prompts,
        "post-tool-use:copilot": [json.dumps({**copilot, "toolName": "bash", "toolArgs": {"command": "pytest"},
                                              "toolResult": {"resultType": "success", "textResultForLlm":
                                                             "3 passed\n<shellId: 0 completed with exit code 0>"}}).encode()],
        "stop:copilot": [json.dumps({**copilot, "transcriptPath": "", "stopReason": "end_turn",
                                     "stop_hook_active": False}).encode()],
    }


def bench(n: int, runs: int, py: str, pause: float = 0.0) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="agentctx-bench-"))
    try:
        home, repo = tmp / "home", tmp / "home" / "repo"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = https://example.com/bench/repo.git\n')
        transcript = tmp / "t.jsonl"
        transcript.write_text(json.dumps({"type": "user", "message": {"content": "refactor the cache"}}) + "\n")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "ANTHROPIC_API_KEY")}
        # Real installs have cached bytecode; a private prefix gives it to floor and hooks alike.
        env.update(HOME=str(home), AGENTCTX_HOME=str(home / ".agentctx"), PYTHONPYCACHEPREFIX=str(tmp / "pyc"),
                   TMPDIR=str(tmp))
        seed(n, env, repo, py)
        rng = random.Random(1)
        base = {"cwd": str(repo), "transcript_path": str(transcript)}
        prompts = [json.dumps({**base, "session_id": f"b{i}", "prompt": "please fix the " + " ".join(rng.choices(WORDS + RARE, k=6))}).encode()
                   for i in range(runs + 2)]
        events = {
            "session-start": [json.dumps({**base, "session_id": "b", "source": "startup"}).encode()],
            "user-prompt-submit": prompts,
            "post-tool-use": [json.dumps({**base, "session_id": "b", "tool_name": "Bash", "tool_input": {"command": "pytest"},
                                          "tool_response": {"stdout": "3 passed"}}).encode()],
            "stop": [json.dumps({**base, "session_id": "b"}).encode()],
            "pre-compact": [json.dumps({**base, "session_id": "b", "trigger": "auto"}).encode()],
        }
        # The pre-action hook on every tool call: an edit no anchor governs (the common case), and an edit of a file
        # an anchored record governs, in a new session each round (delivered once per session).
        edit = {**base, "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "t",
                "tool_input": {"file_path": str(repo / "notes" / "unrelated.txt"), "old_string": "a", "new_string": "b"}}
        events["pre-tool-use"] = [json.dumps({**edit, "session_id": "b"}).encode()]
        events["pre-tool-use.match"] = [json.dumps({**edit, "session_id": f"m{i}", "tool_input": {
            **edit["tool_input"], "file_path": str(repo / WORDS[0] / "handler.py")}}).encode() for i in range(runs + 2)]
        read = {**edit, "tool_name": "Read", "tool_input": {"file_path": str(repo / "notes" / "unrelated.txt")}}
        events["pre-tool-use.read"] = [json.dumps({**read, "session_id": "b"}).encode()]
        events["pre-tool-use.read_match"] = [json.dumps({**read, "session_id": f"r{i}", "tool_input": {
            "file_path": str(repo / WORDS[0] / "handler.py")}}).encode() for i in range(runs + 2)]
        # What the agent waits for after an Edit: the follow-up answers, the capture runs after it (issue 43).
        events["post-tool-use.edit"] = [json.dumps({**edit, "session_id": "e", "tool_use_id": "te",
                                                    "hook_event_name": "PostToolUse",
                                                    "tool_response": {"filePath": edit["tool_input"]["file_path"],
                                                                      "success": True}}).encode()]
        # After a call that had a record delivered before it (the pre-tool-use.match sessions): the follow-up.
        events["post-tool-use.followup"] = [json.dumps({**edit, "session_id": f"m{i}", "hook_event_name": "PostToolUse",
                                                        "tool_input": {**edit["tool_input"],
                                                                       "file_path": str(repo / WORDS[0] / "handler.py")},
                                                        "tool_response": {"success": True}}).encode()
                                            for i in range(runs + 2)]
        events["pre-tool-use:codex"] = [json.dumps({**edit, "session_id": "b", "tool_name": "Bash",
                                                    "tool_input": {"command": "pytest -q"}}).encode()]
        events["pre-tool-use:gemini"] = [json.dumps({**edit, "session_id": "b", "tool_name": "replace"}).encode()]
        events["pre-tool-use:copilot"] = [json.dumps({"sessionId": "b", "cwd": base["cwd"], "toolName": "edit",
                                                      "toolArgs": {"path": edit["tool_input"]["file_path"],
                                                                   "old_str": "a", "new_str": "b"}}).encode()]
        events.update(pre_tool_events(edit, repo))
        events.update(agent_events(base, prompts))
        # Interleaved rounds: each round times the floor and every hook once, so a noisy neighbour slows them
        # alike; the reported ratio is the median of per-round ratios, the milliseconds are plain medians.
        # Two groups, each with its own floor: the hooks the user waits for (SessionStart, UserPromptSubmit) are
        # not timed while the detached work of Stop, PreCompact and PostToolUse still runs on this 2-core machine.
        script = Path(py).parent / "agentctx"
        plugin_env = _plugin_env(env, tmp, home, repo, py)
        launcher = str(Path(__file__).resolve().parent.parent / "plugin" / "bin" / "agentctx")
        out: dict[str, float] = {}
        for group in (("session-start", "user-prompt-submit", *AGENT_FORMS[:WAITED], *PRE_TOOL_FORMS),
                      ("post-tool-use", "post-tool-use.edit", "post-tool-use.followup", "stop", "pre-compact",
                       *AGENT_FORMS[WAITED:])):
            commands = {"floor": ([py, "-I", "-c", "import sqlite3, json"], [b""])}
            for form in group:
                event, _, agent = form.partition(":")  # "user-prompt-submit:codex": the Codex adapter's form
                event = event.split(".")[0]  # "pre-tool-use.match": the same event, another payload
                extra = ["--agent", agent] if agent else []
                commands[f"{form}_ms"] = ([py, "-m", "agentctx", "hook", event, *extra], events[form])
                # What `init` registers for a virtualenv or a uv/pipx tool install (claude/wiring.interpreter_command).
                commands[f"{form}_isolated_ms"] = ([py, "-I", "-m", "agentctx", "hook", event, *extra], events[form])
                if agent:
                    continue
                if script.exists():
                    commands[f"{form}_script_ms"] = ([str(script), "hook", event], events[form])
                # What the plugin's hooks.json runs (Claude Code substitutes ${CLAUDE_PLUGIN_ROOT}).
                commands[f"{form}_plugin_ms"] = (["sh", launcher, "hook", event], events[form])
            samples: dict[str, list[float]] = {name: [] for name in commands}
            for i in range(runs + 2):
                for name, (argv, payloads) in commands.items():
                    start = time.perf_counter()
                    # cwd = the project, as Claude Code runs hooks (and `python -m` must not find a checkout's package).
                    subprocess.run(argv, input=payloads[i % len(payloads)], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=plugin_env if "_plugin" in name else env,
                                   check=False, cwd=str(repo))
                    if i >= 2:  # two warm-up rounds: page cache and bytecode
                        samples[name].append((time.perf_counter() - start) * 1000)
                    if pause and group[0] == "post-tool-use":  # let the detached capture finish (--pause)
                        time.sleep(pause)
            out.setdefault("floor_ms", statistics.median(samples["floor"]))
            if "pre-tool-use.huge_ms" in commands:  # the 10 MB line must answer, exit 0, inside the hook's budget
                argv, payloads = commands["pre-tool-use.huge_ms"]
                done = subprocess.run(argv, input=payloads[0], capture_output=True, env=env, check=False,
                                      cwd=str(repo))
                out["pre-tool-use.huge_rc"] = float(done.returncode)
                out["pre-tool-use.huge_stopped"] = float(b'"permissionDecision":"ask"' in done.stdout)
            for name, values in samples.items():
                if name != "floor":
                    out[name] = statistics.median(values)
                    out[name.replace("_ms", "_ratio")] = statistics.median(
                        v / f for v, f in zip(values, samples["floor"]))
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--python", help="interpreter with agentctx installed (default: a fresh venv with `pip install .`)")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds between the hooks that leave work after their answer (PostToolUse, Stop): each "
                             "is then timed without the previous one's detached child running beside it")
    parser.add_argument("--against", type=Path, help="another checkout: an interleaved A/B of the prompt and start hooks")
    parser.add_argument("--meaning", type=Path, metavar="TABLE",
                        help="a static token table (agentctx embed builds one): the prompt hook without (A) and with (B) "
                             "the meaning data, interleaved, each against the floor")
    args = parser.parse_args()
    summary: dict[str, str] = {}
    venv_dir = Path(tempfile.mkdtemp(prefix="agentctx-bench-venv-"))
    try:
        py = args.python or installed_python(venv_dir)
        if args.meaning:
            for n in args.records:
                res = meaning_ab(n, args.runs, py, args.meaning)
                print(f"\n{n:,} records, {args.runs} interleaved rounds, floor {res['floor_ms']:.1f} ms; token table "
                      f"{res['table_bytes'] / 1e6:.2f} MB, record file {res['record_file_bytes'] / 1e3:.0f} KB built in "
                      f"{res['record_file_s']:.1f} s (A: lexical only, B: with the meaning data)")
                for form in ("python -m", "python -I -m", "script"):
                    if form + " B/A" not in res:
                        continue
                    print(f"  UserPromptSubmit {form:<14} A {res[form + ' A ratio']:.3f}x  B {res[form + ' B ratio']:.3f}x"
                          f"  B/A {res[form + ' B/A']:.3f}")
                    key = form.replace("python ", "").replace(" ", "").replace("-", "")
                    summary[f"ups_{key}_meaning_ratio_{n // 1000}k"] = f"{res[form + ' B ratio']:.3f}"
                    summary[f"ups_{key}_lexical_ratio_{n // 1000}k"] = f"{res[form + ' A ratio']:.3f}"
                summary[f"record_file_kb_{n // 1000}k"] = f"{res['record_file_bytes'] / 1e3:.0f}"
                summary[f"record_file_s_{n // 1000}k"] = f"{res['record_file_s']:.1f}"
            print(" ".join(f"{k}={v}" for k, v in summary.items()))
            return 0
        if args.against:
            old = installed_python(venv_dir, args.against, "against")
            for n in args.records:
                res = ab(n, args.runs, py, old)
                print(f"\n{n:,} records, {args.runs} interleaved rounds (A: {args.against}, B: this checkout)")
                for key in [k for k in res if k.endswith("B/A")]:
                    base = key[:-4]
                    print(f"{base:<30}A {res[base + ' A_ms']:6.1f} ms   B {res[base + ' B_ms']:6.1f} ms   B/A {res[key]:.3f}")
                    summary[f"{base.replace(' ', '_').replace('-', '_')}_ba_{n // 1000}k"] = f"{res[key]:.3f}"
            print(" ".join(f"{k}={v}" for k, v in summary.items()))
            return 0
        return _run(args, py, summary)
    finally:
        shutil.rmtree(venv_dir, ignore_errors=True)


def _run(args: argparse.Namespace, py: str, summary: dict[str, str]) -> int:
    for n in args.records:
        res = bench(n, args.runs, py, args.pause)
        floor = res["floor_ms"]
        print(f"\n{n:,} records   floor (python -I -c 'import sqlite3, json'): {floor:.1f} ms")
        print(f"{'hook':<30}{'python -m':>12}{'ratio':>8}{'python -I -m':>14}{'ratio':>8}{'agentctx':>12}{'ratio':>8}"
              f"{'plugin':>12}{'ratio':>8}")
        for key in [k for k in res if k.endswith("_ms") and k != "floor_ms" and "_script" not in k
                    and "_plugin" not in k and "_isolated" not in k]:
            event = key[:-3]
            line = f"{event:<30}{res[key]:>10.1f}ms{res[f'{event}_ratio']:>7.2f}x"
            for form, width in (("isolated", 12), ("script", 10), ("plugin", 10)):
                ms = res.get(f"{event}_{form}_ms")
                line += f"{ms:>{width}.1f}ms{res[f'{event}_{form}_ratio']:>7.2f}x" if ms else f"{'':>{width + 8}}"
            print(line.rstrip())
        tag = f"_{n // 1000}k" if len(args.records) > 1 else ""
        summary[f"floor_ms{tag}"] = f"{floor:.1f}"
        summary[f"ups_ratio{tag}"] = f"{res['user-prompt-submit_ratio']:.2f}"
        summary[f"session_start_ratio{tag}"] = f"{res['session-start_ratio']:.2f}"
        summary[f"ups_isolated_ratio{tag}"] = f"{res['user-prompt-submit_isolated_ratio']:.2f}"
        summary[f"session_start_isolated_ratio{tag}"] = f"{res['session-start_isolated_ratio']:.2f}"
        for agent in AGENTS:  # the same bounds per adapter (issue 28)
            summary[f"ups_ratio_{agent}{tag}"] = f"{res[f'user-prompt-submit:{agent}_ratio']:.2f}"
            summary[f"session_start_ratio_{agent}{tag}"] = f"{res[f'session-start:{agent}_ratio']:.2f}"
        if "user-prompt-submit_script_ratio" in res:
            summary[f"ups_script_ratio{tag}"] = f"{res['user-prompt-submit_script_ratio']:.2f}"
        summary[f"ups_plugin_ratio{tag}"] = f"{res['user-prompt-submit_plugin_ratio']:.2f}"
        summary[f"pre_tool_ratio{tag}"] = f"{res['pre-tool-use_ratio']:.2f}"  # nothing matches: <= 1.1 (issue 33)
        summary[f"pre_tool_isolated_ratio{tag}"] = f"{res['pre-tool-use_isolated_ratio']:.2f}"
        summary[f"pre_tool_match_ratio{tag}"] = f"{res['pre-tool-use.match_ratio']:.2f}"  # delivered: <= 1.3
        summary[f"pre_tool_match_isolated_ratio{tag}"] = f"{res['pre-tool-use.match_isolated_ratio']:.2f}"
        for agent in AGENTS:
            summary[f"pre_tool_ratio_{agent}{tag}"] = f"{res[f'pre-tool-use:{agent}_ratio']:.2f}"
        summary[f"pre_tool_chain_ratio{tag}"] = f"{res['pre-tool-use.chain_ratio']:.2f}"  # <= 1.1 (issue 41)
        summary[f"pre_tool_chain_isolated_ratio{tag}"] = f"{res['pre-tool-use.chain_isolated_ratio']:.2f}"
        summary[f"pre_tool_huge_ms{tag}"] = f"{res['pre-tool-use.huge_ms']:.0f}"  # within TOTAL_S (2 s), exit 0
        summary[f"pre_tool_huge_rc{tag}"] = f"{res['pre-tool-use.huge_rc']:.0f}"
        summary[f"pre_tool_huge_stopped{tag}"] = f"{res['pre-tool-use.huge_stopped']:.0f}"
        summary[f"pre_tool_read_ratio{tag}"] = f"{res['pre-tool-use.read_ratio']:.2f}"  # nothing to deliver: <= 1.0
        summary[f"pre_tool_read_match_ratio{tag}"] = f"{res['pre-tool-use.read_match_ratio']:.2f}"  # delivered: <= 1.2
        summary[f"post_tool_edit_ratio{tag}"] = f"{res['post-tool-use.edit_ratio']:.2f}"  # waited for: <= 1.1
        summary[f"post_tool_shell_ratio{tag}"] = f"{res['post-tool-use_ratio']:.2f}"
        summary[f"post_tool_followup_ratio{tag}"] = f"{res['post-tool-use.followup_ratio']:.2f}"
        summary[f"session_start_plugin_ratio{tag}"] = f"{res['session-start_plugin_ratio']:.2f}"
    if len(args.records) > 1:  # the unsuffixed names refer to the first size
        first = f"_{args.records[0] // 1000}k"
        for name in ("ups_ratio", "session_start_ratio", "ups_isolated_ratio", "session_start_isolated_ratio",
                     "ups_script_ratio", "ups_plugin_ratio", "session_start_plugin_ratio", "ups_ratio_codex",
                     "session_start_ratio_codex", "ups_ratio_gemini", "session_start_ratio_gemini",
                     "ups_ratio_copilot", "session_start_ratio_copilot",
                     "pre_tool_ratio", "pre_tool_isolated_ratio", "pre_tool_match_ratio",
                     "pre_tool_match_isolated_ratio", "pre_tool_ratio_codex", "pre_tool_ratio_gemini",
                     "pre_tool_ratio_copilot", "pre_tool_chain_ratio", "pre_tool_chain_isolated_ratio",
                     "pre_tool_huge_ms", "pre_tool_huge_rc", "pre_tool_huge_stopped",
                     "pre_tool_read_ratio", "pre_tool_read_match_ratio", "post_tool_edit_ratio",
                     "post_tool_shell_ratio", "post_tool_followup_ratio"):
            if f"{name}{first}" in summary:
                summary[name] = summary[f"{name}{first}"]
    print(" ".join(f"{k}={v}" for k, v in summary.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
