"""config.json: the known keys with their defaults and parsers; lenient to read, strict to set."""

from __future__ import annotations

import json
from collections import namedtuple
from pathlib import Path
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from . import paths, userfiles
from .errors import ConfigError


def _bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off"):
        return False
    raise ValueError("expected true or false")


def _int_at_least(low: int) -> Callable[[Any], int]:
    def parse(raw: Any) -> int:
        if isinstance(raw, bool):
            raise ValueError(f"expected an integer >= {low}")
        try:
            value = int(str(raw).strip())
        except ValueError:
            raise ValueError(f"expected an integer >= {low}, not {str(raw)!r}") from None
        if value < low:
            raise ValueError(f"expected an integer >= {low}")
        return value

    return parse


_positive_int = _int_at_least(1)
_non_negative_int = _int_at_least(0)


def _text(raw: Any) -> str:
    text = str(raw).strip()
    if not text:
        raise ValueError("expected a non-empty string")
    return text


def _optional_text(raw: Any) -> str | None:
    if raw is None:
        return None
    text = str(raw).strip()
    return text or None


def _choice(*allowed: str) -> Callable[[Any], str]:
    def parse(raw: Any) -> str:
        text = str(raw).strip()
        if text not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}")
        return text

    return parse


def _globs(raw: Any) -> list[str]:
    """excludedPaths: a JSON list of globs, or one comma-separated string on the command line ("" clears it)."""
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("["):
            try:
                raw = json.loads(text)
            except json.JSONDecodeError:
                raise ValueError("expected a JSON list of globs or comma-separated globs") from None
        else:
            raw = [part for part in text.split(",")]
    if not isinstance(raw, list) or not all(isinstance(g, str) for g in raw):
        raise ValueError("expected a list of globs")
    return [g.strip() for g in raw if g.strip()]


# One config key: its default, how a value is parsed (Callable[[Any], Any]), and what it does.
Key = namedtuple("Key", "default parse help")


KEYS: dict[str, Key] = {
    "llm": Key(True, _bool, "extract records from transcripts with Claude (false: never, whatever `extraction` says)"),
    # docs/extraction.md: the API needs the [llm] extra and ANTHROPIC_API_KEY; claude-code runs the user's own `claude`.
    "extraction": Key("auto", _choice("auto", "api", "claude-code", "off"),
                      "extraction backend: auto (the API when [llm] and a key are there, else the Claude Code CLI, "
                      "else off), api, claude-code or off"),
    "claudeCodePath": Key(None, _optional_text, "the `claude` executable extraction runs (set by `init`; else PATH)"),
    "extractionCallsPerHour": Key(12, _non_negative_int,
                                  "most extraction calls through the Claude Code CLI in any hour (0: no limit)"),
    # docs/extraction.md "The expansion pass": records that came without questions and aliases get them, batched.
    "expansionRecordsPerDay": Key(300, _non_negative_int,
                                  "most records the expansion pass sends to the extraction backend per UTC day, "
                                  "every project together (0: no expansion)"),
    "embeddings": Key(True, _bool, "embed records for hybrid retrieval (needs the [vectors] extra)"),
    "modelTier": Key("default", _choice("default", "quality"), "embedding model tier"),
    "reinforceThreshold": Key(3, _positive_int, "sessions an inferred record must recur in before it is reinforced"),
    # SPEC §3.9: forgetting that fires, and inferred records reviewed before they count.
    "expireInferredDays": Key(30, _non_negative_int, "days an inferred record may go unused before consolidation "
                                                     "retires it (restorable; 0: never)"),
    "inferred": Key("auto", _choice("auto", "review"), "auto: extracted inferred records count at once; review: they "
                                                       "wait in `agentctx review`, searchable but never injected"),
    "extractionModel": Key("claude-haiku-4-5", _text, "model used for extraction"),
    "embeddingModel": Key("BAAI/bge-small-en-v1.5", _text, "fastembed model name"),
    "embeddingModelPath": Key(None, _optional_text, "local directory of an embedding model (offline installs)"),
    # Per-project control (docs/control.md). The hooks read these three with agentctx.base.control.settings, not here.
    "mode": Key("all", _choice("all", "opt-in"), "all: remember every project not turned off; opt-in: only projects that said `agentctx on` or carry .agentctx/enabled"),
    "excludedPaths": Key([], _globs, "globs of directories never remembered (a directory covers its whole tree)"),
    "notify": Key("brief", _choice("off", "brief", "full"), "what the user sees: off, brief (a line at session start), full (also a line per injecting prompt)"),
}


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError("config_invalid", path=str(path), detail=exc.strerror or str(exc)) from None
    if not text.strip():
        return {}
    try:
        data = userfiles.loads(text)  # strict: no NaN/Infinity/overflowing numbers/duplicate keys
    except ValueError as exc:
        raise ConfigError("config_invalid", path=str(path), detail=userfiles.describe(exc)) from None
    if not isinstance(data, dict):
        raise ConfigError("config_invalid", path=str(path), detail="not an object")
    return data


def load(path: Path | None = None) -> dict[str, Any]:
    """Every known key with its effective value. Lenient: a bad file or value falls back to the default."""
    path = path or paths.config_path()
    try:
        raw = _read(path)
    except ConfigError:
        raw = {}
    values: dict[str, Any] = {}
    for name, key in KEYS.items():
        value = raw.get(name)
        try:
            values[name] = key.default if value is None else key.parse(value)
            if isinstance(values[name], list):
                values[name] = list(values[name])  # never hand out the shared default
        except (TypeError, ValueError):
            values[name] = key.default
    return values


def get(name: str, path: Path | None = None) -> Any:
    if name not in KEYS:
        raise ConfigError("config_unknown_key", key=name, known=", ".join(KEYS))
    return load(path)[name]


def set_value(name: str, raw: Any, path: Path | None = None) -> Any:
    """Validate and store one key, keeping every other key in the file (unknown ones included)."""
    if name not in KEYS:
        raise ConfigError("config_unknown_key", key=name, known=", ".join(KEYS))
    try:
        value = KEYS[name].parse(raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError("config_bad_value", key=name, problem=str(exc)) from None
    path = path or paths.config_path()
    with userfiles.locked():  # concurrent `config set`s of different keys lose none
        data = _read(path)
        data[name] = value
        write(data, path)
    return value


def write(data: dict[str, Any], path: Path | None = None) -> None:
    """Write the config atomically with user-only permissions."""
    path = path or paths.config_path()
    paths.ensure_private_dir(userfiles.real_path(path).parent)
    userfiles.atomic_write(path, userfiles.dumps(data, indent=2, sort_keys=True), mode=0o600)


def ensure_file(path: Path | None = None) -> bool:
    """Create config.json with the defaults if it does not exist; True when created."""
    path = path or paths.config_path()
    if path.exists():
        return False
    with userfiles.locked():  # a `config set` racing with `init` keeps its key
        if path.exists():
            return False
        write({name: key.default for name, key in KEYS.items() if key.default is not None}, path)
    return True
