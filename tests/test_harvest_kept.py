"""tools/harvest_kept.py reads Nygard and MADR decision records (title, status, context and the decision itself) and
the developer turns of SpecStory exports and Copilot chats (only what a developer typed, with its provenance).

Every record and chat below is written by hand for these tests (no fetched text)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _harvester():
    spec = importlib.util.spec_from_file_location("harvest_kept", ROOT / "tools" / "harvest_kept.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NYGARD = """# 7. Keep invoices in Postgres

## Status

Accepted

## Context

Invoices are read by the billing job every night and must never be lost.

### Forces

The billing job needs joins across customers and invoices.

## Decision

We store invoices in the main Postgres database.

### Exceptions

PDF renderings stay in object storage.

## Consequences

Backups of the main database now carry invoices too.
"""

MADR = """---
status: accepted
date: 2024-02-01
---
# Pick a job queue

## Context and Problem Statement

Background jobs are run by cron today and a failed run is silently lost.

## Decision Drivers

* retries
* visibility of failures

## Considered Options

* a database-backed queue
* a hosted broker

## Decision Outcome

Chosen option: "a database-backed queue", because it needs no new service.

### Consequences

* Good, because failures show up as rows.
* Bad, because the database does more work.

## Pros and Cons of the Options

### A hosted broker

* Bad, because it is one more service to run.
"""

FRONT_TITLE = """---
slug: 12
title: |
  12. Cache tiles at the edge
tags: [Accepted]
---

## Status

*Accepted*

## Background

Map tiles are rendered on every request.

```markdown
## Decision

not a heading: this is inside a code block
```

## Decision

Tiles are cached by the CDN for a day.
"""

WHY = "Sends to the payment provider fail now and then and nobody notices."

TEMPLATE = """# 1. Title

## Status

Proposed

## Context

What is the issue that we're seeing that is motivating this decision or change?

## Decision

What is the change that we're proposing and/or doing?
"""


def test_nygard_sections_keep_their_sub_headings():
    adr = _harvester().parse_adr(NYGARD)
    assert adr["title"] == "Keep invoices in Postgres"
    assert adr["status"] == "Accepted"
    assert "billing job needs joins" in adr["context"] and adr["context"].startswith("Invoices are read")
    assert adr["decision"].startswith("We store invoices in the main Postgres database.")
    assert "PDF renderings stay in object storage." in adr["decision"]
    assert adr["consequences"] == "Backups of the main database now carry invoices too."


def test_madr_decision_is_the_outcome_not_the_drivers_or_options():
    adr = _harvester().parse_adr(MADR)
    assert adr["title"] == "Pick a job queue"
    assert adr["status"] == "accepted"  # from the front matter
    assert adr["context"] == "Background jobs are run by cron today and a failed run is silently lost."
    assert adr["decision"] == 'Chosen option: "a database-backed queue", because it needs no new service.'
    assert adr["consequences"].startswith("* Good, because failures show up as rows.")
    assert "hosted broker" not in adr["consequences"]


def test_front_matter_title_background_and_fenced_headings():
    adr = _harvester().parse_adr(FRONT_TITLE)
    assert adr["title"] == "Cache tiles at the edge"
    assert adr["status"] == "Accepted"
    assert adr["context"].startswith("Map tiles are rendered on every request.")
    assert adr["decision"] == "Tiles are cached by the CDN for a day."


def test_template_text_and_missing_sections_are_left_out():
    h = _harvester()
    assert h.parse_adr(TEMPLATE) is None
    assert h.parse_adr(f"# 3. Use X\n\n## Context\n\n{WHY}\n") is None  # no decision
    assert h.parse_adr(f"## Context\n\n{WHY}\n\n## Decision\n\nUse X.\n") is None  # no title
    assert h.parse_adr("# 3. Use X\n\n## Context\n\nWe chose to\n\n## Decision\n\nUse X.\n") is None  # unfinished


def test_a_label_and_link_line_is_not_context():
    text = (f"# 4. Retry failed sends\n\n## Context\n\n**Parent Requirement**: [specs/retries.md](../specs/retries.md)"
            f"\n\n{WHY}\n\n## Decision\n\nRetry three times.\n")
    assert _harvester().parse_adr(text)["context"] == WHY


def test_titles_lose_their_numbering_only():
    h = _harvester()
    titles = {"# 12. Use X": "Use X", "# ADR-012: Use X": "Use X", "# ADR: Use X": "Use X", "# 6 Use X": "Use X",
              "# Architecture Decision Record: Use X": "Use X", "# 3rd-party scripts": "3rd-party scripts",
              "# ADRs live in the repository": "ADRs live in the repository"}
    for head, want in titles.items():
        adr = h.parse_adr(f"{head}\n\n## Context\n\n{WHY}\n\n## Decision\n\nWhat.\n")
        assert adr["title"] == want, head


def test_harvest_reads_a_snapshot_with_provenance(tmp_path, monkeypatch):
    h = _harvester()
    repo = tmp_path / "mirror" / "acme+shop" / "repo"
    folder = repo / "docs" / "decisions"
    folder.mkdir(parents=True)
    (folder / "0001-pick-a-job-queue.md").write_text(MADR, encoding="utf-8")
    (folder / "0002-keep-invoices.md").write_text(NYGARD, encoding="utf-8")
    (folder / "adr-template.md").write_text(TEMPLATE, encoding="utf-8")
    (folder / "0003-unfinished.md").write_text(TEMPLATE, encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "adrs"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    monkeypatch.setattr(h, "ADR_SOURCES", [("acme/shop", "docs/decisions")])
    rows = h.adrs(tmp_path / "mirror")
    assert [r["path"] for r in rows] == ["docs/decisions/0001-pick-a-job-queue.md",
                                         "docs/decisions/0002-keep-invoices.md"]
    assert all(r["repo"] == "acme/shop" and r["commit"] == commit and r["id"] == f"acme/shop:{r['path']}" for r in rows)
    assert json.loads(json.dumps(rows)) == h.adrs(tmp_path / "mirror")  # deterministic


# SpecStory and Copilot chats

harvest = _harvester()

# Written by hand in the newer SpecStory format (a session marker, timed headings, `Agent` turns).
CURSOR_NEW = """<!-- Generated by SpecStory, Markdown v2.1.0 -->

<!-- cursor Session 00000000-aaaa-bbbb-cccc-000000000000 (2025-11-02 09:15Z) -->

# Move the invoice totals into the service layer (2025-11-02 09:15Z)

_**User (2025-11-02 09:15Z)**_

move the invoice totals calculation out of the controller
into InvoiceService and keep the rounding rules

---

_**Agent (model gpt-5, mode Agent)**_

I moved the calculation.

---

_**User (2025-11-02 09:20Z)**_

@agent Continue: "Continue to iterate?"

---

_**User (2025-11-02 09:31Z)**_

now add a test for the rounding of negative credit notes
"""
# Written by hand in the older format: no marker, untimed headings, `Assistant` turns.
UNMARKED_OLD = """<!-- Generated by SpecStory -->

# Dark mode toggle (2025-06-01 10:00Z)

_**User**_

the dark mode toggle forgets its state after a reload, store it in localStorage

---

_**Assistant**_

Done; the toggle now reads localStorage on mount.

---
"""
CLAUDE_CODE = """<!-- Generated by SpecStory -->

<!-- Claude Code Session 11111111-2222-3333-4444-555555555555 (2025-11-03 08:00Z) -->

_**User (2025-11-03 08:00Z)**_

why does the nightly export job skip the archived customers
"""


def test_a_specstory_file_gives_the_developer_turns_only():
    turns = harvest._specstory_turns(CURSOR_NEW)
    assert turns == ["move the invoice totals calculation out of the controller\ninto InvoiceService and keep the "
                     "rounding rules", '@agent Continue: "Continue to iterate?"',
                     "now add a test for the rounding of negative credit notes"]
    assert harvest._specstory_turns(UNMARKED_OLD) == [
        "the dark mode toggle forgets its state after a reload, store it in localStorage"]
    assert harvest._raw_prompts(UNMARKED_OLD, ".specstory/history/2025-06-01_10-00Z-dark-mode.md") == \
        harvest._specstory_turns(UNMARKED_OLD)


# Written by hand: a VS Code Copilot chat copied out as text.
COPILOT_COPY = """dev-sam: the order list shows yesterday's orders first, sort it newest first

GitHub Copilot: I'll change the sort.

Note: the list reads from `orders.ts`.

dev-sam: also keep the cancelled ones at the bottom

GitHub Copilot: Done.
"""


def test_a_copied_copilot_chat_gives_the_developer_turns_only():
    assert harvest._raw_prompts(COPILOT_COPY, "copilot-chat.md") == [
        "the order list shows yesterday's orders first, sort it newest first",
        "also keep the cancelled ones at the bottom"]


@pytest.mark.parametrize("text, kind", [(CURSOR_NEW, "cursor"), (UNMARKED_OLD, ""), (CLAUDE_CODE, "claude-code"),
                                        ("<!-- vscode Session 1 (2025-01-01 00:00Z) -->", "copilot"),
                                        ("<!-- Cursor IDE Session 1 -->", "cursor"),
                                        ("<!-- Windsurf Session 1 -->", None)])
def test_the_session_marker_names_the_kind(text, kind):
    assert harvest._specstory_kind(text) == kind


@pytest.mark.parametrize("typed", [
    '@agent Continue: "Continue to iterate?"',
    "Implement the plan as specified, it is attached for your reference.",
    "DOM Path: div.flex-1 > main > section.hero",
    '{"error":"Order validation failed: total is required"}',
    "Loading orders... orders.tsx:41 fetch failed api.ts:118 retrying",
    r"attach D:\invoices\2025\march.pdf to the mail",
    "the site at https://my-shop-example.net/ shows a blank page",
])
def test_text_an_ide_typed_a_pasted_log_or_a_private_address_is_dropped(typed):
    assert harvest._keep(typed) is None


def test_a_typed_prompt_is_kept_with_public_addresses_and_home_paths_hidden():
    assert harvest._keep("follow https://docs.python.org/3/library/sqlite3.html and open http://localhost:3000/") \
        == "follow https://docs.python.org/3/library/sqlite3.html and open http://localhost:3000/"
    assert harvest._keep("the config in /Users/alice/shop/app.toml is ignored") == "the config in ~/shop/app.toml " \
                                                                                    "is ignored"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args],
                          capture_output=True, text=True, check=True).stdout


def test_a_specstory_folder_is_read_as_one_log_with_provenance(tmp_path, monkeypatch):
    repo = tmp_path / "mirror" / "someone+shop" / "repo"
    folder = repo / ".specstory" / "history"
    folder.mkdir(parents=True)
    _git(repo, "init", "-q")
    files = {"2025-06-01_10-00Z-dark-mode.md": UNMARKED_OLD, "2025-11-02_09-15Z-invoices.md": CURSOR_NEW,
             "2025-11-03_08-00Z-export.md": CLAUDE_CODE}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "chats")
    first = _git(repo, "rev-parse", "HEAD").strip()
    (folder / "2025-06-01_10-00Z-dark-mode.md").unlink()  # a log deleted later is still read from history
    _git(repo, "commit", "-qam", "drop one")
    monkeypatch.setattr(harvest, "PROMPT_SOURCES", [("someone/shop", ".specstory/history/", "cursor")])

    rows = harvest.prompts(tmp_path / "mirror", avoid=["now add a test for the rounding of negative credit notes"])

    assert [r["prompt"] for r in rows] == [
        "the dark mode toggle forgets its state after a reload, store it in localStorage",
        "move the invoice totals calculation out of the controller into InvoiceService and keep the rounding rules"]
    assert [r["source_path"] for r in rows] == [".specstory/history/2025-06-01_10-00Z-dark-mode.md",
                                                ".specstory/history/2025-11-02_09-15Z-invoices.md"]
    assert all(r["commit"] == first and r["kind"] == "cursor" and r["source_repo"] == "someone/shop" for r in rows)
