"""A process that holds the store locked, as a DB browser or a second agentctx would (shared by lock tests).

exclusive-mode: even readers are shut out (PRAGMA locking_mode=EXCLUSIVE, as DB browsers do); begin-exclusive:
WAL readers go on, writers wait. It prints "held" once the lock is taken and keeps it until its stdin closes.
"""

HOLDER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
if sys.argv[2] == "exclusive-mode":
    c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("SELECT count(*) FROM records").fetchall()
print("held", flush=True)
sys.stdin.read()
"""
MODES = ["exclusive-mode", "begin-exclusive"]
