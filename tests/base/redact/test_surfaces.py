"""Every surface where text is stored or sent runs the shared scrubber: a secret with `&`, `;` and `,` in it and a
Stripe live key, planted on each surface, are found nowhere afterwards (database file, WAL, exports, stash files)."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

from agentctx import cli
from agentctx.base import paths
from agentctx.claude import setup
from agentctx.mcp.handlers import ToolContext
from agentctx.base.project import detect
from agentctx.store import records

SPECIAL = "Xy9!abcdefghij&KLMNOPQRST;q"  # the reported value: its tail `&KLMNOPQRST;q` used to survive
STRIPE = "sk_live_" + "51HxYzAbCdEfGhIjKlMnOpQr"
TAILS = ("KLMNOPQRST", "abcdefghij", "51HxYzAbCdEfGhIjKlMnOpQr")


def _leaks(blob: str | bytes) -> list[str]:
    text = blob.decode("utf-8", "replace") if isinstance(blob, bytes) else blob
    return [t for t in TAILS if t in text]


def _store_bytes() -> bytes:
    out = b""
    for suffix in ("", "-wal"):
        path = str(paths.db_path()) + suffix
        if os.path.exists(path):
            with open(path, "rb") as fh:
                out += fh.read()
    return out


@pytest.fixture
def ready(repo):
    setup.initialize()
    return repo


def test_cli_record_title_and_body_are_scrubbed(ready, capsys):
    rc = cli.main(["-C", str(ready), "record", "--type", "decision", "--title", f"SMTP_PASSWORD={SPECIAL}",
                   "--body", f"deploy with SMTP_PASSWORD={SPECIAL} and {STRIPE}"])
    assert rc == 0, capsys.readouterr().err
    rid = capsys.readouterr().out.strip()
    assert cli.main(["-C", str(ready), "supersede", rid, "--body", f"now STRIPE_KEY={STRIPE}",
                     "--title", "Deploy with the Stripe key", "--rationale", f"rotated PASSWORD={SPECIAL}"]) == 0
    capsys.readouterr()
    assert _leaks(_store_bytes()) == []
    assert cli.main(["-C", str(ready), "export"]) == 0
    exported = capsys.readouterr().out
    assert "[REDACTED:" in exported and _leaks(exported) == []


def test_mcp_record_and_supersede_are_scrubbed(ready):
    from agentctx.mcp.server import serve

    ctx = ToolContext(project=detect(ready))

    def call(name, arguments):
        line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments}}).encode() + b"\n"
        out = io.BytesIO()
        serve(io.BytesIO(line), out, ctx)
        result = json.loads(out.getvalue())["result"]
        assert result["isError"] is False, result
        return result["structuredContent"]

    try:
        made = call("ctx_record", {"type": "decision", "title": f"key {STRIPE}",
                                   "body": f"SMTP_PASSWORD={SPECIAL}"})
        call("ctx_supersede", {"old_id": made["id"], "new_body": f"DB_PASSWORD={SPECIAL}",
                               "rationale": f"rotated {STRIPE}"})
    finally:
        ctx.close()
    assert _leaks(_store_bytes()) == []


def test_records_written_by_any_caller_are_scrubbed(ready, conn):
    # The store itself scrubs (capture, extraction, consolidation and imports all write through records.insert).
    from agentctx.base.models import NewRecord

    pid = detect(ready).id
    rec, _ = records.insert(conn, NewRecord(type="discovery", title=f"uses {STRIPE}", body=f"PASSWORD={SPECIAL}",
                                            project_id=pid, confidence="inferred", source="llm_extraction"))
    assert rec.title == "uses [REDACTED:stripe_key]" and rec.body == "PASSWORD=[REDACTED:secret]"
    assert _leaks(_store_bytes()) == []


def test_post_tool_use_capture_is_scrubbed(ready, conn, hook):
    payload = {"session_id": "s", "cwd": str(ready), "tool_name": "Bash",
               "tool_input": {"command": f"SMTP_PASSWORD={SPECIAL} STRIPE={STRIPE} pytest -q"},
               "tool_response": {"stdout": f"FAILED test_mail.py - login refused for SMTP_PASSWORD={SPECIAL}"}}
    hook("post-tool-use", payload)
    from agentctx.memory.capture import log_path

    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] >= 1
    assert _leaks(_store_bytes()) == []
    assert _leaks(open(log_path("s"), "rb").read()) == []


def test_export_scrubs_records_stored_before_the_rules_caught_them(ready, conn, invisible):
    # A record written by an older version (raw SQL: the API would scrub it) is masked on the way out.
    pid = detect(ready).id
    conn.execute("INSERT INTO records (id, project_id, type, title, body, scope, valid_from, recorded_at, source) "
                 "VALUES ('01OLDRECORD0000000000000000', ?, 'decision', ?, ?, 'project', '2026-01-01', "
                 "'2026-01-01', 'import')", (pid, f"key {STRIPE}", f"SMTP_PASSWORD={SPECIAL}"))
    conn.commit()
    from agentctx.team.export import to_markdown

    text = to_markdown("p", records.current(conn, pid))
    assert "[REDACTED:stripe_key]" in text and _leaks(text) == []


def test_stash_recordings_json_jsonl_midrun_and_cli_redact(tmp_path):
    from agentctx.stash import create_stash
    from agentctx.stash.cli import main as stash_main

    secret_value = {"env": f"SMTP_PASSWORD={SPECIAL}", "note": f"key {STRIPE}"}
    # .json recording with scrub_secrets, and with default_redactor as the user's redactor
    from agentctx.stash import default_redactor

    for name, kwargs in (("a.json", {"scrub_secrets": True}), ("b.json", {"redact": default_redactor})):
        stash = create_stash(path=tmp_path / name, **kwargs)
        stash.value("tool", "env", secret_value, input={"cmd": f"export PASSWORD={SPECIAL}"})
        stash.close()
        assert _leaks((tmp_path / name).read_bytes()) == [], name
    # .jsonl recording: the mid-run .partial file and the final file
    stash = create_stash(path=tmp_path / "c.jsonl", scrub_secrets=True)
    stash.value("tool", "env", secret_value)
    partial = tmp_path / "c.jsonl.partial"
    assert partial.exists() and _leaks(partial.read_bytes()) == []
    stash.close()
    assert _leaks((tmp_path / "c.jsonl").read_bytes()) == []
    # `agentctx stash redact` over a raw recording
    raw = create_stash(path=tmp_path / "raw.json")
    raw.value("tool", "env", secret_value)
    raw.close()
    out, err = io.StringIO(), io.StringIO()
    assert stash_main(["redact", str(tmp_path / "raw.json")], stdout=out, stderr=err) == 0
    assert "[REDACTED:" in out.getvalue() and _leaks(out.getvalue()) == []
    assert stash_main(["redact", str(tmp_path / "raw.json"), "-o", str(tmp_path / "r.jsonl")],
                      stdout=io.StringIO(), stderr=err) == 0
    assert _leaks((tmp_path / "r.jsonl").read_bytes()) == []


def test_hook_log_lines_are_scrubbed(ready):
    from agentctx import hooks

    hooks.log("Stop", f"failed on SMTP_PASSWORD={SPECIAL} with {STRIPE}")
    text = (paths.logs_dir() / "hooks.log").read_text(encoding="utf-8")
    assert "SMTP_PASSWORD=[REDACTED:secret]" in text and _leaks(text) == []


def test_extraction_log_lines_are_scrubbed(ready):
    from agentctx.extract.log import log

    log(f"call failed: 401 for key {STRIPE} while sending SMTP_PASSWORD={SPECIAL}")
    text = (paths.logs_dir() / "extract.log").read_text(encoding="utf-8")
    assert "[REDACTED:stripe_key]" in text and _leaks(text) == []


def test_the_scrubber_is_not_on_the_prompt_hot_path():
    # records.validate imports the scrubber lazily: the prompt hook's lean module set is guarded elsewhere
    # (tests/hooks/test_hot_path.py); here, importing the store's record module must not pull in `re` eagerly.
    import subprocess

    code = "import sys; import agentctx.store.records; print('agentctx.base.redact' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_consolidation_rescrubs_records_stored_before_a_rule_existed(ready, conn):
    from agentctx.memory import consolidate
    from agentctx.base import redact

    pid = detect(ready).id
    conn.execute("INSERT INTO records (id, project_id, type, title, body, scope, valid_from, recorded_at, source) "
                 "VALUES ('01OLDRECORD0000000000000000', ?, 'decision', ?, ?, 'project', '2026-01-01', "
                 "'2026-01-01', 'import')", (pid, f"key {STRIPE}", f"SMTP_PASSWORD={SPECIAL}"))
    conn.commit()
    report = consolidate.run(detect(ready))
    assert report["records_rescrubbed"] == 1
    rec = records.get(conn, "01OLDRECORD0000000000000000")
    assert (rec.title, rec.body) == ("key [REDACTED:stripe_key]", "SMTP_PASSWORD=[REDACTED:secret]")
    assert _leaks(_store_bytes()) == []  # gone from the file, the FTS index and the WAL, not only the row
    vocab = " ".join(r[0] for r in conn.execute("SELECT term FROM records_fts_vocab"))
    assert "klmnopqrst" not in vocab
    assert consolidate.run(detect(ready))["records_rescrubbed"] is None  # once per rule change
    assert (paths.state_dir() / "redaction-rules").read_text().strip() == redact.rules_id()


def test_a_prompt_is_stored_scrubbed_for_the_dashboard(ready, hook):
    """What the user asked is kept for the sessions view: with its secrets masked before it enters the store."""
    from agentctx.memory import pending
    from agentctx.store import db

    hook("user-prompt-submit", {"session_id": "sp", "cwd": str(ready),
                                "prompt": f"deploy fails with SMTP_PASSWORD={SPECIAL} and key {STRIPE}, why?"})
    conn = db.connect(paths.db_path())
    try:
        pending.drain_pending(conn)
        (text,) = conn.execute("SELECT text FROM prompts WHERE session_id = 'sp'").fetchone()
    finally:
        conn.close()
    assert text == "deploy fails with SMTP_PASSWORD=[REDACTED:secret] and key [REDACTED:stripe_key], why?"
    assert _leaks(_store_bytes()) == []


def test_consolidation_rescrubs_prompts_stored_before_a_rule_existed(ready, conn):
    from agentctx.memory import consolidate

    conn.execute("INSERT INTO prompts (session_id, project_id, prompt_hash, text, chars, created_at) "
                 "VALUES ('old', ?, 'h', ?, 40, '2026-01-01')", (detect(ready).id, f"use {STRIPE} here"))
    consolidate.run(detect(ready))
    assert conn.execute("SELECT text FROM prompts").fetchone()[0] == "use [REDACTED:stripe_key] here"
    assert _leaks(_store_bytes()) == []
