"""Secret scrubbing: one compiled pattern that masks credentials in text and JSON-like values.

Two layers share the pattern. Token-shaped secrets (vendor API keys, JWTs, PEM private keys, Bearer and Basic
credentials, passwords in URLs) are recognised by their own shape and masked wherever they appear. Key/value
heuristics (``password=…``, ``token: …``, ``x-api-key: …``) add coverage for values that are not token-shaped.
When a heuristic decides a pair is not a secret (prose, code, a ``key: value`` pair in the middle of a line),
scanning resumes at the value, so a token-shaped secret inside it is still caught by its own pattern.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Optional

from .secret_formats import HEADER_SUFFIXES as _HEADER_SUFFIXES
from .secret_formats import HEADER_WORDS as _HEADER_WORDS
from .secret_formats import KEY_WORDS as _KEY_WORDS
from .secret_formats import SENSITIVE_KEY as _SENSITIVE_KEY
from .secret_formats import TOKEN_BRANCHES as _TOKEN_BRANCHES
from .secret_formats import edge as _edge

__all__ = ["MARKER_PREFIX", "default_redactor", "is_sensitive_key", "scrub_text", "scrub_value"]

MARKER_PREFIX = "[REDACTED"
"""Every mask starts with this; a value that already starts with it is left alone (idempotence)."""

_SCHEMES = frozenset({"bearer", "basic", "token", "digest"})


# The value part of `key: value` / `key=value`: groups (space before, separator, space after, "double",
# 'single', bare). A bare value that already is a mask is not matched.
_ASSIGN_TAIL = (
    r"""["']?([ \t]*)([:=])([ \t]*)(?:"((?:[^"\\\n]|\\.)+)"|'((?:[^'\\\n]|\\.)+)'|(?!\[REDACTED)([^\s"'`]+))"""
)
# Where a bare value stops short of the next whitespace or quote: before `&name=`, `;name=` or `,name=` (the next
# parameter of a URL query, a connection string, a cookie), and before trailing `,`/`;` (punctuation). Every
# other character is the secret's: `SMTP_PASSWORD=Xy9!abc&KLM;q` is masked whole.
_NEXT_PARAM = re.compile(r"[&;,](?=[A-Za-z_][A-Za-z0-9_.-]*=)")
_TRAILING = re.compile(r"[,;]+$")
# A private key's BEGIN line is matched by the pattern (`secret_formats.PEM_LABEL`); its end is found by
# `_pem_end`: the END line within `_PEM_SPAN` characters (an 8192-bit RSA key is under 7 KB of PEM), else, for
# a truncated block, the end of its base64 body. A bounded `str.find` keeps many BEGIN lines without an END
# linear, not quadratic.
_PEM_END = re.compile(r"-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(r"[A-Za-z0-9+/=\s\\:,-]*")
_PEM_SPAN = 16_384

_BRANCHES: list[tuple[str, str, str]] = [
    _TOKEN_BRANCHES[0],
    # `scheme://user:password@host`, the user may be empty (`redis://:password@host`).
    ("url_password", ":", r"""//[^/\s:@'"[]*:((?:[^@\s/'"]|@(?=[^\s/'"@]*@))+)(?=@)"""),
    (
        "authorization",
        "Aa",
        r"""(?i:uthorization)["']?[ \t]*[:=][ \t]*["']?((?i:bearer|basic|token|digest))[ \t]+"""
        r"(?!\[REDACTED)([A-Za-z0-9._~+/=:-]+)",
    ),
    ("bearer", "Bb", r"(?i:earer)" + _edge("A-Za-z0-9_", 6) + r"[ \t]+([A-Za-z0-9._~+/-]{16,}=*)"),
    # A bare `Basic <base64>` only counts when the base64 decodes to `user:password` (checked in code).
    ("basic", "Bb", r"(?i:asic)" + _edge("A-Za-z0-9_", 5) + r"[ \t]+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])"),
    *_TOKEN_BRANCHES[1:],
]
# `key: value` / `key=value` pairs, one branch per first letter; the key word is the branch's first group, and
# whether the pair counts (assignment or secret header, at which position) is decided in `_pair`.
_PAIR_WORDS = tuple(sorted(set(_KEY_WORDS) | set(_HEADER_WORDS) | set(_HEADER_SUFFIXES)))
for _first in sorted({word[0] for word in _PAIR_WORDS}):
    _tails = "|".join(re.escape(w[1:]) for w in sorted(_PAIR_WORDS, key=len, reverse=True) if w[0] == _first)
    _firsts = _first + _first.upper() if _first.isalpha() else _first
    _BRANCHES.append(("pair", _firsts, f"(?i:({_tails})){_ASSIGN_TAIL}"))


def _combined(branches: list[tuple[str, str, str]]) -> tuple[re.Pattern[str], list[tuple[int, str]]]:
    # One alternative per first character, `c(?:(?P<marker>)rest|…)`: the engine skips offsets whose character
    # starts no branch, and at the others only tries the branches that start with it. The marker tells which
    # branch matched; the branch's own groups follow it, so its group `j` is group `marker + j` of the match.
    by_first: dict[str, list[str]] = {}
    names = []
    for index, (kind, firsts, rest) in enumerate(branches):
        for offset, first in enumerate(firsts):
            name = f"_b{index}_{offset}"
            by_first.setdefault(first, []).append(f"(?P<{name}>){rest}")
            names.append((name, kind))
    alternatives = [f"{re.escape(first)}(?:{'|'.join(rests)})" for first, rests in by_first.items()]
    pattern = re.compile("|".join(alternatives), re.DOTALL)
    return pattern, [(pattern.groupindex[name], kind) for name, kind in names]


_PATTERN, _MARKERS = _combined(_BRANCHES)
# Token-shaped secrets only, to check whether a key/value pair's value starts with one.
_TOKEN_AT = re.compile(
    "|".join(f"{re.escape(first)}{rest}" for _, firsts, rest in _TOKEN_BRANCHES for first in firsts), re.DOTALL
)
_TOKEN_KINDS = frozenset(kind for kind, _, _ in _TOKEN_BRANCHES)
# Unquoted right-hand sides that are code, not credentials: `password = get_password()`,
# `token=${TOKEN}`, `secret: None`, `password: str`.
_CODE_LIKE = re.compile(
    r"(?:[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_.]*"
    r"|\$.*|%\(.*|\{.*|<.*|None|null|true|false|True|False|\d{1,5})",
    re.DOTALL,
)
# Calls and subscripts (`get_password()`, `os.environ['KEY']`, `cfg.get("a", b)[0]`, `connect(` continued on the
# next line) are checked by `_is_call`: brackets must pair up and hold only what code holds, so passwords such
# as `Kl7_[~2<*[A]`, `GXO_86QR[l4_v)` or `B8s_(IhS{r` are not taken for code.
_CALL_HEAD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?=[(\[])")
_CALL_ARGS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:'\"=+*/%- \t")
_CLOSE = {")": "(", "]": "[", "}": "{"}
_TYPE_NAMES = frozenset({"str", "bytes", "int", "float", "bool", "Any", "SecretStr", "string", "object"})
_LINE_PREFIX = re.compile(r"[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?[A-Za-z0-9_.-]*")
# A secret header's value in the middle of a line: credential-shaped (a digit, six or more characters, no
# brackets), so `the api-key: header`, `{"x-api-key": api_key}` and `{'x-api-key': keys[0]}` stay as they are.
_HEADER_VALUE = re.compile(r"""(?=[^\d]*\d)(?![$%])[^\s"'`()\[\]{}<>]{6,}""")
_SCHEME_CREDENTIAL = re.compile(r"[ \t]+([A-Za-z0-9._~+/=:-]+|\[REDACTED:[a-z_]+\])")
# A quoted value that is already a mask, possibly after its scheme.
_SCRUBBED = re.compile(r"(?:(?i:bearer|basic|token|digest)[ \t]+)?\[REDACTED:[a-z_]+\]")

# A handler gets the match and its marker group; it returns (replacement, resume) where the replacement stands
# for source[match.start():resume]. Resuming before match.end() rescans the rest (a value left unmasked).
_Result = tuple[str, int]


def _marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _mask(m: re.Match[str], group: int, kind: str) -> _Result:
    source = m.string
    return source[m.start() : m.start(group)] + _marker(kind), m.end(group)


def _keep(m: re.Match[str], resume: int) -> _Result:
    return m.string[m.start() : resume], resume


def _pem_end(source: str, pos: int) -> int:
    found = source.find("-----END", pos, pos + _PEM_SPAN)
    end = _PEM_END.match(source, found) if found >= 0 else None
    return end.end() if end is not None else _PEM_BODY.match(source, pos).end()  # type: ignore[union-attr]


def _token_end(source: str, pos: int) -> Optional[int]:
    """Where the token-shaped secret starting at ``pos`` ends, or None when none starts there."""
    token = _TOKEN_AT.match(source, pos)
    if token is None:
        return None
    return _pem_end(source, token.end()) if source.startswith("-----", pos) else token.end()


def _is_basic_credential(value: str) -> bool:
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in raw and all(32 <= byte < 127 for byte in raw)


def _at_line_start(m: re.Match[str]) -> bool:
    source = m.string
    line_start = source.rfind("\n", 0, m.start()) + 1
    return _LINE_PREFIX.fullmatch(source, line_start, m.start()) is not None


def _bare_is_secret(m: re.Match[str], header: bool, value: str, glued: bool, raw: str = "") -> bool:
    if header and _HEADER_VALUE.fullmatch(value):  # `x-vault-token: s.Abc123…` is not `self.attr`
        return True
    # `raw` is the value before it was cut at `,name=` or trailing punctuation: `f(a,b=1)`, `f(g(x),` are calls.
    if _CODE_LIKE.fullmatch(value) or _is_call(value) or _is_call(raw) or _passes_itself(m, value):
        return False
    if glued:  # `password=hunter2`, `?token=abc`: no prose or code looks like this
        return True
    # `key: value` / `key = value` only counts at the start of a line (YAML, env files), not in prose or code.
    return value not in _TYPE_NAMES and _at_line_start(m)


def _is_call(value: str) -> bool:
    head = _CALL_HEAD.match(value)
    if head is None:
        return False
    stack: list[str] = []
    for ch in value[head.end() :]:
        if ch in "([{":
            stack.append(ch)
        elif ch in _CLOSE:
            if not stack or stack.pop() != _CLOSE[ch]:
                return False
        elif not stack:
            if not (ch.isalnum() or ch in "_."):  # between groups: `.attr` accessors only
                return False
        elif ch not in _CALL_ARGS:
            return False
    # Unclosed only as a call continued on the next line: `get_password(`, `connect(host,`.
    return not stack or value[-1] in "([{,"


def _passes_itself(m: re.Match[str], value: str) -> bool:
    """`Client(api_key=api_key, token=token)`: a keyword argument passed the variable of its own name."""
    source = m.string
    start = m.start()
    while start and (source[start - 1].isalnum() or source[start - 1] in "_.-"):
        start -= 1
    end = m.start()
    while end < len(source) and (source[end].isalnum() or source[end] in "_-"):
        end += 1
    key = source[start:end].lower()
    return value.rstrip(")").lower() in (key, key.rsplit(".", 1)[-1])


def _is_header(m: re.Match[str], g: int) -> bool:
    # `x-api-key`, `api-key`, `Authorization` (not `my_api-key`); `x-vault-token`, `x-client-secret` (after `-`).
    source, start = m.string, m.start()
    word = source[start : m.end(g + 1)].lower()
    before = source[start - 1] if start else " "
    if word in _HEADER_SUFFIXES:
        return before == "-"
    return word in _HEADER_WORDS and not (before.isalnum() or before == "_")


def _pair(m: re.Match[str], g: int) -> _Result:
    """`key: value`, `key=value`, `"key": "value"` for a sensitive key or a secret header name."""
    source = m.string
    # The branch's groups: 1 the key word (after its first letter), 2 space, 3 separator, 4 space,
    # 5 "double", 6 'single', 7 bare value.
    quoted = g + 5 if m.start(g + 5) >= 0 else g + 6 if m.start(g + 6) >= 0 else None
    if quoted is not None:
        start, end = m.span(quoted)
        if _SCRUBBED.fullmatch(m.group(quoted)):  # `"[REDACTED:jwt]"`, `"Bearer [REDACTED:bearer]"`
            return _keep(m, m.end())
        token_end = _token_end(source, start)
        if token_end is not None and token_end >= end:
            return _keep(m, start)  # the token's own pattern masks it, with its own kind
        return _mask(m, quoted, "secret")[0] + source[end : m.end()], m.end()
    bare = g + 7
    start, end = m.span(bare)
    cut = _NEXT_PARAM.search(source, start, end)
    if cut is not None:
        end = cut.start()
    trailing = _TRAILING.search(source, start, end)
    if trailing is not None and trailing.start() > start:
        end = trailing.start()
    value = source[start:end]
    header = _is_header(m, g)
    glued = m.group(g + 3) == "=" and not m.group(g + 2) and not m.group(g + 4)
    if value.lower() in _SCHEMES:
        credential = _SCHEME_CREDENTIAL.match(source, end)
        if credential is not None:  # `x-auth-token: Bearer abc123`: mask the credential, keep the scheme
            if credential.group(1).startswith(MARKER_PREFIX):
                return _keep(m, credential.end())
            if _bare_is_secret(m, header, credential.group(1), glued=False):
                return source[m.start() : credential.start(1)] + _marker(value.lower()), credential.end()
            return _keep(m, start)
    token_end = _token_end(source, start)
    if token_end is not None and token_end >= end:
        return _keep(m, start)
    if _bare_is_secret(m, header, value, glued, m.group(bare)):
        return source[m.start() : start] + _marker("secret"), end
    return _keep(m, start)  # not a secret by position; a token-shaped secret inside is still found


def _replace(m: re.Match[str]) -> _Result:
    g, kind = next((g, kind) for g, kind in _MARKERS if m.start(g) >= 0)
    if kind == "private_key":
        return _marker(kind), _pem_end(m.string, m.end())
    if kind in _TOKEN_KINDS:
        return _marker(kind), m.end()
    if kind == "url_password":
        if m.group(g + 1).startswith(MARKER_PREFIX):
            return _keep(m, m.end())
        return _mask(m, g + 1, "url_password")
    if kind == "authorization":
        return _mask(m, g + 2, m.group(g + 1).lower())
    if kind == "bearer":
        return _mask(m, g + 1, "bearer")
    if kind == "basic":
        if _is_basic_credential(m.group(g + 1)):
            return _mask(m, g + 1, "basic")
        return _keep(m, m.start(g + 1))
    return _pair(m, g)


def scrub_text(text: str) -> str:
    """Return ``text`` with each secret replaced by ``[REDACTED:kind]``; applying it twice changes nothing."""
    search = _PATTERN.search
    m = search(text)
    if m is None:
        return text
    parts = []
    pos = 0
    while m is not None:
        replacement, resume = _replace(m)
        parts.append(text[pos : m.start()])
        parts.append(replacement)
        pos = resume
        m = search(text, pos)
    parts.append(text[pos:])
    return "".join(parts)


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
    if rest and scheme.lower() in _SCHEMES:
        return f"{scheme} {_marker(scheme.lower())}"
    return _marker("secret")


def default_redactor(value: Any, context: Optional[Any] = None) -> Any:
    """Redact function for a stash or recorder: scrub every value and input before it is stored."""
    return scrub_value(value)
