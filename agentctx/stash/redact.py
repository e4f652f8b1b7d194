"""Secret scrubbing: one compiled pattern that masks credentials in text and JSON-like values."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MARKER_PREFIX", "default_redactor", "is_sensitive_key", "scrub_text", "scrub_value"]

MARKER_PREFIX = "[REDACTED"
"""Every mask starts with this; a value that already starts with it is left alone (idempotence)."""

# Key names whose value is a secret, in assignments (`password=…`) and in mappings ({"api_key": …}).
_KEY_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "api-key",
    "apikey",
    "access_key",
    "private_key",
    "client_secret",
    "auth_token",
    "credential",
    "credentials",
)
_SENSITIVE_KEY = re.compile(
    r"(?i)^(?:[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|auth[_-]?token|credentials?)|authorization|proxy-authorization"
    r"|cookie|set-cookie|x-api-key)$"
)

# `(?<![…].)` placed after a branch's first character is a word-boundary check on the character before it.
_ASSIGN_TAIL = (
    r"""["']?([ \t]*)([:=])([ \t]*)(?:"([^"\n]+)"|'([^'\n]+)'|(?!\[REDACTED)([^\s"'`,;&]+))"""
)
# (kind, first characters, rest): every branch of the combined pattern starts with one case-sensitive
# literal character, which lets the regex engine skip most offsets without entering the alternation.
_BRANCHES: list[tuple[str, str, str]] = [
    ("private_key", "-", r"----BEGIN[ A-Z0-9]*PRIVATE KEY-----.*?-----END[ A-Z0-9]*PRIVATE KEY-----"),
    ("url_password", ":", r"""//[^/\s:@'"]+:([^@\s/'"]+)(?=@)"""),
    (
        "authorization",
        "Aa",
        r"""(?i:uthorization)["']?[ \t]*[:=][ \t]*["']?((?i:bearer|basic|token|digest))[ \t]+"""
        r"(?!\[REDACTED)([A-Za-z0-9._~+/=:-]+)",
    ),
    ("bearer", "Bb", r"(?<![A-Za-z0-9_].)(?i:earer)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)"),
    ("anthropic_key", "s", r"(?<![A-Za-z0-9_-].)k-ant-[A-Za-z0-9_-]{10,}"),
    (
        "openai_key",
        "s",
        r"(?<![A-Za-z0-9_-].)k-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}",
    ),
    ("aws_access_key", "A", r"(?<![A-Za-z0-9].)(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("github_token", "g", r"(?<![A-Za-z0-9_].)(?:h[pousr]_[A-Za-z0-9]{30,}|ithub_pat_[A-Za-z0-9_]{22,})"),
    ("slack_token", "x", r"(?<![A-Za-z0-9_].)ox[abprs]-[A-Za-z0-9-]{10,}"),
    ("google_api_key", "A", r"(?<![A-Za-z0-9_].)Iza[0-9A-Za-z_-]{35}"),
    ("jwt", "e", r"(?<![A-Za-z0-9_].)yJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
]
for _first in sorted({word[0] for word in _KEY_WORDS}):
    _tails = "|".join(re.escape(w[1:]) for w in sorted(_KEY_WORDS, key=len, reverse=True) if w[0] == _first)
    _BRANCHES.append(("assignment", _first + _first.upper(), f"(?i:{_tails}){_ASSIGN_TAIL}"))


def _combined() -> tuple[re.Pattern[str], list[tuple[str, re.Pattern[str]]]]:
    alternatives = []
    parsers = []
    for index, (kind, firsts, rest) in enumerate(_BRANCHES):
        for offset, first in enumerate(firsts):
            alternatives.append(f"{re.escape(first)}(?P<_b{index}_{offset}>){rest}")
            parsers.append((kind, re.compile(f"[{re.escape(firsts)}]{rest}", re.DOTALL)))
    return re.compile("|".join(alternatives), re.DOTALL), parsers


_PATTERN, _PARSERS = _combined()
_WHOLE_KINDS = frozenset(
    {"private_key", "anthropic_key", "openai_key", "aws_access_key", "github_token", "slack_token",
     "google_api_key", "jwt"}
)
# Unquoted right-hand sides that are code, not credentials: `password = get_password()`,
# `token=${TOKEN}`, `secret: None`, `password: str`.
_CODE_LIKE = re.compile(
    r"(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*[(\[].*"
    r"|[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_.]*"
    r"|\$.*|%\(.*|\{.*|<.*|None|null|true|false|True|False|\d{1,5})",
    re.DOTALL,
)
_TYPE_NAMES = frozenset({"str", "bytes", "int", "float", "bool", "Any", "SecretStr", "string", "object"})
_LINE_PREFIX = re.compile(r"[ \t]*(?:export[ \t]+)?[A-Za-z0-9_.-]*")


def _marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _splice(text: str, part: re.Match[str], group: int, marker: str) -> str:
    # `part` was matched on the whole source at the outer match's offset; shift its spans into `text`.
    base = part.start()
    return text[: part.start(group) - base] + marker + text[part.end(group) - base :]


def _assignment(outer: re.Match[str], text: str, part: re.Match[str]) -> str:
    before, sep, after, double, single, bare = part.groups()
    if double is not None or single is not None:
        group = 4 if double is not None else 5
        if part.group(group).startswith(MARKER_PREFIX):
            return text
        return _splice(text, part, group, _marker("secret"))
    if _CODE_LIKE.fullmatch(bare):
        return text
    if sep == "=" and not before and not after:
        return _splice(text, part, 6, _marker("secret"))
    # `key: value` / `key = value` only counts at the start of a line (YAML, env files), not in prose or code.
    source = outer.string
    line_start = source.rfind("\n", 0, outer.start()) + 1
    if not _LINE_PREFIX.fullmatch(source, line_start, outer.start()) or bare in _TYPE_NAMES:
        return text
    return _splice(text, part, 6, _marker("secret"))


def _replace(outer: re.Match[str]) -> str:
    text = outer.group(0)
    index = next(i for i, (name, value) in enumerate(outer.groupdict().items()) if value is not None)
    kind, parser = _PARSERS[index]
    if kind in _WHOLE_KINDS:
        return _marker(kind)
    part = parser.match(outer.string, outer.start())
    if part is None or part.end() != outer.end():  # pragma: no cover - the parser is the branch itself
        return text
    if kind == "url_password":
        if part.group(1).startswith(MARKER_PREFIX):
            return text
        return _splice(text, part, 1, _marker("url_password"))
    if kind == "authorization":
        return _splice(text, part, 2, _marker(part.group(1).lower()))
    if kind == "bearer":
        return _splice(text, part, 1, _marker("bearer"))
    return _assignment(outer, text, part)


def scrub_text(text: str) -> str:
    """Return ``text`` with each secret replaced by ``[REDACTED:kind]``; applying it twice changes nothing."""
    return _PATTERN.sub(_replace, text)


def is_sensitive_key(key: str) -> bool:
    """True for mapping keys whose value is a credential (``password``, ``api_key``, ``Authorization``…)."""
    return bool(_SENSITIVE_KEY.match(key))


def scrub_value(obj: Any) -> Any:
    """Return a scrubbed copy of a JSON-like value: strings scrubbed, values under sensitive keys masked."""
    if isinstance(obj, str):
        return scrub_text(obj)
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        for key, item in obj.items():
            if (
                isinstance(key, str)
                and isinstance(item, str)
                and item
                and not item.startswith(MARKER_PREFIX)
                and is_sensitive_key(key)
            ):
                out[key] = _mask_header_value(item)
            else:
                out[key] = scrub_value(item)
        return out
    if isinstance(obj, list):
        return [scrub_value(item) for item in obj]
    if isinstance(obj, tuple):
        return tuple(scrub_value(item) for item in obj)
    return obj


def _mask_header_value(value: str) -> str:
    # Keep the scheme of an Authorization header so the structure stays readable.
    scheme, _, rest = value.partition(" ")
    if rest and scheme.lower() in {"bearer", "basic", "token", "digest"}:
        return f"{scheme} {_marker(scheme.lower())}"
    return _marker("secret")


def default_redactor(value: Any, context: Any = None) -> Any:
    """Redact function for a stash or recorder: scrub every value and input before it is stored."""
    return scrub_value(value)
