"""PostToolUse async or not: the real Claude Code CLI, headless, against the zero-latency Messages API stand-in.

AGENTCTX_CLAUDE_BIN=/path/to/claude python bench/claude_hooks.py [--runs N]

Each run asks for one branch (one Bash tool call) and ends. Per mode (PostToolUse registered `async: true`, as
`agentctx init` does, or synchronous) it counts how Claude Code reported PostToolUse (success, cancelled, not
reported), whether the capture reached the store before the session was wrapped up, whether SessionEnd ran (the
session's open marker gone when `claude` exits), and the wall time of a run. Runs alternate between the modes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))

from claude_sandbox import Sandbox, claude_bin, wait_for  # noqa: E402
from messages_standin import MessagesStandIn  # noqa: E402


def set_async(box: Sandbox, on: bool) -> None:
    path = box.home / ".claude" / "settings.json"
    data = json.loads(path.read_text("utf-8"))
    for group in data["hooks"]["PostToolUse"]:
        for handler in group["hooks"]:
            if "post-tool-use" in handler.get("command", ""):
                if on:
                    handler["async"] = True
                else:
                    handler.pop("async", None)
    path.write_text(json.dumps(data, indent=2), "utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per mode")
    args = parser.parse_args()
    claude, why = claude_bin()
    if claude is None:
        print(f"skipped: {why}")
        return 0
    stats: dict[str, dict[str, list]] = {m: {"outcome": [], "captured": [], "session_end": [], "wall": []}
                                         for m in ("async", "sync")}
    with tempfile.TemporaryDirectory(prefix="claude-hooks-bench-") as tmp:
        box = Sandbox(Path(tmp), claude)
        box.agentctx("init")
        box.agentctx("config", "set", "llm", "false")
        with MessagesStandIn() as api:
            for i in range(args.runs * 2):
                mode = ("async", "sync")[i % 2]
                set_async(box, mode == "async")
                branch = f"bench/{mode}-{i}"
                box.git("checkout", "-q", "main")
                start = time.perf_counter()
                run = box.run(f"Please create the branch {branch}", api.base_url)
                wall = time.perf_counter() - start
                sid = run.session_id
                ended_by_hook = not box.marker(sid).exists()  # only its own SessionEnd removes it this early
                post = run.hook_responses("PostToolUse")
                outcome = post[0]["outcome"] if post else "not reported"
                # wait for the wrap-up (SessionEnd's consolidate, or a later closer), then look for the capture
                wait_for(lambda: not box.capture_log(sid).exists(), timeout=5)
                captured = box.query("SELECT count(*) FROM nodes WHERE kind = 'branch' AND name = ?", branch)[0][0]
                s = stats[mode]
                s["outcome"].append(outcome)
                s["captured"].append(bool(captured))
                s["session_end"].append(ended_by_hook)
                s["wall"].append(wall)
                print(f"{mode:5} run {i // 2 + 1:2}: PostToolUse {outcome:12} captured={bool(captured)!s:5} "
                      f"SessionEnd={ended_by_hook!s:5} {wall:.2f} s", flush=True)
        box.agentctx("consolidate", "--close-stale")
    print()
    line = []
    for mode, s in stats.items():
        n = len(s["outcome"])
        cancelled = s["outcome"].count("cancelled")
        missing = s["outcome"].count("not reported")
        print(f"{mode}: PostToolUse cancelled {cancelled}/{n}, not reported {missing}/{n}; capture stored "
              f"{sum(s['captured'])}/{n}; SessionEnd ran {sum(s['session_end'])}/{n}; "
              f"run median {statistics.median(s['wall']):.2f} s")
        line += [f"{mode}_cancelled={cancelled}/{n}", f"{mode}_captured={sum(s['captured'])}/{n}",
                 f"{mode}_session_end={sum(s['session_end'])}/{n}",
                 f"{mode}_median_s={statistics.median(s['wall']):.2f}"]
    ratio = statistics.median(stats["sync"]["wall"]) / statistics.median(stats["async"]["wall"])
    print(" ".join(line + [f"sync_over_async={ratio:.2f}"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
