"""Screenshots of each dashboard view for docs/dashboard.md, taken in headless chromium on the store tools/ui_demo.py
seeds (a week of work on an invoicing service, played through the real hooks).

    python tools/ui_screenshots.py [--out docs/img]
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
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"))
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        import ui_demo

        demo = ui_demo.seed(Path(tmp))
        from agentctx.ui.server import make_server

        httpd, settings = make_server(demo["project"], port=0, fallback=False)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{httpd.server_address[1]}/"
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=ARGS, env={**os.environ, "TMPDIR": "/tmp"})
            page = browser.new_page(viewport={"width": 1280, "height": 860})

            def snap(name: str, full: bool = False) -> None:
                page.wait_for_timeout(250)
                page.screenshot(path=str(out / f"dashboard-{name}.png"), full_page=full)

            page.goto(base + f"#token={settings.token}")
            page.wait_for_selector("tr.row")
            snap("records")
            page.fill("#q", "how do we number credit notes")
            page.check("#explain")
            page.keyboard.press("Enter")
            page.wait_for_selector("#decision li")
            snap("search")
            records, sessions = demo["records"], demo["sessions"]
            page.goto(base + f"#/records/{records['Render invoice PDFs with WeasyPrint in the worker']}")
            page.wait_for_selector("#record-title")
            snap("detail", full=True)
            page.goto(base + "#/sessions")
            page.wait_for_selector("tr.row")
            snap("sessions")
            page.goto(base + f"#/sessions/{sessions[1]}")
            page.wait_for_selector("#timeline")
            snap("session", full=True)
            for name in ("drift", "graph", "overview"):
                page.goto(base + f"#/{name}")
                page.wait_for_selector("main h2")
                snap(name)
            page.set_viewport_size({"width": 390, "height": 800})
            page.goto(base + "#/records")
            page.reload()  # a fresh page: the search typed above is gone
            page.wait_for_selector("tr.row")
            snap("narrow")
            page.goto(base + f"#/sessions/{sessions[2]}")
            page.wait_for_selector("#timeline")
            snap("narrow-session", full=True)
            browser.close()
        httpd.shutdown()
    for p in sorted(out.glob("dashboard-*.png")):
        print(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
