"""Run as a script by the lock tests: hold the store locked, as a DB browser or a second agentctx would.

    python tests/lockholder.py DB exclusive-mode|begin-exclusive

exclusive-mode: even readers are shut out (PRAGMA locking_mode=EXCLUSIVE, as DB browsers do); begin-exclusive:
WAL readers go on, writers wait. Prints "held" once the lock is taken and keeps it until stdin closes.
"""

import sqlite3
import sys

c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
if sys.argv[2] == "exclusive-mode":
    c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("SELECT count(*) FROM records").fetchall()
print("held", flush=True)
sys.stdin.read()
