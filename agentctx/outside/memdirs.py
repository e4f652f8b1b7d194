"""Where each agent keeps the memory it writes itself (Claude Code's auto memory, Codex's memories, Gemini CLI's memory
files) and whether it is on: one reader per agent, each a `memfiles.Found` for a project (vendor-notes/
claude-code-auto-memory.md, codex-cli.md, gemini-cli.md)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..base import paths
from .memfiles import (AGENT_FILES, FRONTMATTER_TYPES, LINK, MAX_FILES, OUR_SECTION, OURS, Found, Unit,
                       frontmatter, read, read_in, title, units)

SANITIZED_MAX = 200  # Claude Code's sanitizePath keeps 200 characters, then appends `-<hash of the path>`
INDEX_LINES = 200  # Claude Code loads MEMORY.md's first 200 lines (or 25 KB) into every session
INDEX_BYTES = 25 * 1024
ADDED_MEMORIES = "Gemini Added Memories"  # the section Gemini CLI's save_memory appended to (older releases)
# The sections of a Codex memory block or summary that hold durable facts (the others route to rollout summaries).
CODEX_FACT_SECTIONS = ("User preferences", "Reusable knowledge", "Failures and how to do differently", "General Tips")

_APPLIES = re.compile(r"^\s*applies_to:.*?\bcwd=([^;]+)", re.I)
# How to turn each agent's own memory off, named as the agent names it (vendor-notes).
SWITCHES = {
    "claude": '"autoMemoryEnabled": false in ~/.claude/settings.json (or the project\'s .claude/settings.json), '
              "or CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 in the environment",
    "codex": "memories = false in the [features] table of ~/.codex/config.toml (off by default), or "
             "use_memories = false in its [memories] table",
    "gemini": "no switch: Gemini CLI loads ~/.gemini/GEMINI.md and its project memory file in every session; "
              "remove the line from that file",
}


def _md_files(directory: Path, problems: list[str], skip: str) -> list[Path]:
    """The directory's `*.md` files other than `skip`, sorted, at most MAX_FILES, links out of it refused."""
    try:
        with os.scandir(directory) as it:
            names = sorted(e.name for e in it if e.name.endswith(".md") and e.name != skip)
    except OSError:
        return []
    if len(names) > MAX_FILES:
        problems.append(f"{directory}: {len(names)} files, only the first {MAX_FILES} read")
        names = names[:MAX_FILES]
    real = directory.resolve()
    out = []
    for name in names:
        path = directory / name
        try:
            if path.resolve().parent != real:  # never follow a link out of the memory directory
                problems.append(f"{path}: a link out of {directory}, not followed")
                continue
        except OSError as exc:
            problems.append(f"{path}: not read ({exc.strerror or exc})")
            continue
        out.append(path)
    return out


def _flag(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip():
        return value.strip().lower() not in ("0", "false", "no", "off")
    return None


def _json(path: Path) -> dict[str, object]:
    try:
        data = json.loads(read(path, []))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


# ---- Claude Code ----

def sanitize(path: str) -> str:
    """Claude Code's directory name for a path (vendor-notes/claude-code-auto-memory.md, fact 2): every UTF-16 code
    unit outside [A-Za-z0-9] becomes '-' (JavaScript strings: a character beyond the BMP is two); a name longer than
    200 is cut to 200 and `-<hash>` appended, the hash the 32-bit `h = 31*h + unit` of the whole path, its absolute
    value in base 36. Exact, so two long paths with one prefix never share a directory."""
    units = path.encode("utf-16-le", "surrogatepass")
    codes = [units[i] | units[i + 1] << 8 for i in range(0, len(units), 2)]
    name = "".join(chr(c) if c < 128 and chr(c).isalnum() else "-" for c in codes)
    if len(name) <= SANITIZED_MAX:
        return name
    return f"{name[:SANITIZED_MAX]}-{_base36(abs(_java_hash(codes)))}"


def _java_hash(codes: list[int]) -> int:
    """Claude Code's string hash: `h = (h << 5) - h + unit | 0` over UTF-16 code units, as a signed 32-bit int."""
    h = 0
    for c in codes:
        h = (h * 31 + c) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def claude_config_home() -> Path:
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(os.path.expanduser(override)) if override else paths.claude_home()


def canonical_root(root: Path) -> Path:
    """The main work tree of a repository: Claude Code keys auto memory by it, so worktrees share one directory."""
    dot_git = root / ".git"
    if not dot_git.is_file():
        return root
    text = read(dot_git, []).strip()
    if not text.startswith("gitdir:"):
        return root
    git_dir = (root / text[len("gitdir:"):].strip()).resolve()
    common = git_dir
    pointer = read(git_dir / "commondir", []).strip()
    if pointer:
        common = (git_dir / pointer).resolve()
    return common.parent if common.name == ".git" else root


def _setting_dir(settings_file: Path) -> Path | None:
    value = _json(settings_file).get("autoMemoryDirectory")
    if not isinstance(value, str) or not value.strip():
        return None
    return Path(os.path.expanduser(value.strip()))


def memory_dir(project_root: Path) -> Path | None:
    """The project's auto memory directory, as Claude Code resolves it, if it exists.

    Order: `autoMemoryDirectory` in the local project settings, then in the user settings (Claude Code ignores it
    in the shared project settings), then `<config home>/projects/<sanitized main work tree>/memory`."""
    home = claude_config_home()
    for settings_file in (project_root / ".claude" / "settings.local.json", home / "settings.json"):
        found = _setting_dir(settings_file)
        if found is not None:
            return found if found.is_dir() else None
    candidate = home / "projects" / sanitize(str(canonical_root(project_root))) / "memory"
    return candidate if candidate.is_dir() else None  # one name, never a prefix: another project's is not ours


def claude_on(project_root: Path) -> bool:
    """Claude Code's own check: CLAUDE_CODE_DISABLE_AUTO_MEMORY (a false value forces it on), then the setting
    autoMemoryEnabled (local, project, user settings; the first that sets it), else on."""
    home = claude_config_home()
    files = (project_root / ".claude" / "settings.local.json", project_root / ".claude" / "settings.json",
             home / "settings.json")
    env = os.environ.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    for settings in (_json(f) for f in files):  # a settings file's `env` block sets it for Claude Code's process
        block = settings.get("env")
        if env is None and isinstance(block, dict) and isinstance(block.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY"), str):
            env = str(block["CLAUDE_CODE_DISABLE_AUTO_MEMORY"])
    disabled = _flag(env)
    if disabled is not None:
        return not disabled
    for settings in (_json(f) for f in files):
        value = settings.get("autoMemoryEnabled")
        if isinstance(value, bool):
            return value
    return True


def claude(project_root: Path, directory: Path | None = None) -> Found:
    """Claude Code's auto memory for the project: MEMORY.md's lines (loaded: its first 200 lines or 25 KB; an index
    line that links to a topic file stands for that file) and each topic file (one memory per file with
    frontmatter, else one per bullet or paragraph; read on demand: counted as loaded when a loaded index line links
    to it, since the model then has its one-line hook and the path)."""
    memory = directory if directory is not None else memory_dir(project_root)
    found = Found("claude", claude_on(project_root), where=str(memory) if memory else "")
    if memory is None or not memory.is_dir():
        return found
    index = memory / "MEMORY.md"
    text = read_in(memory, index.name, found.problems)
    if text:
        found.files.append(str(index))
    loaded_until = min(INDEX_LINES, text[:INDEX_BYTES].count("\n") + 1)
    pointed: set[str] = set()  # topic files a loaded index line links to: the model sees their hook line
    for number, heading, body in units(text):
        targets = [m.group(2) for m in LINK.finditer(body) if (memory / m.group(2)).is_file()]
        if targets:  # an index line pointing at a topic file: the file holds the memory
            if number <= loaded_until:
                pointed.update(targets)
            continue
        body = LINK.sub(lambda m: m.group(1), body)
        found.units.append(Unit("claude", str(index), number, body, heading, loaded=number <= loaded_until))
    for path in _md_files(memory, found.problems, "MEMORY.md"):
        raw = read(path, found.problems)
        if not raw:
            continue
        found.files.append(str(path))
        meta, rest, offset = frontmatter(raw)
        if meta.get("name") or meta.get("description"):  # Claude Code's one-memory-per-file format
            body = rest.strip() or meta.get("description", "")
            label = meta.get("description") or meta.get("name", "").replace("-", " ").replace("_", " ")
            found.units.append(Unit("claude", str(path), 1, body, kind=FRONTMATTER_TYPES.get(meta.get("type", ""), ""),
                                    title=title(label), loaded=path.name in pointed))
            continue
        for number, heading, body in units(rest):
            found.units.append(Unit("claude", str(path), number + offset, body, heading, loaded=path.name in pointed))
    return found


# ---- Codex CLI ----

def codex_on() -> bool:
    """`memories = true` in config.toml's [features] (off by default), unless [memories] use_memories = false."""
    from ..base import minitoml

    try:
        config = minitoml.loads(read(paths.codex_home() / "config.toml", []))
    except Exception:  # a config Codex itself would refuse: it runs without memories then
        return False
    features = config.get("features") if isinstance(config.get("features"), dict) else {}
    memories = config.get("memories") if isinstance(config.get("memories"), dict) else {}
    return features.get("memories") is True and memories.get("use_memories") is not False


def _inside(cwd: str, roots: tuple[Path, ...]) -> bool:
    try:
        path = Path(os.path.expanduser(cwd.strip().strip("`\"'"))).resolve()
    except (OSError, ValueError):
        return False
    return any(path == r or r in path.parents for r in roots)


def codex(project_root: Path) -> Found:
    """Codex's memories (`$CODEX_HOME/memories`): the durable sections of each `# Task Group` block of MEMORY.md
    whose `applies_to: cwd=` is in this project (read on demand), and the user preferences and general tips of
    memory_summary.md (personal, for every project; loaded into every session when memories are on)."""
    memory = paths.codex_home() / "memories"
    found = Found("codex", codex_on(), where=str(memory))
    if not memory.is_dir():
        return found
    roots = tuple(dict.fromkeys(p.resolve() for p in (project_root, canonical_root(project_root))))
    handbook = memory / "MEMORY.md"
    text = read_in(memory, handbook.name, found.problems)
    if text:
        found.files.append(str(handbook))
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("# ")] + [len(lines)]
    for start, end in zip(starts, starts[1:]):
        block = lines[start:end]
        cwd = next((m.group(1) for ln in block[:8] if (m := _APPLIES.match(ln))), None)
        if cwd is None or not _inside(cwd, roots):
            continue
        for number, heading, body in units("\n".join(block)):
            if heading in CODEX_FACT_SECTIONS:
                found.units.append(Unit("codex", str(handbook), start + number, body, heading))
    summary = memory / "memory_summary.md"
    text = read_in(memory, summary.name, found.problems)
    if text:
        found.files.append(str(summary))
    for number, heading, body in units(text):
        if heading in CODEX_FACT_SECTIONS:
            found.units.append(Unit("codex", str(summary), number, body, heading, scope="global", loaded=True))
    return found


# ---- Gemini CLI ----

def gemini_context_name() -> str:
    """The context file name (`context.fileName` in ~/.gemini/settings.json, first of a list), else GEMINI.md."""
    context = _json(paths.gemini_home() / "settings.json").get("context")
    name = context.get("fileName") if isinstance(context, dict) else None
    if isinstance(name, list):
        name = next((n for n in name if isinstance(n, str) and n.strip()), None)
    return name.strip() if isinstance(name, str) and name.strip() and "/" not in name else "GEMINI.md"


def gemini_project_dir(project_root: Path) -> Path | None:
    """Gemini CLI's private memory folder for the project: `~/.gemini/tmp/<id>/memory`, the id from the project
    registry `~/.gemini/projects.json` (`{"projects": {"/abs/path": "id"}}`)."""
    registry = _json(paths.gemini_home() / "projects.json").get("projects")
    if not isinstance(registry, dict):
        return None
    for root in dict.fromkeys((str(project_root), str(project_root.resolve()))):
        ident = registry.get(root)
        if isinstance(ident, str) and ident and "/" not in ident and ident not in (".", ".."):
            return paths.gemini_home() / "tmp" / ident / "memory"
    return None


def gemini(project_root: Path) -> Found:
    """Gemini CLI's memory: the global ~/.gemini/GEMINI.md (personal facts for every project, where `save_memory`
    appended under `## Gemini Added Memories` and newer releases edit directly), that section of the project's
    GEMINI.md if it has one (the rest of that file is the team's instructions: `sync` checks it), and the project's
    private memory folder (MEMORY.md, or a legacy GEMINI.md, loaded; sibling notes read on demand). Always on."""
    name = gemini_context_name()
    found = Found("gemini", True, where=str(paths.gemini_home()))
    global_file = paths.gemini_home() / name
    text = read(global_file, found.problems)
    if text:
        found.files.append(str(global_file))
    for number, heading, body in units(text):
        if heading.strip() != OUR_SECTION and not OURS.search(body):
            found.units.append(Unit("gemini", str(global_file), number, body, heading, scope="global", loaded=True))
    project_file = project_root / name  # the team's instructions (`sync`'s business), but for save_memory's section
    text = read_in(project_root, name, found.problems)  # the repository's own file, not one linked from elsewhere
    added = [(n, h, b) for n, h, b in units(text) if h.strip() == ADDED_MEMORIES]
    if added:
        found.files.append(str(project_file))
    for number, heading, body in added:
        found.units.append(Unit("gemini", str(project_file), number, body, heading, loaded=True))
    private = gemini_project_dir(project_root)
    if private is None or not private.is_dir():
        return found
    index = private / "MEMORY.md"
    if not index.is_file() and (private / name).is_file():
        index = private / name
    text = read_in(private, index.name, found.problems)
    if text:
        found.files.append(str(index))
    for number, heading, body in units(text):
        if any((private / m.group(2)).is_file() for m in LINK.finditer(body)):
            continue
        found.units.append(Unit("gemini", str(index), number, LINK.sub(lambda m: m.group(1), body), heading,
                                loaded=True))
    for path in _md_files(private, found.problems, index.name):
        raw = read(path, found.problems)
        if raw:
            found.files.append(str(path))
        for number, heading, body in units(raw):
            found.units.append(Unit("gemini", str(path), number, body, heading))
    return found


READERS = {"claude": claude, "codex": codex, "gemini": gemini}


def read_all(project_root: Path) -> list[Found]:
    """Every agent's own memory for the project, Claude Code first; never raises for a file."""
    out = []
    for name, reader in READERS.items():
        try:
            out.append(reader(project_root))
        except (OSError, ValueError, RecursionError) as exc:
            out.append(Found(name, False, problems=[f"{AGENT_FILES[name]}: not read ({exc})"]))
    return out
