"""A realistic store for the dashboard's screenshots: a week of work on an invoicing service, made by the real hooks.

Records are what a team would have decided, found and fixed in such a repository (not lorem ipsum); sessions are
played through agentctx's own hooks in-process (SessionStart, UserPromptSubmit, PostToolUse, SessionEnd) and
consolidation, so what the dashboard shows (digests carried, prompts kept and scrubbed, injections, near misses,
files linked to records) comes from the same code paths as in real use. A clock is patched in so the week has dates.

    python tools/ui_demo.py DIR     # seed DIR (HOME and AGENTCTX_HOME point there) and print the project id

`tools/ui_screenshots.py` imports `seed` and photographs each view.
"""

from __future__ import annotations

import io
import json
import os
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CLAUDE_MD = """# invoicing

Invoicing service for Acme's business customers: FastAPI, PostgreSQL, Celery.

## Development

- Run the tests with `pytest`; they use SQLite locally.
- Money is stored as integer cents (`amount_cents`), never floats.
- Invoice PDFs are rendered with ReportLab in `app/pdf/render.py`.
"""

# (type, title, body, source, confidence) recorded in January and February, before the week the sessions play.
EARLIER = [
    ("decision", "Store money as integer cents",
     "Every amount is an integer number of cents in a BIGINT column (`amount_cents`), never a float and never a "
     "Decimal in the models. Conversion to a decimal string happens only in the API schemas (app/api/schemas.py). "
     "Floats lost a cent when the VAT report summed 10,000 lines.", "cli", "explicit"),
    ("decision", "PostgreSQL 16 everywhere, tests included",
     "Local development and the test suite run against PostgreSQL 16 in docker compose (`make db`). SQLite was "
     "dropped for tests: partial indexes and `FOR UPDATE SKIP LOCKED` in the job queue behave differently there.",
     "llm_extraction", "explicit"),
    ("decision", "Invoice numbers are gapless per tenant and year",
     "Numbers look like INV-2026-000183 and have no gaps within a tenant and year. They are allocated in the "
     "insert's transaction from `tenant_counters` with SELECT ... FOR UPDATE; PostgreSQL sequences were dropped "
     "because a rolled-back transaction leaves a gap, which the tax office asks about.", "llm_extraction", "explicit"),
    ("decision", "Invoices are immutable once issued",
     "An issued invoice is never updated in place: only drafts can be edited, and only drafts get their PDF "
     "rendered again. Auditors need the issued document to match what the customer received.", "cli", "explicit"),
    ("decision", "Background jobs run on Celery with Redis as the broker",
     "PDF rendering, invoice emails and the Stripe sync run as Celery tasks (app/workers/), Redis 7 as broker, "
     "results ignored. Tasks are idempotent: each takes an invoice id and re-reads the row.", "llm_extraction",
     "reinforced"),
    ("decision", "API errors are RFC 9457 problem details",
     "Every 4xx and 5xx response is application/problem+json with type, title, status and detail; `type` is a URL "
     "into docs/errors.md. Validation errors add an `errors` list with a JSON pointer per field. Raised as "
     "ProblemError from app/api/errors.py.", "llm_extraction", "explicit"),
    ("decision", "Tax rates live in the tax_rates table",
     "VAT rates are data, not code: tax_rates(country, category, rate_bp, valid_from), in basis points, looked up "
     "by the invoice's supply date. A rate change is a new row, never an update of an old one.", "cli", "explicit"),
    ("decision", "Render invoice PDFs with ReportLab",
     "PDFs are drawn with ReportLab's platypus in app/pdf/render.py, in the request that issues the invoice.",
     "llm_extraction", "explicit"),
    ("convention", "Run the tests with make test",
     "`make test` starts the compose database if needed and runs `pytest -q -n 4`; CI runs the same target.",
     "llm_extraction", "reinforced"),
    ("convention", "Money fields end in _cents",
     "Columns, attributes and JSON fields that hold an amount are named *_cents (net_cents, vat_cents), so a "
     "reader never wonders about the unit.", "llm_extraction", "inferred"),
    ("convention", "Migrations are generated, then edited by hand",
     "`alembic revision --autogenerate`, then review it: autogenerate misses partial indexes and server defaults. "
     "One migration per pull request.", "llm_extraction", "explicit"),
    ("convention", "Branches are named feature/INV-ticket-slug",
     "For example feature/INV-412-credit-notes; CI links the ticket from the branch name.", "hook_observation",
     "inferred"),
    ("discovery", "Staging is restored from an anonymised dump every night",
     "At 02:00 UTC staging's database is replaced by an anonymised production dump: data written on staging during "
     "the day is gone the next morning.", "llm_extraction", "explicit"),
]
GLOBAL = [
    ("preference", "Small pull requests, one migration each",
     "I review faster when a pull request does one thing; a schema change gets its own."),
    ("preference", "Commit messages say why, not what",
     "The diff shows what changed; the message says why it had to."),
]
OTHER_PROJECT = ("acme-web", "git@github.com:acme/acme-web.git", [
    ("decision", "Server state lives in TanStack Query", "No Redux for data from the API: TanStack Query caches it."),
    ("convention", "Tailwind, no CSS modules", "Components style themselves with Tailwind classes."),
    ("decision", "Feature flags come from LaunchDarkly", "Read through useFlag(); never hard-code a rollout."),
])

# Each session: (start, [steps]); a step is ("ask", prompt) | ("edit", path) | ("run", command, output) |
# ("record", type, title, body, evidence) | ("supersede", old title, title, body, rationale) | ("end",).
WEEK = [
    ("2026-03-02T09:12:00", [
        ("ask", "The VAT total on INV-2026-000183 is one cent lower than what the customer's accountant computed. "
                "Where do we round the VAT on an invoice?"),
        ("edit", "app/services/tax.py"),
        ("ask", "Round per line then, half up, and add a regression test with the 37 lines from the ticket."),
        ("edit", "tests/test_tax.py"),
        ("run", "make test", "================ 214 passed in 41.2s ================"),
        ("record", "bugfix", "VAT is rounded per line, then summed",
         "INV-2026-000183 was one cent off the customer's own calculation: VAT was rounded once, on the total. It is "
         "now rounded half up per line (round_half_up(net_cents * rate_bp, 10_000)) and summed. Regression test: "
         "tests/test_tax.py::test_vat_rounded_per_line_37_lines.", "Round per line then, half up"),
        ("end",),
    ]),
    ("2026-03-03T14:05:00", [
        ("ask", "Customers keep asking us to fix typos in issued invoices. Add a credit note flow instead of editing "
                "the invoice."),
        ("edit", "app/models/credit_note.py"),
        ("edit", "migrations/versions/0007_credit_notes.py"),
        ("edit", "app/api/invoices.py"),
        ("ask", "The migration hangs on staging: "
                "postgres://invoicing:Tr0ub4dor-staging@db.staging.internal:5432/invoicing. Is something holding a "
                "lock on invoices?"),
        ("run", "make test", "================ 231 passed in 44.0s ================"),
        ("record", "decision", "Corrections are credit notes with their own number series",
         "An issued invoice is corrected by a credit note, numbered CN-2026-000041 from its own gapless counter; it "
         "references the invoice and carries the negative lines. The invoice itself never changes.",
         "Add a credit note flow instead of editing the invoice"),
        ("end",),
    ]),
    ("2026-03-04T10:30:00", [
        ("ask", "Some invoices show as paid before they are finalized in Stripe. Why does that happen?"),
        ("edit", "app/webhooks/stripe.py"),
        ("ask", "<private>Globex is about to churn, their CFO complained twice.</private> Can we at least make the "
                "paid-before-finalized case visible in the admin?"),
        ("edit", "app/admin/invoices.py"),
        ("edit", "tests/test_webhooks.py"),
        ("record", "discovery", "Stripe webhooks arrive out of order",
         "invoice.paid can arrive before invoice.finalized. The webhook handler stores every event in stripe_events "
         "and applies them in the order of the event's `created` time; a payment for an invoice not finalized yet "
         "waits there and shows in the admin.", "show as paid before they are finalized"),
        ("end",),
    ]),
    ("2026-03-05T16:40:00", [
        ("ask", "Rendering the PDF of a 300-line invoice takes 4 seconds in the request. Move the PDF rendering to "
                "the worker."),
        ("edit", "app/workers/pdf.py"),
        ("ask", "And use WeasyPrint with an HTML template instead of ReportLab: long line descriptions have to wrap."),
        ("edit", "app/pdf/render.py"),
        ("edit", "templates/invoice.html"),
        ("supersede", "Render invoice PDFs with ReportLab", "Render invoice PDFs with WeasyPrint in the worker",
         "PDFs are rendered from templates/invoice.html with WeasyPrint in a Celery task (app/workers/pdf.py), never "
         "in a request: issuing an invoice returns 202 and the PDF's URL once it exists.",
         "ReportLab's tables could not wrap long descriptions, and rendering in the request took 4 s for 300 lines"),
        ("run", "make test", "================ 236 passed in 45.3s ================"),
        ("end",),
    ]),
    ("2026-03-06T08:55:00", [
        ("ask", "The invoice email task has been retrying the same bounced address since Tuesday. Make an SMTP 550 "
                "permanent."),
        ("edit", "app/workers/email.py"),
        ("run", "make test", "FAILED tests/test_email.py::test_bounce_marks_invoice - AssertionError"),
        ("ask", "The bounce test fails because delivery_status is still 'queued'; set it to 'bounced' in the same "
                "transaction as the task failure."),
        ("edit", "tests/test_email.py"),
        ("record", "bugfix", "A bounced address stops the email retries",
         "The invoice email task retried forever on a 550 from the SMTP relay. An SMTP 5xx is now permanent: the "
         "task fails, the invoice gets delivery_status = 'bounced' and support sees it in the admin.",
         "Make an SMTP 550 permanent"),
        # no end: the session is still open
    ]),
]


class Clock:
    """`now_iso` for every agentctx module: a fixed, advancing time, so the seeded week has its dates."""

    def __init__(self) -> None:
        self.t = datetime(2026, 1, 12, 9, 0, tzinfo=timezone.utc)

    def at(self, iso: str) -> None:
        self.t = datetime.fromisoformat(iso).replace(tzinfo=timezone.utc)

    def tick(self, minutes: float) -> None:
        self.t += timedelta(minutes=minutes)

    def __call__(self) -> str:
        self.t += timedelta(milliseconds=7)  # two stamps are never equal: entries of one instant keep their order
        return self.t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _patch_clock(clock: Clock) -> None:
    from agentctx.base import ids

    original = ids.now_iso
    ids.now_iso = clock
    for name, module in list(sys.modules.items()):
        if name.startswith("agentctx") and getattr(module, "now_iso", None) is original:
            module.now_iso = clock  # type: ignore[attr-defined]


def _hook(event: str, payload: dict) -> dict | None:
    """Run one hook in-process, as Claude Code would run `agentctx hook EVENT` with this JSON on stdin."""
    from agentctx.hooks import run

    stdin, stdout = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO(json.dumps(payload)), io.StringIO()
    try:
        run([event])
        out = sys.stdout.getvalue()
    finally:
        sys.stdin, sys.stdout = stdin, stdout
    return json.loads(out) if out.strip() else None


def _repo(path: Path, remote: str, claude_md: str | None = None) -> Path:
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n')
    if claude_md:
        (path / "CLAUDE.md").write_text(claude_md)
    return path


def seed(home: Path) -> dict[str, object]:
    """Seed a store under `home` (which becomes HOME and AGENTCTX_HOME's parent); returns the project and a few ids."""
    os.environ.update(HOME=str(home), AGENTCTX_HOME=str(home / ".agentctx"), TMPDIR=str(home / "tmp"))
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    import agentctx.base.spawn as spawn
    import agentctx.hooks.lifecycle  # noqa: F401 (loaded before the clock is patched: it binds now_iso lazily)
    import agentctx.hooks.prompt  # noqa: F401
    import agentctx.hooks.session  # noqa: F401
    import agentctx.hooks.tool  # noqa: F401
    from agentctx.base import paths
    from agentctx.base.models import NewRecord
    from agentctx.base.project import detect
    from agentctx.memory import consolidate, digest, open_sessions, pending
    from agentctx.store import db, records

    spawn.detached = lambda *a, **k: None  # type: ignore[assignment]  # consolidation runs here, in-process
    clock = Clock()
    _patch_clock(clock)
    repo = _repo(home / "src" / "invoicing", "git@github.com:acme/invoicing.git", CLAUDE_MD)
    project = detect(repo)
    conn = db.connect(paths.db_path(), create=True)
    by_title: dict[str, str] = {}
    for type_, title, body, source, confidence in EARLIER:
        clock.tick(60 * 24 * 3.3)
        rec, _ = records.insert(conn, NewRecord(type=type_, title=title, body=body, project_id=project.id,
                                                source=source, confidence=confidence))
        by_title[title] = rec.id
    for type_, title, body in GLOBAL:
        records.insert(conn, NewRecord(type=type_, title=title, body=body, project_id="_global", scope="global",
                                       source="cli", confidence="explicit"))
    name, remote, rows = OTHER_PROJECT
    other = detect(_repo(home / "src" / name, remote))
    for type_, title, body in rows:
        records.insert(conn, NewRecord(type=type_, title=title, body=body, project_id=other.id, source="cli",
                                       confidence="explicit"))
    digest.remember_root(other)  # its checkout names it in the project picker
    conn.close()
    consolidate.run(project, close_stale=False)  # the first digest, and the root cache the hooks read
    sessions = []
    for n, (start, steps) in enumerate(WEEK):
        sid = f"5e{n}1c2d4-8f3a-4b6e-9d7c-{n:012x}"
        sessions.append(sid)
        clock.at(start)
        base = {"session_id": sid, "cwd": str(repo), "transcript_path": ""}
        _hook("session-start", {**base, "source": "startup"})
        for step in steps:
            clock.tick(3)
            if step[0] == "ask":
                _hook("user-prompt-submit", {**base, "prompt": step[1]})
            elif step[0] == "edit":
                _hook("post-tool-use", {**base, "tool_name": "Edit", "tool_input": {"file_path": str(repo / step[1])},
                                        "tool_response": {"success": True}})
            elif step[0] == "run":
                _hook("post-tool-use", {**base, "tool_name": "Bash", "tool_input": {"command": step[1]},
                                        "tool_response": {"stdout": step[2], "stderr": ""}})
            elif step[0] == "record":  # what extraction writes from the session's transcript, with its evidence
                conn = db.connect(paths.db_path())
                rec, _ = records.insert(conn, NewRecord(type=step[1], title=step[2], body=step[3],
                                                        project_id=project.id, source="llm_extraction",
                                                        confidence="explicit", session_id=sid))
                records.add_evidence(conn, rec.id, step[4])
                by_title[step[2]] = rec.id
                conn.close()
            elif step[0] == "supersede":
                conn = db.connect(paths.db_path())
                _, new = records.supersede(conn, by_title[step[1]], project.id, body=step[3], rationale=step[4],
                                           title=step[2], source="llm_extraction", session_id=sid)
                by_title[step[2]] = new.id
                conn.close()
            elif step[0] == "end":
                _hook("session-end", {**base, "reason": "prompt_input_exit"})
                consolidate.run(project, session_id=sid, close_stale=False)
    open_sessions.mark_closed(sessions[-1])  # still open in the store; no closer should come for it here
    conn = db.connect(paths.db_path())
    pending.drain_pending(conn)  # the open session's rows, as the dashboard would drain them
    conn.close()
    return {"project": project, "sessions": sessions, "records": by_title, "repo": repo}


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[-3].strip(), file=sys.stderr)
        return 64
    home = Path(args[0]).resolve()
    home.mkdir(parents=True, exist_ok=True)
    print(seed(home)["project"].id)  # type: ignore[union-attr]
    return 0


if __name__ == "__main__":
    sys.exit(main())
