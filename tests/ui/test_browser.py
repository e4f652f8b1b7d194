"""End to end in a real headless browser: Playwright for Python driving Debian's chromium (never downloaded)."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from agentctx.store import db
from agentctx.base import paths
from agentctx.store import records
from agentctx.ui.server import make_server

from .conftest import XSS

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the [ui-test] extra)")
CHROMIUM = next((p for p in (os.environ.get("AGENTCTX_CHROMIUM"), shutil.which("chromium"),
                              shutil.which("chromium-browser"), "/usr/bin/chromium") if p and Path(p).exists()), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium found (apt install chromium, or set AGENTCTX_CHROMIUM)")
# Where the run saves a screenshot of each view (docs/ images are made this way); unset: none are saved.
SHOTS = os.environ.get("AGENTCTX_UI_SCREENSHOTS")
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def browser_page(seeded, tmp_path):
    httpd, settings = make_server(seeded["project"], port=0, fallback=False)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/#token={settings.token}"
    with sync_api.sync_playwright() as pw:
        # Chromium's singleton socket path must stay under 108 bytes: pytest's per-test TMPDIR is too deep.
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, env={**os.environ, "TMPDIR": "/tmp"})
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        dialogs: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        yield page, url, errors, dialogs
        browser.close()
    httpd.shutdown()
    httpd.server_close()


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"dashboard-{name}.png"), full_page=False)


def test_the_whole_flow_in_a_browser(browser_page, seeded):
    page, url, errors, dialogs = browser_page
    page.goto(url)
    page.wait_for_selector("tr.row")
    # The token left the address bar and the history entry at once.
    assert "token" not in page.url and "token" not in page.evaluate("location.href")
    shot(page, "records")

    # Search with the CLI's ranking.
    page.fill("#q", "which database for orders")
    page.keyboard.press("Enter")
    # (wait_for_function would need 'unsafe-eval', which the page's CSP refuses: wait on selectors instead)
    page.wait_for_selector("#count:text-is('1–1 of 1')")
    assert page.locator("tr.row").first.inner_text().startswith("Use PostgreSQL for orders")
    # --explain on demand: the prompt hook's decision for the same words, each candidate against its threshold.
    def slow(route):  # each decision answers after both list loads below: their cards must not pile up
        time.sleep(0.4)
        route.continue_()

    page.route("**/api/explain*", slow)
    page.check("#explain")  # loads the list (and the decision) again ...
    page.focus("#q")
    page.keyboard.press("Enter")  # ... and so does this, while the first is in flight: still one decision card
    page.wait_for_selector("#decision li")
    page.wait_for_load_state("networkidle")
    page.unroute("**/api/explain*")
    assert page.locator("#decision").count() == 1
    assert "threshold" in page.inner_text("#decision") and "Use PostgreSQL for orders" in page.inner_text("#decision")
    page.uncheck("#explain")

    # Open the record, edit it: a supersession lands in the store and the old version shows in the timeline.
    page.locator("tr.row a").first.click()
    page.wait_for_selector("#record-title")
    assert "[object" not in page.inner_text("main") and "null" not in page.inner_text("#actions")
    page.click("#edit")
    page.fill("#edit-title", "Use PostgreSQL 18 for orders")
    page.fill("#edit-body", "Orders moved to PostgreSQL 18.")
    page.fill("#edit-rationale", "upgrade finished")
    page.click("#save")
    page.wait_for_selector("#record-title:text-is('Use PostgreSQL 18 for orders')")
    timeline = page.locator("#timeline li")
    assert timeline.count() == 3
    assert "Use PostgreSQL for orders" in timeline.nth(1).inner_text()
    assert "upgrade finished" in timeline.nth(2).inner_text()
    shot(page, "detail")
    conn = db.connect(paths.db_path())
    head = records.head(conn, records.get(conn, seeded["db"].id))
    assert head.title == "Use PostgreSQL 18 for orders" and head.source == "dashboard"

    # Confirm an inferred record.
    page.goto(url.split("#")[0] + f"#/record/{seeded['inferred'].id}")
    page.wait_for_selector("#confirm")
    page.click("#confirm")
    page.wait_for_selector("#confirm", state="detached")
    assert records.get(conn, seeded["inferred"].id).confidence == "explicit"

    # An untrusted body renders as inert text.
    page.goto(url.split("#")[0] + f"#/record/{seeded['xss'].id}")
    page.wait_for_selector("#record-body")
    assert page.inner_text("#record-body") == XSS
    assert page.locator("#record-body img").count() == 0 and page.locator("img").count() == 0
    page.wait_for_timeout(200)
    assert dialogs == []

    # Keyboard: "/" focuses search from the list; j moves the selection; Enter opens.
    page.goto(url.split("#")[0] + "#/records")
    page.wait_for_selector("tr.row")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.wait_for_selector("#record-title")

    for view in ("sessions", "drift", "graph", "overview"):
        page.goto(url.split("#")[0] + f"#/{view}")
        page.wait_for_selector("main h2")
        page.wait_for_timeout(150)
        text = page.inner_text("main")
        assert "[object" not in text and "undefined" not in text, text[:300]
        shot(page, view)
    assert page.locator("svg.chart").count() >= 3
    page.goto(url.split("#")[0] + "#/graph")
    page.wait_for_selector("svg.graph g[data-id]")
    page.locator("svg.graph g[data-id]").first.click()
    page.wait_for_selector("#record-title")
    conn.close()
    # No history entry holds the token: walking all the way back never shows it.
    for _ in range(30):
        if page.go_back() is None:
            break
        assert "token=" not in page.url
    assert errors == [], errors


def test_narrow_window_is_usable(browser_page):
    page, url, errors, _ = browser_page
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(url)
    page.wait_for_selector("tr.row")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1
    shot(page, "narrow")
    assert errors == []


def test_without_the_token_the_page_says_what_to_do(browser_page):
    page, url, errors, _ = browser_page
    page.goto(url.split("#")[0])
    page.wait_for_selector("main h2")
    assert "agentctx ui" in page.inner_text("main")
    assert errors == []


def test_a_deep_link_opened_fresh_with_the_token_shows_its_view(browser_page, seeded):
    """A link to one session or record works in a fresh tab when it carries the token (either side of the route),
    the token still leaves the address bar, and a reload stays on the view."""
    page, url, errors, _ = browser_page
    base, token = url.split("#token=")
    page.goto(f"{base}#/sessions/sess-1&token={token}")
    page.wait_for_selector("#session-title")
    assert "sess-1" in page.inner_text("#session-title")
    assert page.url.endswith("#/sessions/sess-1") and "token" not in page.url
    page.reload()
    page.wait_for_selector("#session-title")
    fresh = page.context.browser.new_page()  # a fresh tab: nothing in its sessionStorage
    fresh.goto(f"{base}#token={token}&/records/{seeded['pinned'].id}")
    fresh.wait_for_selector("#record-title:text-is('Never force-push main')")
    assert fresh.url.endswith(f"#/records/{seeded['pinned'].id}") and "token" not in fresh.url
    fresh.goto(f"{base}#/record/{seeded['xss'].id}")  # the singular form older links used still opens
    fresh.wait_for_selector("#record-title:text-is('Render bodies as text')")
    fresh.close()
    assert errors == []


def test_the_record_page_names_its_project(browser_page, seeded):
    page, url, errors, _ = browser_page
    page.goto(url.replace("#token=", f"#/records/{seeded['pinned'].id}&token="))
    page.wait_for_selector("#record-project")
    shown = page.inner_text("#record-project")
    assert shown == "repo" and seeded["project"].id not in page.inner_text("main")
    # The whole id stays one hover away, for `agentctx ui --project ID`.
    assert page.get_attribute("#record-project", "title") == seeded["project"].id
    assert errors == []


def test_the_graph_labels_its_nodes_and_draws_their_links(browser_page, seeded, conn):
    """Records linked to the files they are about (the store's graph, as consolidation links them) are drawn with
    those links, every node carries its name, and a record without a link waits behind a checkbox."""
    from agentctx.store import graph

    pid = seeded["project"].id
    # Capture names files by their absolute path; the page shows them from the project's root.
    orders = graph.upsert_node(conn, pid, "file", str(seeded["project"].root / "app" / "models" / "order.rb"))
    graph.link(conn, seeded["pinned"].id, [orders])
    graph.link(conn, seeded["inferred"].id, [orders, graph.upsert_node(conn, pid, "branch", "main")])
    graph.add_edge(conn, seeded["pinned"].id, seeded["inferred"].id, "derives_from")
    page, url, errors, _ = browser_page
    page.goto(url.replace("#token=", "#/graph&token="))
    page.wait_for_selector("svg.graph g[data-id]")
    node = lambda rid: f"svg.graph g[data-id='{rid}']"  # noqa: E731
    labels = {page.get_attribute(node(i), "aria-label"): page.locator(f"svg.graph text[data-for='{i}']").text_content()
              for i in (seeded["pinned"].id, seeded["inferred"].id)}
    assert labels == {"convention: Never force-push main": "Never force-push main",
                      "convention: Tests run with pytest -q": "Tests run with pytest -q"}
    assert page.locator("svg.graph text.entity").first.text_content() == "app/models/order.rb"
    assert page.locator("svg.graph text.spare").count() == 0  # three names: room for all of them
    lines = page.locator("svg.graph line")
    rels = sorted(lines.nth(i).get_attribute("data-rel") for i in range(lines.count()))
    assert rels == ["applies_to", "applies_to", "applies_to", "derives_from"]
    assert "about a file or branch" in page.inner_text("#graph-legend")
    # Records without any link are not scattered around the edge: they wait behind a checkbox.
    assert page.locator(node(seeded["xss"].id)).count() == 0
    page.check("#graph-unlinked")
    page.wait_for_selector(node(seeded["xss"].id))
    # Hovering a record lights up its links and its neighbours.
    page.hover(node(seeded["pinned"].id) + " circle")
    assert page.locator("svg.graph line.lit").count() == 2
    page.click(node(seeded["pinned"].id) + " circle")
    page.wait_for_selector("#record-title:text-is('Never force-push main')")
    assert "file: app/models/order.rb" in page.inner_text("main")
    assert errors == []


def test_a_session_shows_what_was_asked_and_what_came_with_it(browser_page, seeded, conn):
    """The digest SessionStart carried, each prompt as the user typed it (as text: it is user content), what was
    injected for it, and a prompt that brought nothing; the list opens each session with its first request."""
    from agentctx.store import sessions

    pid, pinned = seeded["project"].id, seeded["pinned"]
    sessions.log_injection(conn, session_id="sess-2", project_id=pid, event="SessionStart", prompt_hash=None,
                           record_ids=[pinned.id, seeded["db"].id], scores=[], tokens=640,
                           created_at="2030-03-02T09:00:00.000Z")
    asked = "can we force-push the release branch? " + XSS
    sessions.log_prompt(conn, session_id="sess-2", project_id=pid, prompt_hash="h1", text=asked, chars=len(asked),
                        created_at="2030-03-02T09:01:00.000Z")
    sessions.log_injection(conn, session_id="sess-2", project_id=pid, event="UserPromptSubmit", prompt_hash="h1",
                           record_ids=[pinned.id], scores=[1.4], tokens=90, created_at="2030-03-02T09:01:00.000Z")
    # Shorter than the prompt: its <private> span was left out, which is not a cut.
    sessions.log_prompt(conn, session_id="sess-2", project_id=pid, prompt_hash="h2", text="rename the save button",
                        chars=64, created_at="2030-03-02T09:05:00.000Z")
    pasted = "Traceback (most recent call last):\n" + "  File \"app/api/invoices.py\", line 88, in issue\n" * 40
    sessions.log_prompt(conn, session_id="sess-2", project_id=pid, prompt_hash="h3", text=pasted, chars=len(pasted),
                        created_at="2030-03-02T09:09:00.000Z")
    page, url, errors, dialogs = browser_page
    page.goto(url.replace("#token=", "#/sessions/sess-2&token="))
    page.wait_for_selector("#timeline")
    entries = page.locator("#timeline > li")
    assert entries.count() == 4
    start, first, second, third = (entries.nth(i).inner_text() for i in range(4))
    assert "digest" in start and "Never force-push main" in start and "Use PostgreSQL for orders" in start
    assert page.locator("#timeline .asked").nth(0).inner_text() == asked
    assert page.locator("#timeline img").count() == 0
    assert "Never force-push main" in first and "90 tokens" in first
    assert "rename the save button" in second and "Nothing injected" in second and "characters" not in second
    assert f"the first 999 of {len(pasted)} characters" in third
    page.goto(url.split("#")[0] + "#/sessions")
    page.wait_for_selector("tr.row")
    assert "can we force-push the release branch?" in page.locator("tr.row").first.inner_text()
    page.wait_for_timeout(200)
    assert dialogs == [] and errors == []


def test_a_records_questions_and_aliases_are_shown_and_edited_in_place(browser_page, seeded, conn):
    page, url, errors, _ = browser_page
    rid = seeded["pinned"].id
    page.goto(url.replace("#token=", f"#/records/{rid}&token="))
    page.wait_for_selector("#asked-none")
    page.click("#edit-asked")
    page.fill("#edit-questions", "can I force-push to main?\n\n<b>why not rebase main?</b>")
    page.fill("#edit-aliases", "git push --force\nbranch protection")
    page.click("#save-asked")
    page.wait_for_selector("#asked-questions li >> nth=1")
    assert page.inner_text("#asked-questions").splitlines() == ["can I force-push to main?", "<b>why not rebase main?</b>"]
    assert page.locator("#asked b").count() == 0  # shown as text
    assert page.inner_text("#asked-aliases") == "Also: git push --force, branch protection"
    got = records.get(conn, rid)
    assert got.is_current and got.questions == ("can I force-push to main?", "<b>why not rebase main?</b>")
    shot(page, "record-asked")
    assert errors == []
