"""Tests for the shared secret scrubber."""

from __future__ import annotations

import json
import time

import pytest

from agentctx.stash.redact import default_redactor, is_sensitive_key, scrub_text, scrub_value

ANTHROPIC = "sk-ant-api03-" + "a1B2c3D4e5" * 8
OPENAI = "sk-" + "Z9y8X7w6V5u4T3s2R1q0" * 2
OPENAI_PROJ = "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90" * 2
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7v\nabcdEFGH==\n-----END RSA PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"key is {ANTHROPIC} ok", ANTHROPIC, "anthropic_key"),
        (f"export OPENAI={OPENAI}", OPENAI, None),
        (f"use {OPENAI} now", OPENAI, "openai_key"),
        (f"use {OPENAI_PROJ} now", OPENAI_PROJ, "openai_key"),
        ("id AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE", "aws_access_key"),
        ("id ASIAIOSFODNN7EXAMPLE here", "ASIAIOSFODNN7EXAMPLE", "aws_access_key"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "secret",
        ),
        (f"token {GITHUB}", GITHUB, "github_token"),
        ("gho_" + "x" * 36, "gho_" + "x" * 36, "github_token"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABCDEFG", "github_token"),
        ("xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij", "slack_token"),
        ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "google_api_key"),
        (f"cookie {JWT}", JWT, "jwt"),
        ("Authorization: Bearer abc.def-123_456", "abc.def-123_456", "bearer"),
        ("authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz", "basic"),
        ("curl -H 'Bearer abcdefghijklmnop1234'", "abcdefghijklmnop1234", "bearer"),
        ("postgres://alice:s3cr3t@db.example.com/app", "s3cr3t", "url_password"),
        ("PASSWORD=hunter2", "hunter2", "secret"),
        ("export GITHUB_TOKEN=abc123def456", "abc123def456", "secret"),
        ("  password = hunter2", "hunter2", "secret"),
        ("db_password: hunter2", "hunter2", "secret"),
        ('{"api_key": "abc123xyz"}', "abc123xyz", "secret"),
        ("secret='letmein99'", "letmein99", "secret"),
        ("https://x.io/cb?token=abcdef123&x=1", "abcdef123", "secret"),
        (f"before\n{PEM}\nafter", "MIIEowIBAAKCAQEA7v", "private_key"),
    ],
)
def test_scrub_text_masks_each_kind(text, secret, kind):
    out = scrub_text(text)
    assert secret not in out
    assert "[REDACTED:" in out
    if kind:
        assert f"[REDACTED:{kind}]" in out
    assert scrub_text(out) == out


def test_url_password_keeps_user_and_host():
    assert scrub_text("redis://bob:pw123@cache:6379/0") == "redis://bob:[REDACTED:url_password]@cache:6379/0"


def test_pem_block_replaced_whole():
    assert scrub_text(f"a\n{PEM}\nb") == "a\n[REDACTED:private_key]\nb"


def test_authorization_keeps_scheme():
    assert scrub_text("Authorization: Bearer abc123") == "Authorization: Bearer [REDACTED:bearer]"


@pytest.mark.parametrize(
    "text",
    [
        "Fill in the password field and submit.",
        "The task-management system uses risk-based scoring.",
        "pip install scikit-learn sk-learn",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b fixes it",
        "password = get_password()",
        "token = self.tokens[0]",
        "api_key = os.environ['KEY']",
        "secret: None",
        "max_tokens=1024",
        "http://localhost:8080/path@v2",
        "git@github.com:org/repo.git",
        "Bearer tokens are short-lived",
        "def check(password: str) -> bool:",
        "    password: str = ''",
        "    token: Optional[str] = None",
        "Enter your password: then press enter",
    ],
)
def test_ordinary_text_untouched(text):
    assert scrub_text(text) == text


def test_scrub_value_is_recursive_and_copies():
    original = {
        "headers": {"Authorization": "Bearer xyz", "x-api-key": "k1", "Accept": "json"},
        "messages": [{"content": f"my key {ANTHROPIC}"}],
        "password": "hunter2",
        "count": 3,
        "nested": ("a", OPENAI),
    }
    out = scrub_value(original)
    assert out["headers"] == {
        "Authorization": "Bearer [REDACTED:bearer]",
        "x-api-key": "[REDACTED:secret]",
        "Accept": "json",
    }
    assert ANTHROPIC not in out["messages"][0]["content"]
    assert out["password"] == "[REDACTED:secret]"
    assert out["count"] == 3
    assert out["nested"] == ("a", "[REDACTED:openai_key]")
    assert original["password"] == "hunter2"
    assert scrub_value(out) == out


def test_sensitive_keys():
    assert is_sensitive_key("api_key") and is_sensitive_key("Set-Cookie") and is_sensitive_key("DB_PASSWORD")
    assert not is_sensitive_key("max_tokens") and not is_sensitive_key("name")


def test_default_redactor_matches_scrub_value():
    assert default_redactor({"token": "abc"}, None) == {"token": "[REDACTED:secret]"}


def test_scrub_is_fast_on_100kb():
    text = ("ordinary log line with path /usr/lib and value=42 " * 2000)[:100_000]
    start = time.perf_counter()
    scrub_text(text)
    assert time.perf_counter() - start < 0.5


# --- every secret kind in several contexts -------------------------------------------------------------------
# Each case is (text, secret, kind): the scrubbed text must be exactly `text` with `secret` replaced by
# `[REDACTED:kind]`, so the context around it (header names, quotes, URLs, JSON escapes) survives untouched.

ASIA = "ASIAY34FZKBOKMUTVV7A"
AKIA = "AKIAIOSFODNN7EXAMPLE"
GHO = "gho_" + "Q1w2E3r4T5y6U7i8O9p0" * 2
GHU = "ghu_" + "Z1x2C3v4B5n6M7a8S9d0" * 2
GHS = "ghs_" + "P0o9I8u7Y6t5R4e3W2q1" * 2
GHR = "ghr_" + "L1k2J3h4G5f6D7s8A9z0" * 2
GITHUB_PAT = "github_pat_11AAAAAAA0" + "abcdefGHIJ_klmnop1234" * 3
SLACK_BOT = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"
SLACK_USER = "xoxp-2222222222-3333333333-abcdefabcdef"
GOOGLE = "AIzaSyD" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
assert len(GOOGLE) == 39
BEARER = "ya29.A0ARrdaM-abcdefghij1234567890"
BASIC = "YWxpY2U6czNjcjN0LXB3"  # base64("alice:s3cr3t-pw")
TRUNCATED_PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE"  # output cut before the END line
PEM_JSON = json.dumps(PEM)[1:-1]  # the block as it appears inside a JSON string: literal \n escapes

CONTEXT_CASES = [
    # Anthropic keys: the reported curl header, JSON, env file, URL, mid-sentence, after a JSON escape
    (f"curl -H 'x-api-key: {ANTHROPIC}' https://api.anthropic.com/v1/messages", ANTHROPIC, "anthropic_key"),
    (f'curl -H "X-Api-Key: {ANTHROPIC}" -d @body.json', ANTHROPIC, "anthropic_key"),
    (json.dumps({"headers": {"x-api-key": ANTHROPIC}}), ANTHROPIC, "anthropic_key"),
    (f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC, "anthropic_key"),
    (f"I pasted my key {ANTHROPIC}, sorry", ANTHROPIC, "anthropic_key"),
    (json.dumps({"text": f"line one\n{ANTHROPIC}\nline two"}), ANTHROPIC, "anthropic_key"),
    (f"GET https://proxy.example/v1?key%3D{ANTHROPIC}&x=1", ANTHROPIC, "anthropic_key"),
    (f"echo token: {ANTHROPIC} >> log", ANTHROPIC, "anthropic_key"),
    # OpenAI keys
    (f'curl -H "Authorization: Bearer {OPENAI}" https://api.openai.com', OPENAI, "bearer"),
    (f'{{"api_key": "{OPENAI_PROJ}"}}', OPENAI_PROJ, "openai_key"),
    (f"export OPENAI_API_KEY={OPENAI_PROJ}", OPENAI_PROJ, "openai_key"),
    (f"the client used ({OPENAI}) for the call", OPENAI, "openai_key"),
    (f"openai: key: {OPENAI_PROJ} # prod", OPENAI_PROJ, "openai_key"),
    # AWS access key ids
    (f"aws_access_key_id = {AKIA}", AKIA, "aws_access_key"),
    (f"https://sts.example.com/?Action=x&AccessKeyId={ASIA}&Version=1", ASIA, "aws_access_key"),
    (json.dumps({"AccessKeyId": ASIA, "Expiration": "2024"}), ASIA, "aws_access_key"),
    (f"The key {AKIA} was rotated.", AKIA, "aws_access_key"),
    # GitHub tokens, every prefix
    (f"git clone https://{GITHUB}@github.com/org/repo.git", GITHUB, "github_token"),
    (f"GH_TOKEN={GHO} gh pr list", GHO, "github_token"),
    (f'{{"token": "{GHU}"}}', GHU, "github_token"),
    (f"Authorization: token {GHS}", GHS, "token"),
    (f"refresh with {GHR} then retry", GHR, "github_token"),
    (f"key: `{GITHUB_PAT}`", GITHUB_PAT, "github_token"),
    # Slack tokens
    (f"SLACK_BOT_TOKEN={SLACK_BOT}", SLACK_BOT, "slack_token"),
    (f'curl -d "token={SLACK_USER}&channel=C1" https://slack.com/api/chat.postMessage', SLACK_USER, "slack_token"),
    (json.dumps({"slack": {"bot": SLACK_BOT}}), SLACK_BOT, "slack_token"),
    # Google API keys
    (f"https://maps.googleapis.com/maps/api/geocode/json?address=x&key={GOOGLE}", GOOGLE, "google_api_key"),
    (f'curl -H "x-goog-api-key: {GOOGLE}" https://generativelanguage.googleapis.com', GOOGLE, "google_api_key"),
    (f"GOOGLE_API_KEY: {GOOGLE}", GOOGLE, "google_api_key"),
    # JWTs
    (f"Cookie: session={JWT}; path=/", JWT, "jwt"),
    (json.dumps({"kind": "id", "note": f"jwt is {JWT}"}), JWT, "jwt"),
    (f"https://app.example.com/callback#access_token={JWT}&state=1", JWT, "jwt"),
    # PEM private keys: whole block, inside YAML, inside a JSON string, truncated output
    (f"key file:\n{PEM}\nend", PEM, "private_key"),
    (f"private_key: {PEM}", PEM, "private_key"),
    (json.dumps({"private_key": PEM, "type": "service_account"}), PEM_JSON, "private_key"),
    (f"cat id_ed25519\n{TRUNCATED_PEM}", TRUNCATED_PEM, "private_key"),
    # Bearer and Basic credentials
    (f'curl -H "Authorization: Bearer {BEARER}" https://api', BEARER, "bearer"),
    (f"sent Bearer {BEARER} upstream", BEARER, "bearer"),
    (json.dumps({"Authorization": f"Bearer {BEARER}"}), BEARER, "bearer"),
    (f'curl -H "x-auth-token: Bearer 9f8e7d6c" https://api', "9f8e7d6c", "bearer"),
    (f"Authorization: Basic {BASIC}", BASIC, "basic"),
    (f"then the proxy sent Basic {BASIC} again", BASIC, "basic"),
    (f'curl -H "Proxy-Authorization: Basic {BASIC}" https://x', BASIC, "basic"),
    # secret headers with values that are not token-shaped, mid-line
    ('curl -H "api-key: 0f9e8d7c6b5a4" https://x', "0f9e8d7c6b5a4", "secret"),
    ("curl -H 'x-auth-token: 9f8e7d6c5b4a' https://x", "9f8e7d6c5b4a", "secret"),
    ('curl -H "X-Vault-Token: s.Q1w2E3r4T5y6" https://vault', "s.Q1w2E3r4T5y6", "secret"),
    ('curl --header "PRIVATE-TOKEN: glpat-abc123xyz" https://gitlab', "glpat-abc123xyz", "secret"),
    ("requests.get(url, headers={'x-api-key': 'plainvalue'})", "plainvalue", "secret"),
    # passwords in URLs
    ("git push https://bob:hunter2-very-secret@git.example.com/r.git", "hunter2-very-secret", "url_password"),
    ("REDIS_URL=redis://:Zz9yY8xX7@cache:6379/0", "Zz9yY8xX7", "url_password"),
    (json.dumps({"dsn": "postgresql://app:pa55word@db/app"}), "pa55word", "url_password"),
    # assignments whose values are not token-shaped
    ("DB_PASSWORD=correct-horse-battery", "correct-horse-battery", "secret"),
    ("- password: hunter2", "hunter2", "secret"),
    ("mysql --password=Tr0ub4dor --host db", "Tr0ub4dor", "secret"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), CONTEXT_CASES)
def test_secret_masked_in_every_context(text, secret, kind):
    assert secret in text
    out = scrub_text(text)
    assert out == text.replace(secret, f"[REDACTED:{kind}]")
    assert scrub_text(out) == out


def test_context_table_covers_every_kind():
    kinds = {kind for _, _, kind in CONTEXT_CASES}
    assert len(CONTEXT_CASES) >= 40
    assert kinds >= {"anthropic_key", "openai_key", "aws_access_key", "github_token", "slack_token",
                     "google_api_key", "jwt", "private_key", "bearer", "basic", "url_password", "secret"}


NOT_SECRETS = [
    "Fill in the password field and submit.",
    "token = get_token()",
    "def check(password: str) -> bool:",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixes it",
    "request 123e4567-e89b-12d3-a456-426614174000 finished",
    "x-request-id: 123e4567-e89b-12d3-a456-426614174000",
    "data: SGVsbG8sIHdvcmxkISBUaGlzIGlzIG9yZGluYXJ5IGRhdGEu",
    "payload = base64.b64encode(b'hello world') # aGVsbG8gd29ybGQ=",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Basic authentication is simple; Basic usage: run it",
    "Bearer tokens are short-lived and the token: Bearer tokens expire",
    "the risk-assessment-2024-final-version doc and task-ant-colony-2024",
    "Set the api-key: header to your key",
    "headers = {'x-api-key': api_key, 'Accept': 'json'}",
    '{"x-api-key": api_key, "n": 1}',
    'curl -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com',
    "max-tokens: 4096 and max_tokens=1024",
    "password = os.environ['DB_PASSWORD']",
    "token=${GITHUB_TOKEN} ./deploy.sh",
    "AKIA is the prefix of AWS key ids; eyJ starts base64 JSON; ghp_ marks a GitHub token",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    "see http://localhost:8080/path@v2 or git@github.com:org/repo.git",
    "api_key: Optional[str] = None",
    "The user said: my password is in the vault.",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_not_secrets_untouched(text):
    assert scrub_text(text) == text


def test_capture_token_pass_leaves_masks_alone():
    # agentctx.memory.capture re-scrubs whitespace-separated tokens; each token of a scrubbed text is already stable.
    out = scrub_text(f"curl -H 'x-api-key: {ANTHROPIC}' -H 'Authorization: Bearer {BEARER}' https://u:pw@h/")
    assert all(scrub_text(token) == token for token in out.split())


def test_a_literal_mask_does_not_shield_a_secret():
    assert scrub_text('{"password": "[REDACTED:x] hunter2"}') == '{"password": "[REDACTED:secret]"}'


def test_pem_split_over_string_literals_is_masked_through_its_end_line():
    code = (
        'KEY = ("-----BEGIN RSA PRIVATE KEY-----\\n"\n       "MIIEowIBAAKCAQEA7v\\n"\n'
        '       "-----END RSA PRIVATE KEY-----")'
    )
    assert scrub_text(code) == 'KEY = ("[REDACTED:private_key]")'


def test_many_unterminated_pem_headers_stay_linear():
    text = ("-----BEGIN RSA PRIVATE KEY-----. " * 3000)[:100_000]
    start = time.perf_counter()
    scrub_text(text)
    assert time.perf_counter() - start < 0.5
