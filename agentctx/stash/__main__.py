"""``python -m agentctx.stash``: the stash CLI."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
