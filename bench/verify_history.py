"""A tiny git history written by hand for bench/verify.py's CI run: one invented package, one file per case.

Everything here (the `tally` package, its files, its commits) was written by hand for the bench; it is not taken from
any repository. The real figures come from real repositories read at run time (docs/benchmarks.md). Six commits, each
one a step a developer takes, so that from the first commit every case the bench measures happens once:

  tally/units.py     never touched                                  -> unchanged
  tally/parse.py     one constant changed                           -> edited (under 20% of any region)
  tally/store.py     renamed to tally/storage.py, one line changed  -> moved (git pairs it, similarity ~96%)
  tally/report.py    rewritten from scratch                         -> rewritten
  tally/legacy.py    deleted                                        -> deleted
  tally/cli.py       `print_legacy_summary` removed, `run` kept     -> a symbol removed (its records: rewritten)
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# path -> the case it stands for; the test reads this to know what each record's file should come out as.
CASES = {"tally/units.py": "unchanged", "tally/parse.py": "edited", "tally/store.py": "moved",
         "tally/report.py": "rewritten", "tally/legacy.py": "deleted", "tally/cli.py": "symbol removed"}
RENAMED_TO = {"tally/store.py": "tally/storage.py"}
REMOVED_SYMBOL = "print_legacy_summary"

UNITS = '''"""Units a tally can be kept in, and conversions between them."""

from __future__ import annotations

GRAMS_PER_KILO = 1000
SECONDS_PER_HOUR = 3600

UNITS = {
    "g": ("mass", 1),
    "kg": ("mass", GRAMS_PER_KILO),
    "s": ("time", 1),
    "h": ("time", SECONDS_PER_HOUR),
}


def convert(value: float, source: str, target: str) -> float:
    """The value expressed in another unit of the same dimension."""
    dim_a, factor_a = UNITS[source]
    dim_b, factor_b = UNITS[target]
    if dim_a != dim_b:
        raise ValueError(f"cannot convert {source} to {target}")
    return value * factor_a / factor_b
'''

PARSE = '''"""Reading tally lines such as `apples,3,kg` into entries."""

from __future__ import annotations

SEPARATOR = ","
MAX_FIELDS = 3


def parse_line(line: str) -> tuple[str, float, str]:
    """One entry: a name, a quantity and a unit."""
    fields = [f.strip() for f in line.split(SEPARATOR)]
    if len(fields) != MAX_FIELDS:
        raise ValueError(f"expected {MAX_FIELDS} fields, got {len(fields)}")
    name, quantity, unit = fields
    return name, float(quantity), unit


def parse_lines(lines: list[str]) -> list[tuple[str, float, str]]:
    """Every entry of a file, skipping blank lines and comments."""
    entries = []
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entries.append(parse_line(line))
    return entries
'''

STORE = '''"""Keeping tallies on disk between runs, one JSON file per ledger."""

from __future__ import annotations

import json
from pathlib import Path

LEDGER_SUFFIX = ".ledger.json"


def ledger_path(root: Path, name: str) -> Path:
    """Where the ledger called `name` lives under `root`."""
    return root / f"{name}{LEDGER_SUFFIX}"


def load_ledger(root: Path, name: str) -> dict[str, float]:
    """Totals saved earlier, or nothing for a new ledger."""
    path = ledger_path(root, name)
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def save_ledger(root: Path, name: str, totals: dict[str, float]) -> None:
    """Write totals back, sorted so that diffs stay small."""
    path = ledger_path(root, name)
    path.write_text(json.dumps(totals, indent=2, sort_keys=True), encoding="utf-8")
'''

REPORT = '''"""Printing totals as a fixed-width text table."""

from __future__ import annotations

COLUMN_WIDTH = 12


def format_table(totals: dict[str, float]) -> str:
    """One padded row per item, largest first."""
    rows = sorted(totals.items(), key=lambda kv: kv[1], reverse=True)
    lines = ["item".ljust(COLUMN_WIDTH) + "total".rjust(COLUMN_WIDTH)]
    for item, total in rows:
        lines.append(item.ljust(COLUMN_WIDTH) + f"{total:.2f}".rjust(COLUMN_WIDTH))
    return "\\n".join(lines)


def print_table(totals: dict[str, float]) -> None:
    """Print the table, or say there is nothing yet."""
    if not totals:
        print("no entries yet")
        return
    print(format_table(totals))
'''

REPORT_REWRITTEN = '''"""Totals rendered as Markdown so they paste into issues and pull requests."""

from __future__ import annotations

HEADER = ("Item", "Quantity")


def markdown(totals: dict[str, float], precision: int = 1) -> str:
    """A Markdown table of every total, alphabetical by item name."""
    out = [f"| {HEADER[0]} | {HEADER[1]} |", "|---|---:|"]
    out += [f"| {key} | {value:.{precision}f} |" for key, value in sorted(totals.items())]
    return "\\n".join(out) + "\\n"


def write_markdown(totals: dict[str, float], target) -> int:
    """Write the Markdown table to an open text stream; the number of characters written."""
    text = markdown(totals) if totals else "_Nothing counted._\\n"
    return target.write(text)
'''

LEGACY = '''"""Reading the old tab-separated tally format (version 1 files)."""

from __future__ import annotations

V1_MAGIC = "TALLY1"


def is_v1(first_line: str) -> bool:
    """Whether a file starts with the version 1 marker."""
    return first_line.strip() == V1_MAGIC


def read_v1(lines: list[str]) -> dict[str, float]:
    """Totals from a version 1 file: a marker line, then `name<TAB>total` rows."""
    if not lines or not is_v1(lines[0]):
        raise ValueError("not a version 1 tally file")
    totals: dict[str, float] = {}
    for row in lines[1:]:
        name, _tab, total = row.partition("\\t")
        totals[name] = totals.get(name, 0.0) + float(total)
    return totals
'''

CLI_HEAD = '''"""The `tally` command: add entries from files to a ledger and show the totals."""

from __future__ import annotations

import sys
from pathlib import Path

from tally import parse
from tally import store as ledgers

USAGE = "usage: tally LEDGER FILE..."


def add(totals: dict[str, float], entries: list[tuple[str, float, str]]) -> int:
    """Add entries to the totals in place; how many were added."""
    for item, quantity, _unit in entries:
        totals[item] = totals.get(item, 0.0) + quantity
    return len(entries)


def run(argv: list[str]) -> int:
    """Add every entry of the named files to the ledger, then print it."""
    if len(argv) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    ledger, files = argv[0], argv[1:]
    root = Path.cwd()
    totals = ledgers.load_ledger(root, ledger)
    added = 0
    for name in files:
        lines = Path(name).read_text(encoding="utf-8").splitlines()
        added += add(totals, parse.parse_lines(lines))
    ledgers.save_ledger(root, ledger, totals)
    for item, total in sorted(totals.items()):
        print(f"{item}: {total:g}")
    print(f"({added} entries added)", file=sys.stderr)
    return 0
'''

CLI_LEGACY = '''

def print_legacy_summary(totals: dict[str, float]) -> None:
    """The one-line summary version 1 printed, kept for scripts that parse it."""
    count = len(totals)
    grand = sum(totals.values())
    print(f"{count} items, {grand:.2f} in all")
'''

CLI_TAIL = '''

if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
'''

# (message, {path: new text, or None to delete}, {old path: new path} renames); applied in order.
COMMITS = [
    ("tally: a first version", {"tally/__init__.py": '"""Keep running totals of things."""\n',
                                "tally/units.py": UNITS, "tally/parse.py": PARSE, "tally/store.py": STORE,
                                "tally/report.py": REPORT, "tally/legacy.py": LEGACY,
                                "tally/cli.py": CLI_HEAD + CLI_LEGACY + CLI_TAIL}, {}),
    ("parse: allow a fourth field (a note)", {"tally/parse.py": PARSE.replace("MAX_FIELDS = 3", "MAX_FIELDS = 4")
                                              .replace("    name, quantity, unit = fields\n",
                                                       "    name, quantity, unit = fields[:3]\n")}, {}),
    ("store: rename to storage", {"tally/storage.py": STORE.replace("one JSON file per ledger",
                                                                    "one JSON file per named ledger"),
                                  "tally/cli.py": (CLI_HEAD + CLI_LEGACY + CLI_TAIL).replace(
                                      "import store as", "import storage as")},
     {"tally/store.py": "tally/storage.py"}),
    ("report: Markdown instead of a text table", {"tally/report.py": REPORT_REWRITTEN}, {}),
    ("drop the version 1 reader", {"tally/legacy.py": None}, {}),
    ("cli: drop the version 1 summary", {"tally/cli.py": (CLI_HEAD + CLI_TAIL).replace("import store as",
                                                                                        "import storage as")}, {}),
]


def build(work: Path) -> str:
    """The history above as a git repository under `work`; returns its git directory."""
    repo = work / "tally"
    repo.mkdir(parents=True)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}

    def git(*args: str, when: int = 0) -> None:
        stamp = f"{1_700_000_000 + when * 86_400} +0000"
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                       env={**env, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})

    git("init", "-q", "-b", "main")
    for n, (message, files, renames) in enumerate(COMMITS):
        for old, new in renames.items():
            git("mv", old, new)
        for path, text in files.items():
            if text is None:
                git("rm", "-q", path)
                continue
            target = repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            git("add", path)
        git("commit", "-q", "-m", message, when=n)
    return str(repo / ".git")
