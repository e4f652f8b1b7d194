"""tests/hooks: its helper module (`hookcases`) importable by the test modules beside it."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
