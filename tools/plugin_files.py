"""Write the Claude Code plugin's generated files from the code: plugin/hooks/hooks.json from the hook table, and
the version in plugin/.claude-plugin/plugin.json and .claude-plugin/marketplace.json from `agentctx.__version__`.

    python tools/plugin_files.py          # rewrite what differs
    python tools/plugin_files.py --check  # exit 1 when a file differs (tests/claude/test_plugin.py checks the same)

Claude Code keeps one cached copy per plugin version and `claude plugin update` installs a new version only when
the version changes, so the manifests must carry the package's version (vendor-notes/claude-code-plugins.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentctx.base import __version__  # noqa: E402
from agentctx.claude.plugin import PLUGIN_NAME, hooks_document  # noqa: E402

HOOKS_FILE = ROOT / "plugin" / "hooks" / "hooks.json"
MANIFEST = ROOT / "plugin" / ".claude-plugin" / "plugin.json"
MARKETPLACE = ROOT / ".claude-plugin" / "marketplace.json"


def _text(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def expected() -> dict[Path, str]:
    """Each generated file as it must read."""
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    manifest["version"] = __version__
    market = json.loads(MARKETPLACE.read_text(encoding="utf-8"))
    for entry in market.get("plugins", []):
        if entry.get("name") == PLUGIN_NAME:
            entry["version"] = __version__
    return {HOOKS_FILE: _text(hooks_document()), MANIFEST: _text(manifest), MARKETPLACE: _text(market)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report files that differ")
    args = parser.parse_args()
    stale = []
    for path, text in expected().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    for path in stale:
        print(("differs: " if args.check else "wrote: ") + str(path.relative_to(ROOT)))
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
