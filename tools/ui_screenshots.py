"""Screenshots of each dashboard view for docs/dashboard.md, taken in headless chromium on a store seeded with the
ADR development set (bench/ui.py's seed).

    python tools/ui_screenshots.py [--out docs/img] [--records 240]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"))
    ap.add_argument("--records", type=int, default=240)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        repo = home / "forms"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:example/forms.git\n')
        (repo / "CLAUDE.md").write_text("# Forms\n\n- Run the tests with `bundle exec rspec`.\n")
        os.environ.update(HOME=str(home), AGENTCTX_HOME=str(home / ".agentctx"))
        import ui as bench_ui

        bench_ui.seed(args.records, repo)
        from agentctx.store import db
        from agentctx.base import paths
        from agentctx.base.project import detect
        from agentctx.store import browse, records
        from agentctx.ui.server import make_server

        conn = db.connect(paths.db_path())
        pid = detect(repo).id
        _, page_rows = browse.list_records(conn, pid, types=["decision"], limit=1)
        first = page_rows[0]
        records.supersede(conn, first.id, pid, body=first.body + "\n\nRevisited after the load test.",
                          rationale="the load test showed the old limit was too low")
        head = records.head(conn, records.get(conn, first.id))
        conn.close()
        httpd, settings = make_server(detect(repo), port=0, fallback=False)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{httpd.server_address[1]}/"
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=ARGS, env={**os.environ, "TMPDIR": "/tmp"})
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(base + f"#token={settings.token}")
            page.wait_for_selector("tr.row")
            page.screenshot(path=str(out / "dashboard-records.png"))
            page.fill("#q", "how should API errors be returned to the client")
            page.check("#explain")
            page.keyboard.press("Enter")
            page.wait_for_selector(".explain")
            page.screenshot(path=str(out / "dashboard-search.png"))
            for name, hash_ in (("detail", f"#/record/{head.id}"), ("sessions", "#/sessions"), ("drift", "#/drift"),
                                ("graph", "#/graph"), ("overview", "#/overview")):
                page.goto(base + hash_)
                page.wait_for_selector("main h2")
                page.wait_for_timeout(300)
                page.screenshot(path=str(out / f"dashboard-{name}.png"))
            page.set_viewport_size({"width": 390, "height": 800})
            page.goto(base + "#/records")
            page.wait_for_selector("tr.row")
            page.screenshot(path=str(out / "dashboard-narrow.png"))
            browser.close()
        httpd.shutdown()
    for p in sorted(out.glob("dashboard-*.png")):
        print(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
