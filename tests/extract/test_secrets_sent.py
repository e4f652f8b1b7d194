"""Nothing sent to the Messages API carries a secret: the transcript, the existing records' titles, the handover."""

from __future__ import annotations

import json

from agentctx.extract import execute
from extract_support import FakeClient, answer, message

SPECIAL = "Xy9!abcdefghij&KLMNOPQRST;q"
STRIPE = "sk_live_" + "51HxYzAbCdEfGhIjKlMnOpQr"
TAILS = ("KLMNOPQRST", "51HxYzAbCdEfGhIjKlMnOpQr")


def test_request_bodies_carry_no_secret(conn, pid, writer, project_dir):
    # Records written by an older version (raw SQL: today's store would scrub them) appear in the list of
    # existing records and as the current handover, both of which are sent with every call.
    for rid, type_, title, body in (("01OLDREC000000000000000001", "decision", f"Stripe key {STRIPE}", "b"),
                                    ("01OLDREC000000000000000002", "handover", "Handover",
                                     f"next: log in with SMTP_PASSWORD={SPECIAL}")):
        conn.execute("INSERT INTO records (id, project_id, type, title, body, scope, valid_from, recorded_at, source) "
                     "VALUES (?, ?, ?, ?, ?, 'project', '2026-01-01', '2026-01-01', 'import')",
                     (rid, pid, type_, title, body))
    conn.commit()
    writer.turn(f"the mail server wants SMTP_PASSWORD={SPECIAL} and billing uses {STRIPE}", "Noted.")
    client = FakeClient(lambda kw: message(answer()))
    result = execute("s1", writer.path, cwd=str(project_dir), client=client)
    assert result.calls == 1, result
    sent = json.dumps(client.calls, ensure_ascii=False)
    assert "[REDACTED:stripe_key]" in sent and "SMTP_PASSWORD=[REDACTED:secret]" in sent
    assert [t for t in TAILS if t in sent] == []
