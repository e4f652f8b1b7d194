"""`python -m agentctx`: the same as the `agentctx` command."""

import sys

from .cli import main

sys.exit(main())
