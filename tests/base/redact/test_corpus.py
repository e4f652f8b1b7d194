"""One secrets corpus (tests/data/secrets_corpus.jsonl) for every entry point of the one rule set, and a property test.

The core (`agentctx.base.redact`) and the stash library (`agentctx.stash.redact`, which imports nothing from the core)
share one implementation; the corpus runs through both names, and a test proves they are the same code.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from urllib.parse import quote

import pytest

import agentctx.base.redact as core
import agentctx.stash.redact as stash

CORPUS_PATH = Path(__file__).parents[2] / "data" / "secrets_corpus.jsonl"
CORPUS = [json.loads(line) for line in CORPUS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]
SCRUBBERS = {"core": core.scrub_text, "stash": stash.scrub_text}


def test_corpus_shape():
    ids = [case["id"] for case in CORPUS]
    assert len(ids) == len(set(ids))
    positives = [c for c in CORPUS if c["expect"] != c["text"]]
    negatives = [c for c in CORPUS if c["expect"] == c["text"]]
    assert len(positives) >= 50 and len(negatives) >= 30
    kinds = {k for c in positives for k in _kinds(c["expect"])}
    assert kinds >= {"anthropic_key", "openai_key", "aws_access_key", "github_token", "gitlab_token", "slack_token",
                     "slack_webhook", "stripe_key", "google_api_key", "jwt", "private_key", "npm_token", "pypi_token",
                     "bearer", "basic", "url_password", "secret"}


def _kinds(text: str) -> set[str]:
    out, pos = set(), 0
    while (pos := text.find("[REDACTED:", pos)) >= 0:
        end = text.find("]", pos)
        out.add(text[pos + 10:end])
        pos = end
    return out


@pytest.mark.parametrize("where", sorted(SCRUBBERS))
@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_corpus_case(case, where):
    scrub = SCRUBBERS[where]
    out = scrub(case["text"])
    assert out == case["expect"]
    assert scrub(out) == out  # idempotent


@pytest.mark.parametrize("case", [c for c in CORPUS if c["expect"] != c["text"]], ids=lambda c: c["id"])
def test_corpus_through_values_and_the_stash_redactor(case):
    # The same text inside a JSON-like value, as a stash recording and the MCP layer see it.
    value = {"messages": [{"content": case["text"]}], "n": 1}
    for redact in (core.scrub_value, stash.scrub_value, lambda v: stash.default_redactor(v, None)):
        assert redact(value) == {"messages": [{"content": case["expect"]}], "n": 1}


def test_core_and_stash_share_one_rule_set():
    # One copy of the rules: the core's names are the stash's functions, so the two can never disagree.
    assert core.scrub_text is stash.scrub_text
    assert core.scrub_value is stash.scrub_value
    assert core.is_sensitive_key is stash.is_sensitive_key
    # ... and the stash module stays stdlib-only and independent of the rest of agentctx.
    source = Path(stash.__file__).read_text(encoding="utf-8")
    assert "from .." not in source and "import agentctx" not in source


def test_capture_uses_the_shared_rules():
    from agentctx.memory import capture

    for case in CORPUS:
        assert capture.scrub_text(case["text"]) == case["expect"], case["id"]


# --- property test: random secrets with every special character, in every assignment form ----------------------
# Seeded (stdlib only, reproducible): a failure prints the seed and the case. A value counts as a secret when it is
# 8-40 characters of printable ASCII other than whitespace and quotes, starts with three letters or digits and
# then a punctuation mark other than `.`, `(` and `[` (so it is not code such as `get()`, `a.b`, `x[0]`, `${X}`),
# and holds no `&name=` / `;name=` / `,name=` (which separates parameters: the rest is its own assignment) and
# does not end in `,` or `;` (read as the sentence's or statement's punctuation).

SPECIALS = "!#$%&()*+,-./:;<=>?@[\\]^_{|}~"
BODY = string.ascii_letters + string.digits + SPECIALS * 2
KEYS = ["PASSWORD", "DB_PASSWORD", "SMTP_PASSWORD", "API_KEY", "GITHUB_TOKEN", "CLIENT_SECRET", "DB_PASS",
        "AWS_SECRET_ACCESS_KEY", "passphrase", "auth_token"]
SEEDS = range(2000)


def _secret(rng: random.Random) -> str:
    while True:
        head = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(3))
        head += rng.choice([c for c in SPECIALS if c not in ".(["])
        value = head + "".join(rng.choice(BODY) for _ in range(rng.randint(4, 36)))
        if value[-1] in ",;":
            continue
        if any(value[i] in "&;," and _starts_assignment(value, i + 1) for i in range(len(value))):
            continue
        return value


def _starts_assignment(value: str, i: int) -> bool:
    j = i
    if j >= len(value) or not (value[j].isalpha() or value[j] == "_"):
        return False
    while j < len(value) and (value[j].isalnum() or value[j] in "_.-"):
        j += 1
    return j < len(value) and value[j] == "="


def _forms(key: str, v: str) -> list[tuple[str, str]]:
    masked = "[REDACTED:secret]"
    dq = v.replace("\\", "\\\\").replace('"', '\\"')
    return [
        (f"{key}={v}", f"{key}={masked}"),
        (f"export {key}={v}\nnext line", f"export {key}={masked}\nnext line"),
        (f"  {key.lower()}: {v}", f"  {key.lower()}: {masked}"),
        (f'{key}="{dq} and more"', f'{key}="{masked}"'),
        (f"{key}='{v} x'", f"{key}='{masked}'"),
        (json.dumps({key.lower(): v}), json.dumps({key.lower(): masked})),
        (f"docker run -e {key}={v} img", f"docker run -e {key}={masked} img"),
        (f"postgres://app:{quote(v, safe='!$&()*+,;=:')}@db:5432/x", "postgres://app:[REDACTED:url_password]@db:5432/x"),
    ]


@pytest.mark.parametrize("where", sorted(SCRUBBERS))
def test_property_random_secrets_leave_no_tail(where):
    scrub = SCRUBBERS[where]
    for seed in SEEDS:
        rng = random.Random(seed)
        value = _secret(rng)
        key = rng.choice(KEYS)
        for text, expect in _forms(key, value):
            out = scrub(text)
            assert out == expect, f"seed {seed}: {text!r} -> {out!r}"
            assert scrub(out) == out, f"seed {seed}"
        assert core.scrub_value({key.lower(): value}) == {key.lower(): "[REDACTED:secret]"}


def test_property_random_ordinary_code_is_untouched():
    # Negative property: assignments whose right-hand side is code keep every character.
    rng = random.Random(7)
    names = ["password", "token", "secret", "api_key", "db_password"]
    for _ in range(300):
        ident = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 8)))
        rhs = rng.choice([f"get_{ident}()", f"os.environ['{ident.upper()}']", f"self.{ident}", f"${{{ident.upper()}}}",
                          "None", f"settings.{ident}.value", f"{ident}({ident}, x=1)", "null"])
        text = f"{rng.choice(names)} = {rhs}{rng.choice(['', ';', ','])}"
        assert core.scrub_text(text) == text
