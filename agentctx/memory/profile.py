"""Project profile detection: languages, package managers, frameworks, commands and entry points, as keyed records."""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..base.models import NewRecord, Record
from ..base.project import Project
from ..store import records
from . import keep_digests_fresh

keep_digests_fresh()  # this module writes records: their digests are rebuilt after each write

TITLES = ("Stack", "Commands", "Entry points")
MAX_LINES = 14
# Dependency names worth naming in the Stack line, by ecosystem (framework or key library -> display name).
PY_FRAMEWORKS = {"django": "Django", "flask": "Flask", "fastapi": "FastAPI", "starlette": "Starlette", "pydantic": "Pydantic",
                 "sqlalchemy": "SQLAlchemy", "pytest": "pytest", "numpy": "NumPy", "pandas": "pandas", "torch": "PyTorch",
                 "click": "Click", "typer": "Typer", "celery": "Celery", "aiohttp": "aiohttp", "httpx": "httpx"}
JS_FRAMEWORKS = {"react": "React", "next": "Next.js", "vue": "Vue", "nuxt": "Nuxt", "svelte": "Svelte",
                 "@sveltejs/kit": "SvelteKit", "express": "Express", "fastify": "Fastify", "hono": "Hono",
                 "@nestjs/core": "NestJS", "vite": "Vite", "vitest": "Vitest", "jest": "Jest", "typescript": "TypeScript",
                 "electron": "Electron", "@angular/core": "Angular", "tailwindcss": "Tailwind CSS", "prisma": "Prisma"}


@dataclass
class Detected:
    """What the files of a repository say about it; each list becomes the bullet lines of one profile record."""

    stack: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    entry_points: list[str] = field(default_factory=list)

    def bodies(self) -> dict[str, str]:
        out = {}
        for title, lines in zip(TITLES, (self.stack, self.commands, self.entry_points)):
            unique = list(dict.fromkeys(lines))[:MAX_LINES]
            if unique:
                out[title] = "\n".join([describe(title, unique)] + [f"- {line}" for line in unique])
        return out


# Write-time expansion: each profile record opens with a line in the words a developer asks about it with ("how do
# I run the tests?", "which linter?"), so the prompt hook's keyword search finds the record; "Commands" and a list
# of tool names share few words with such questions. The digest shows only the bullet lines.
STEP_WORDS = {"test": "test", "lint": "lint (linter)", "typecheck": "type-check (type checker)", "build": "build",
              "dev": "run (dev server)", "start": "start", "run": "run", "format": "format (formatter)",
              "fmt": "format (formatter)", "check": "check", "install": "install"}
ABOUT = {"Stack": "The stack of this project: languages, package managers, frameworks, libraries and tools.",
         "Entry points": "Where this project starts: entry points, scripts, main modules and binaries."}


def describe(title: str, lines: list[str]) -> str:
    if title != "Commands":
        return ABOUT.get(title, f"{title} of this project.")
    steps = list(dict.fromkeys(STEP_WORDS[k] for k in (line.split(":", 1)[0].split(" (")[0].strip() for line in lines)
                               if k in STEP_WORDS))
    return "Commands to " + (", ".join(steps) if steps else "work on") + " this project."


def _read(path: Path, limit: int = 256_000) -> str:
    from ..base import safeio

    try:  # a repository's file: regular files only (a link to a FIFO or /dev/zero must not hang us), capped
        return safeio.read_head(str(path), limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _toml(path: Path) -> dict[str, Any]:
    text = _read(path)
    if not text:
        return {}
    try:
        import tomllib  # Python >= 3.11
    except ImportError:
        from ..base import minitoml as tomllib  # type: ignore[no-redef]  # 3.10: enough TOML for the keys read here
    try:
        return tomllib.loads(text)
    except ValueError:
        return {}


MAX_DEPENDENCIES = 12  # runtime dependencies named in the Stack record (a library's own are what it is about)


def _dep_names(specs: list[Any]) -> set[str]:
    return {re.split(r"[\s<>=!~\[;(]", str(s).strip(), maxsplit=1)[0].lower() for s in specs if str(s).strip()}


def _python(root: Path, d: Detected) -> None:
    pyproject = _toml(root / "pyproject.toml")
    markers = [n for n in ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "tox.ini", "Pipfile")
               if (root / n).exists()]
    if not markers:
        return
    project = pyproject.get("project", {}) if isinstance(pyproject.get("project"), dict) else {}
    requires = project.get("requires-python")
    d.stack.append("Language: Python" + (f" ({requires})" if isinstance(requires, str) else ""))
    tool = pyproject.get("tool", {}) if isinstance(pyproject.get("tool"), dict) else {}
    if (root / "uv.lock").exists() or "uv" in tool:
        d.stack.append("Package manager: uv")
    elif (root / "poetry.lock").exists() or "poetry" in tool:
        d.stack.append("Package manager: Poetry")
    elif (root / "pdm.lock").exists() or "pdm" in tool:
        d.stack.append("Package manager: PDM")
    elif (root / "Pipfile").exists():
        d.stack.append("Package manager: Pipenv")
    else:
        d.stack.append("Package manager: pip")
    runtime = list(dict.fromkeys(sorted(_dep_names(list(project.get("dependencies") or [])))))
    poetry = tool.get("poetry", {}) if isinstance(tool.get("poetry"), dict) else {}
    if not runtime and isinstance(poetry.get("dependencies"), dict):
        runtime = sorted(n.lower() for n in poetry["dependencies"] if n.lower() != "python")
    build = pyproject.get("build-system", {}) if isinstance(pyproject.get("build-system"), dict) else {}
    backend = build.get("build-backend")
    if isinstance(backend, str) and backend.strip():
        d.stack.append("Build backend: " + backend.split(".")[0].split(":")[0])
    if runtime:
        shown = runtime[:MAX_DEPENDENCIES]
        d.stack.append("Dependencies: " + ", ".join(shown) + (f" (+{len(runtime) - len(shown)} more)"
                                                               if len(runtime) > len(shown) else ""))
    deps = set(runtime)
    for extra in (project.get("optional-dependencies") or {}).values():
        deps |= _dep_names(list(extra or []))
    for req in ("requirements.txt", "requirements-dev.txt", "dev-requirements.txt"):
        deps |= _dep_names([ln for ln in _read(root / req).splitlines() if ln and not ln.startswith(("#", "-"))])
    deps |= _dep_names(re.findall(r"^\s+([A-Za-z0-9_.-]+)", _read(root / "setup.cfg"), re.M)) & set(PY_FRAMEWORKS)
    named = [PY_FRAMEWORKS[n] for n in sorted(deps) if n in PY_FRAMEWORKS]
    if named:
        d.stack.append("Libraries: " + ", ".join(named))
    if "pytest" in deps or "pytest" in tool or (root / "pytest.ini").exists() or (root / "conftest.py").exists() \
            or (root / "tests").is_dir():
        d.commands.append("test: pytest")
    if (root / "tox.ini").exists():
        d.commands.append("test (all envs): tox")
    if "ruff" in tool or "ruff" in deps:
        d.commands.append("lint: ruff check .")
    if "mypy" in tool or "mypy" in deps:
        d.commands.append("typecheck: mypy")
    for name, target in (project.get("scripts") or {}).items():
        d.entry_points.append(f"console script `{name}` -> {target}")
    if (root / "manage.py").exists():
        d.entry_points.append("manage.py (Django)")
    for pkg in sorted(root.glob("*/__main__.py"))[:3]:
        d.entry_points.append(f"python -m {pkg.parent.name}")


def _node(root: Path, d: Detected) -> None:
    text = _read(root / "package.json")
    if not text:
        return
    try:
        pkg = json.loads(text)
    except ValueError:
        return
    if not isinstance(pkg, dict):
        return
    engines = pkg.get("engines") if isinstance(pkg.get("engines"), dict) else {}
    d.stack.append("Runtime: Node.js" + (f" ({engines['node']})" if isinstance(engines.get("node"), str) else ""))
    deps: dict[str, Any] = {}
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        if isinstance(pkg.get(key), dict):
            deps.update(pkg[key])
    if "typescript" in deps or (root / "tsconfig.json").exists():
        d.stack.append("Language: TypeScript")
    manager = str(pkg.get("packageManager") or "").split("@")[0]
    if not manager:
        for lock, name in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun"), ("bun.lock", "bun"),
                           ("package-lock.json", "npm")):
            if (root / lock).exists():
                manager = name
                break
    manager = manager or "npm"
    d.stack.append(f"Package manager: {manager}")
    named = [JS_FRAMEWORKS[n] for n in sorted(deps) if n in JS_FRAMEWORKS and n != "typescript"]
    if named:
        d.stack.append("Libraries: " + ", ".join(named))
    if pkg.get("workspaces"):
        d.stack.append("Monorepo: workspaces")
    run = {"npm": "npm run", "pnpm": "pnpm", "yarn": "yarn", "bun": "bun run"}.get(manager, "npm run")
    scripts = pkg.get("scripts") if isinstance(pkg.get("scripts"), dict) else {}
    first = ("dev", "start", "build", "test", "lint", "format", "typecheck", "check")
    for name in [n for n in first if n in scripts] + sorted(n for n in scripts if n not in first):
        d.commands.append(f"{name}: {run} {name}")
    bin_field = pkg.get("bin")
    if isinstance(bin_field, str):
        d.entry_points.append(f"bin: {bin_field}")
    elif isinstance(bin_field, dict):
        d.entry_points += [f"bin `{k}`: {v}" for k, v in bin_field.items()]
    for key in ("main", "module"):
        if isinstance(pkg.get(key), str):
            d.entry_points.append(f"{key}: {pkg[key]}")


def _rust(root: Path, d: Detected) -> None:
    cargo = _toml(root / "Cargo.toml")
    if not (root / "Cargo.toml").exists():
        return
    edition = (cargo.get("package") or {}).get("edition") if isinstance(cargo.get("package"), dict) else None
    d.stack.append("Language: Rust" + (f" (edition {edition})" if edition else ""))
    d.stack.append("Package manager: Cargo")
    if "workspace" in cargo:
        d.stack.append("Monorepo: Cargo workspace")
    d.commands += ["build: cargo build", "test: cargo test", "lint: cargo clippy"]
    if (root / "src" / "main.rs").exists():
        d.entry_points.append("src/main.rs")
    if (root / "src" / "lib.rs").exists():
        d.entry_points.append("src/lib.rs")


def _go(root: Path, d: Detected) -> None:
    text = _read(root / "go.mod")
    if not text:
        return
    m = re.search(r"^go\s+(\S+)", text, re.M)
    mod = re.search(r"^module\s+(\S+)", text, re.M)
    d.stack.append("Language: Go" + (f" ({m.group(1)})" if m else "") + (f", module {mod.group(1)}" if mod else ""))
    d.commands += ["build: go build ./...", "test: go test ./...", "lint: go vet ./..."]
    if (root / "main.go").exists():
        d.entry_points.append("main.go")
    d.entry_points += [str(p.parent.relative_to(root)) for p in sorted(root.glob("cmd/*/main.go"))[:5]]


def _others(root: Path, d: Detected) -> None:
    if (root / "Gemfile").exists():
        d.stack.append("Language: Ruby (Bundler)")
        if (root / "bin" / "rails").exists():
            d.stack.append("Framework: Rails")
    if (root / "pom.xml").exists():
        d.stack += ["Language: Java", "Build: Maven"]
        d.commands.append("test: mvn test")
    if (root / "build.gradle").exists() or (root / "build.gradle.kts").exists():
        d.stack += ["Language: Java/Kotlin", "Build: Gradle"]
        d.commands.append("test: ./gradlew test" if (root / "gradlew").exists() else "test: gradle test")
    if (root / "composer.json").exists():
        d.stack.append("Language: PHP (Composer)")
    if list(root.glob("*.csproj")) or list(root.glob("*.sln")):
        d.stack.append("Language: C# (.NET)")
        d.commands.append("test: dotnet test")
    if (root / "Dockerfile").exists() or (root / "compose.yaml").exists() or (root / "docker-compose.yml").exists():
        d.stack.append("Containers: Docker")


def _task_runners(root: Path, d: Detected) -> None:
    """Makefile and justfile targets that name a test, build, lint or run step."""
    wanted = ("test", "build", "lint", "check", "fmt", "format", "run", "dev", "install", "typecheck")
    for name, runner in (("Makefile", "make"), ("makefile", "make"), ("justfile", "just"), ("Justfile", "just")):
        targets = re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", _read(root / name), re.M)
        for target in dict.fromkeys(targets):
            if target in wanted:
                d.commands.append(f"{target}: {runner} {target}")


DETECTORS: tuple[Callable[[Path, Detected], None], ...] = (_python, _node, _rust, _go, _others, _task_runners)


def detect(root: Path) -> Detected:
    """Read the repository's manifests (no subprocess, no network)."""
    found = Detected()
    for detector in DETECTORS:
        detector(root, found)
    return found


def edited_by_hand(record: Record) -> bool:
    """A profile record someone wrote (`profile edit`, the dashboard, an MCP client), not detection: detection's
    bodies open with a descriptive line, `edit`'s are bullet lines only."""
    if record.source in ("dashboard", "mcp_tool"):
        return True
    return record.source == "cli" and record.body.lstrip().startswith("-")


def refresh(conn: sqlite3.Connection, project: Project, *, keep_edits: bool = True) -> dict[str, str]:
    """Write the profile records that changed (keyed supersession replaces the old one); returns titles -> status.
    A key edited by hand is kept (status says what detection found instead) unless `keep_edits` is False."""
    bodies = detect(project.root).bodies()
    current = {r.title: r for r in records.current(conn, project.id, types=["profile"], own_only=True)}
    status: dict[str, str] = {}
    for title, body in bodies.items():
        old = current.get(title)
        if old is not None and old.body == body:
            status[title] = "unchanged"
            continue
        if old is not None and keep_edits and edited_by_hand(old):
            found = "; ".join(line.lstrip("- ") for line in body.splitlines()[1:])
            status[title] = f"kept (edited by hand; detection finds: {found}; `profile refresh --force` replaces it)"
            continue
        records.insert(conn, NewRecord(type="profile", title=title, body=body, project_id=project.id,
                                       confidence="explicit", source="cli"))
        status[title] = "updated" if old else "created"
    return status


def title_for(key: str) -> str:
    """The profile record a KEY names: stack, commands or entry-points (any case, spaces, - or _)."""
    from ..base.errors import ValidationError

    wanted = " ".join(key.replace("-", " ").replace("_", " ").split()).lower()
    for title in TITLES:
        if title.lower() == wanted:
            return title
    raise ValidationError("invalid_field", field="profile key", problem=f"{key!r} is not one of: stack, commands, "
                          "entry-points")


def edit(conn: sqlite3.Connection, project: Project, key: str, value: str) -> Record:
    """Set one profile key by hand: an explicit, `cli`-sourced record that supersedes the current one (keyed).

    VALUE lines (or `;`-separated items) become the record's bullet lines, as detection writes them.
    """
    items = [part.strip().lstrip("-* ").strip() for line in value.splitlines() for part in line.split(";")]
    body = "\n".join(f"- {item}" for item in items if item)
    record, _ = records.insert(conn, NewRecord(type="profile", title=title_for(key), body=body or value,
                                               project_id=project.id, confidence="explicit", source="cli"))
    return record


def clear(conn: sqlite3.Connection, project: Project) -> int:
    """Delete the project's profile records, history included; returns how many went."""
    return records.delete_type(conn, project.id, "profile")
