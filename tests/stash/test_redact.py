"""Tests for the shared secret scrubber."""

from __future__ import annotations

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
