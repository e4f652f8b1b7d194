"""tools/ui_demo.py, the store the dashboard's screenshots are taken on, still plays through the real hooks."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_week_is_made_by_the_hooks(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "ui_demo.py"), str(tmp_path / "demo")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    conn = sqlite3.connect(tmp_path / "demo" / ".agentctx" / "agentctx.db")
    try:
        assert conn.execute("SELECT count(*) FROM sessions WHERE ended_at IS NOT NULL").fetchone()[0] == 4
        asked = [r[0] for r in conn.execute("SELECT text FROM prompts ORDER BY id")]
        assert len(asked) == 10 and any("[REDACTED:url_password]" in a for a in asked)
        assert not any("Tr0ub4dor" in a or "Globex" in a for a in asked)  # the secret and the <private> span
        assert conn.execute("SELECT count(*) FROM injections WHERE event = 'SessionStart'").fetchone()[0] == 5
        assert conn.execute("SELECT count(*) FROM record_entities").fetchone()[0] > 20  # files linked at session end
    finally:
        conn.close()
