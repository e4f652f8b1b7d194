"""Capture on a real checkout: how many of its files, printed by a command that succeeded (`cat FILE`), capture
would store as an error. python bench/capture.py CHECKOUT [--ext py pyi md rst] [--under DIR]

Each file's text goes through `capture.observe` three ways: Claude Code's PostToolUse (the call succeeded), Codex's
(the agent does not say how it ended), and the rule before issue 34 (an error-like line anywhere in the output).
Ends with one line of name=value pairs: files, old_rule, succeeded, unknown_outcome (files with an error each).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agentctx.memory import capture  # noqa: E402


def files(root: Path, exts: tuple[str, ...], under: str | None) -> list[Path]:
    start = root / under if under else root
    found = []
    for folder, dirs, names in os.walk(start):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [Path(folder) / n for n in sorted(names) if n.endswith(exts)]
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--ext", nargs="+", default=["py", "pyi", "md", "rst"])
    parser.add_argument("--under", help="only files below this directory of the checkout")
    args = parser.parse_args(argv)
    exts = tuple(f".{e.lstrip('.')}" for e in args.ext)
    counts = {"files": 0, "old_rule": 0, "succeeded": 0, "unknown_outcome": 0}
    for path in files(args.checkout, exts, args.under):
        try:
            text = path.read_text(encoding="utf-8")[:capture.OUTPUT_CHARS]
        except (OSError, UnicodeDecodeError):
            continue
        command = {"command": f"cat {path.relative_to(args.checkout)}"}
        counts["files"] += 1
        old = bool(capture._ERROR.search(text))
        ok = any(o.kind == "error" for o in capture.observe("Bash", command, {"stdout": text, "stderr": ""},
                                                             str(args.checkout), failed=False))
        unknown = [o for o in capture.observe("Bash", command, text, str(args.checkout), failed=None)
                   if o.kind == "error"]
        counts["old_rule"] += old
        counts["succeeded"] += ok
        counts["unknown_outcome"] += bool(unknown)
        if old or ok or unknown:
            print(f"{path.relative_to(args.checkout)}: old rule {'error' if old else '-'}, succeeded "
                  f"{'error' if ok else '-'}, outcome unknown {unknown[0].detail[:80] if unknown else '-'}")
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
