"""Injection quality of the real UserPromptSubmit hook over bench/adr-dev: the right decision in, unrelated prompts out.

python bench/injection.py [--adrs PATH] [--floor F] [--sweep]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

UNRELATED = [
    "Rename the variable tmp to buffer in the CSV parser", "Add a docstring to the helper that formats dates",
    "Fix the off-by-one error in the pagination loop", "Why does this regex not match trailing whitespace?",
    "Write a unit test for the slugify function", "Convert this for loop into a list comprehension",
    "Sort the dictionary by value in descending order", "Make the button on the settings page blue",
    "Add type hints to the geometry module", "Extract the retry logic into its own function",
    "The fibonacci function is slow for large n, memoize it", "Print the elapsed time in milliseconds",
    "Replace os.path calls with pathlib in the cleanup script", "Center this div horizontally with flexbox",
    "Bump the timeout in the HTTP client to 30 seconds", "Split this long function into smaller ones",
    "Read the YAML file and print its keys", "Add a --verbose flag to the command line tool",
    "Reverse a linked list in place", "Handle the KeyError when the config key is missing",
    "Format the table output with aligned columns", "Remove the unused imports in utils.py",
    "Compute the average of the numbers in the list, ignoring None", "Make the chart legend font smaller",
    "Parse the ISO timestamp and convert it to local time", "Add a progress bar to the download loop",
    "Rename the test file to match the module name", "Escape HTML special characters in the template helper",
    "Debounce the search input by 300 ms", "Add a README section describing the environment variables",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--adrs", default=str(Path(__file__).resolve().parents[2] / "shared/bench/adr-dev/adrs.jsonl"))
    parser.add_argument("--floor", type=float, default=None, help="override search.PROMPT_FLOOR")
    parser.add_argument("--sweep", action="store_true", help="also report rates for a range of floors")
    parser.add_argument("--chars", type=int, default=300, help="characters of the ADR context used as the prompt")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="agentctx-inj-"))
    os.environ.update(HOME=str(tmp), AGENTCTX_HOME=str(tmp / ".agentctx"))
    os.environ.pop("ANTHROPIC_API_KEY", None)
    import tempfile as tf

    tf.tempdir = str(tmp)
    from agentctx import db, paths, search
    from agentctx.hooks.payload import Payload
    from agentctx.hooks.prompt import user_prompt_submit
    from agentctx.models import NewRecord
    from agentctx.project import detect
    from agentctx.store import records

    repo = tmp / "repo"
    (repo / ".git").mkdir(parents=True)
    project = detect(repo)
    conn = db.connect(paths.db_path(), create=True)
    adrs = [json.loads(line) for line in open(args.adrs, encoding="utf-8")]
    ids = {}
    for adr in adrs:
        body = (adr.get("decision") or adr["title"]).strip()[:2000]
        rec, _ = records.insert(conn, NewRecord(type="decision", title=adr["title"][:120], body=body,
                                                project_id=project.id, confidence="explicit"))
        ids[adr["id"]] = rec.id
    titles = {r.id: r.title for r in records.current(conn, project.id)}
    conn.close()
    run_no = [0]
    problems = [(adr["context"][: args.chars], ids[adr["id"]]) for adr in adrs if adr.get("context")]

    def rates(floor: float) -> tuple[float, float, float]:
        run_no[0] += 1  # fresh session ids per pass: the dedup file must not hide anything
        hit, injected_unrelated, sizes = 0, 0, []
        for i, (prompt, want) in enumerate(problems):
            out = user_prompt_submit(Payload(session_id=f"p{run_no[0]}-{i}", cwd=str(repo), prompt=prompt), floor=floor)
            text = out["hookSpecificOutput"]["additionalContext"] if out else ""
            hit += bool(text) and f"] {titles[want]}" in text
        for i, prompt in enumerate(UNRELATED):
            out = user_prompt_submit(Payload(session_id=f"u{run_no[0]}-{i}", cwd=str(repo), prompt=prompt), floor=floor)
            if out:
                injected_unrelated += 1
                sizes.append(len(out["hookSpecificOutput"]["additionalContext"]))
        return hit / len(problems), injected_unrelated / len(UNRELATED), (sum(sizes) / len(sizes) if sizes else 0.0)

    floor = search.PROMPT_FLOOR if args.floor is None else args.floor
    if args.sweep:
        print(f"{'floor':>6} {'decision injected':>18} {'unrelated injected':>19}")
        for f in (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4):
            h, u, _ = rates(f)
            print(f"{f:>6.2f} {h:>18.1%} {u:>19.1%}")
    hit, unrelated, size = rates(floor)
    print(f"{len(problems)} problem statements ({args.chars} chars), {len(UNRELATED)} unrelated prompts, floor {floor}")
    print(f"decision injected: {hit:.1%}   unrelated prompts injecting: {unrelated:.1%}   "
          f"mean injected size on unrelated: {size:.0f} chars")
    print(f"floor={floor} decision_injected={hit:.3f} unrelated_injected={unrelated:.3f} unrelated_mean_chars={size:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
