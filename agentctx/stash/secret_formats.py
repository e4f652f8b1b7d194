"""The secret formats `redact` knows: secret key and header names, and the shapes of vendor tokens.

Data for `agentctx.stash.redact`, which compiles it into one pattern. A new format is a line here and a case in
the shared corpus (`tests/data/secrets_corpus.jsonl`).
"""

from __future__ import annotations

import re

# Key names whose value is a secret, in assignments (`password=…`) and in mappings ({"api_key": …}).
KEY_WORDS = (
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
    "signing_key",
    "encryption_key",
    "master_key",
    "accountkey",
    "sharedaccesskey",
    "_pass",
)
SENSITIVE_KEY = re.compile(
    r"(?i)^(?:[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|auth[_-]?token|credentials?|signing[_-]?key|encryption[_-]?key|master[_-]?key"
    r"|account[_-]?key|shared[_-]?access[_-]?key|[_-]pass)|authorization|proxy-authorization"
    r"|cookie|set-cookie|x-api-key)$"
)
# Header names whose value is a credential wherever the header appears (`curl -H 'x-api-key: …'`). Matched from
# the word itself, so prefixed forms (`x-api-key`, `x-goog-api-key`, `proxy-authorization`) are covered too.
HEADER_WORDS = (
    "api-key",
    "apikey",
    "api-token",
    "auth-token",
    "access-token",
    "authorization",
    "private-token",
    "security-token",
)
# Generic header suffixes, only counted after a hyphen: `x-vault-token`, `x-csrf-token`, `x-client-secret`.
HEADER_SUFFIXES = ("token", "secret")


def edge(chars: str, width: int) -> str:
    """A word-boundary check on the character before a match whose first ``width`` characters are consumed.

    Passes when that character is not in ``chars``, or when it ends a JSON/C escape (``\\n``, ``\\t``) or a
    %-escape (``%3D``), so a token right after ``"…\\nsk-ant-…"`` or ``?key%3Dsk-…`` is still found."""
    pad = "." * width
    return rf"(?:(?<![{chars}]{pad})|(?<=\\[nrt]{pad})|(?<=%[0-9A-Fa-f]{{2}}{pad}))"


# A private key's BEGIN line (its end is found by `redact._pem_end`).
PEM_LABEL = r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
# (kind, first characters, rest): every branch of the combined pattern starts with one case-sensitive literal
# character, which lets the regex engine skip most offsets without entering the alternation. Boundary checks
# sit after the branch's distinctive literal prefix, so they only run when that prefix is there.
TOKEN_BRANCHES: list[tuple[str, str, str]] = [
    ("private_key", "-", PEM_LABEL[1:]),
    ("anthropic_key", "s", r"k-ant-" + edge("A-Za-z0-9_-", 7) + r"[A-Za-z0-9_-]{10,}"),
    (
        "openai_key",
        "s",
        r"k-" + edge("A-Za-z0-9_-", 3) + r"(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}",
    ),
    ("aws_access_key", "A", r"(?:KIA|SIA)" + edge("A-Za-z0-9", 4) + r"[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("github_token", "g", r"h[pousr]_" + edge("A-Za-z0-9_", 4) + r"[A-Za-z0-9]{30,}"),
    ("github_token", "g", r"ithub_pat_" + edge("A-Za-z0-9_", 11) + r"[A-Za-z0-9_]{22,}"),
    ("slack_token", "x", r"ox[a-z]-" + edge("A-Za-z0-9_", 5) + r"[A-Za-z0-9-]{10,}"),
    ("slack_token", "x", r"app-" + edge("A-Za-z0-9_", 5) + r"\d-[A-Za-z0-9-]{10,}"),
    ("google_api_key", "A", r"Iza" + edge("A-Za-z0-9_", 4) + r"[0-9A-Za-z_-]{35}"),
    ("jwt", "e", r"yJ" + edge("A-Za-z0-9_", 3) + r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    # Stripe secret and restricted keys, live and test (`pk_…` publishable keys are public by design), webhooks.
    ("stripe_key", "s", r"k_(?:live|test)_" + edge("A-Za-z0-9_", 8) + r"[0-9A-Za-z]{16,}"),
    ("stripe_key", "r", r"k_(?:live|test)_" + edge("A-Za-z0-9_", 8) + r"[0-9A-Za-z]{16,}"),
    ("stripe_key", "w", r"hsec_" + edge("A-Za-z0-9_", 6) + r"[A-Za-z0-9+/]{24,}"),
    ("gitlab_token", "g", r"lpat-" + edge("A-Za-z0-9_", 6) + r"[0-9A-Za-z_-]{20,}"),
    ("gitlab_token", "g", r"lptt-" + edge("A-Za-z0-9_", 6) + r"[0-9a-f]{40}"),
    ("gitlab_token", "g", r"ldt-" + edge("A-Za-z0-9_", 5) + r"[0-9A-Za-z_-]{20,}"),
    ("slack_webhook", "h", r"ooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}"),
    ("npm_token", "n", r"pm_" + edge("A-Za-z0-9_", 4) + r"[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("pypi_token", "p", r"ypi-AgEIcHlwaS5vcmc" + edge("A-Za-z0-9_", 20) + r"[A-Za-z0-9_-]{40,}"),
    (
        "huggingface_token",
        "h",
        r"f_" + edge("A-Za-z0-9_", 3) + r"(?=[a-z]{0,33}[A-Z])(?=[A-Z]{0,33}[a-z])[A-Za-z]{34}(?![A-Za-z0-9_])",
    ),
    ("sendgrid_key", "S", r"G\." + edge("A-Za-z0-9_", 3) + r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("google_oauth", "y", r"a29\." + edge("A-Za-z0-9_", 5) + r"[0-9A-Za-z_-]{20,}"),
    ("digitalocean_token", "d", r"o[opr]_v1_" + edge("A-Za-z0-9_", 7) + r"[a-f0-9]{64}"),
    ("shopify_token", "s", r"hp(?:at|ss|ca|pa)_" + edge("A-Za-z0-9_", 6) + r"[a-fA-F0-9]{32}"),
]
