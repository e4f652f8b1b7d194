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
# A second set, written separately from the first (by another engineer) so the floor is not fitted to one list.
UNRELATED += [
    "Why is my React component rendering twice in development?", "Add pagination to the /users endpoint",
    "Write a bash script that renames all .jpeg files to .jpg", "Refactor this class to use dependency injection",
    "What does the walrus operator do in Python?", "Make the login form remember the last email used",
    "Add a dark mode toggle to the navbar", "The Docker build fails with 'no space left on device'",
    "Convert the callback-based code in loader.js to async/await", "Add a unit test for the tax calculation edge cases",
    "Implement binary search over the sorted timestamps", "Speed up this pandas groupby, it takes a minute",
    "Add logging to the payment retry handler", "Explain what this SQL window function does",
    "Add an index to speed up the orders query by customer_id", "Parse command line arguments with argparse in main.py",
    "Create a Makefile target that runs the linter", "Fix the flaky test in test_scheduler.py",
    "Change the font of the headings to Inter", "Add a health check endpoint that returns 200",
    "How do I cancel a running goroutine?", "Serialize this dataclass to JSON including datetimes",
    "Show a spinner while the file uploads", "Cache the results of the expensive geocoding call",
    "Rewrite the shell loop with xargs for parallelism", "Why does git say my branch has diverged?",
    "Validate that the phone number field has 10 digits", "Add keyboard shortcuts for next and previous image",
    "Use a context manager to close the socket properly", "Split the monolithic styles.css into components",
    "The websocket disconnects after 60 seconds idle, keep it alive", "Make the matrix multiplication use numpy",
    "Add retries with exponential backoff to the S3 upload", "Generate a random password of 16 characters",
    "Why is this Rust borrow checker error happening on line 42?", "Add a Prometheus counter for failed logins",
    "Compress the images before saving them to disk", "Add a CSV export button to the report page",
    "Check for null before accessing user.profile.avatar", "Rename getData to fetchUserProfile everywhere",
    "Add a migration that adds a nullable column called nickname", "Make the table header sticky when scrolling",
    "Translate the error messages into French", "Limit the API to 100 requests per minute per IP",
    "Profile the startup time of the CLI", "Add an .editorconfig with 4-space indentation",
    "Implement a least recently used cache class", "Draw a bar chart of monthly revenue with matplotlib",
    "What is the difference between a process and a thread?", "Clean up the warnings printed by the compiler",
    "Store the user's timezone preference in local storage", "Write a regex that matches UK postcodes",
    "Add a GitHub Actions badge to the README", "Make the modal close when pressing Escape",
    "Add a --dry-run option to the deploy script", "Use f-strings instead of % formatting in report.py",
    "Count the words in a text file and print the top ten", "Why does npm install hang on this machine?",
    "Add an integration test for the checkout flow", "Merge the two config dictionaries, second one wins",
    "Sanitize filenames before writing uploads to disk", "Add a tooltip showing the full path on hover",
    "Make the job queue worker shut down gracefully on SIGTERM", "Replace the deprecated datetime.utcnow calls",
    "Calculate the distance between two GPS coordinates", "Add a loading skeleton to the dashboard cards",
    "Implement undo and redo for the drawing canvas", "Add a 404 page with a link back home",
    "Group the transactions by month and sum the amounts", "Lazy load the images below the fold",
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
    from agentctx.hooks import Payload
    from agentctx.hooks.prompt import user_prompt_submit
    from agentctx.models import NewRecord
    from agentctx.project import detect
    from agentctx.store import records

    repo = tmp / "repo"
    (repo / ".git").mkdir(parents=True)
    project = detect(repo)
    conn = db.connect(paths.db_path(), create=True)
    adrs = [json.loads(line) for line in open(args.adrs, encoding="utf-8")]
    # A superseded ADR is history, not a decision in force (bench/retrieval.py does the same: 124 of 132 here).
    adrs = [a for a in adrs if not str(a.get("status") or "").lower().startswith("superseded")]
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
        for f in (0.0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0):
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
