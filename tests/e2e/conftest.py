"""The end-to-end tests' helpers live beside this file: the Messages API stand-in and the Claude Code sandbox."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
