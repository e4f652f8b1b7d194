"""Regenerate agentctx/retrieval/expansions.txt from tools/vocabulary.txt (written by hand): for each stem a question may use,
the stems (with one word spelling each) that a record may name the same thing by.

    python tools/build_expansions.py [--check]

The output is stemmed ahead of time because stemming the ~600 words at every prompt would cost the hook ~1.5 ms.
`--check` exits 1 when the file is not what the vocabulary builds (tests run it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentctx.base import text  # noqa: E402

SOURCE = ROOT / "tools" / "vocabulary.txt"
OUT = ROOT / "agentctx" / "retrieval" / "expansions.txt"
HEADER = "# Built by tools/build_expansions.py from tools/vocabulary.txt: do not edit. stem<TAB>stem:word ...\n"


def parse(source: str) -> tuple[list[list[str]], list[tuple[list[str], list[str]]]]:
    """(alias groups, (category words, members) pairs) of the vocabulary's lines."""
    groups: list[list[str]] = []
    categories: list[tuple[list[str], list[str]]] = []
    for n, raw in enumerate(source.splitlines(), 1):
        line = raw.split("#", 1)[0].strip().lower()
        if not line:
            continue
        if line.startswith("="):
            words = line[1:].split()
            if len(words) < 2:
                raise SystemExit(f"{SOURCE.name}:{n}: an alias group needs two words or more")
            groups.append(words)
        elif ">" in line:
            left, _, right = line.partition(">")
            if not left.split() or not right.split():
                raise SystemExit(f"{SOURCE.name}:{n}: words on both sides of '>' are needed")
            categories.append((left.split(), right.split()))
        else:
            raise SystemExit(f"{SOURCE.name}:{n}: a line is '= words' or 'words > words'")
    for word in [w for g in groups for w in g] + [w for left, right in categories for w in left + right]:
        if text.tokens(word) != [word] or word in text.STOPWORDS:
            raise SystemExit(f"{SOURCE.name}: {word!r} is not one index token or is a stopword")
    return groups, categories


def build(source: str) -> str:
    groups, categories = parse(source)
    words = sorted({w for g in groups for w in g} | {w for left, right in categories for w in left + right})
    stem = dict(zip(words, text.stems(words)))
    out: dict[str, dict[str, str]] = {}
    aliases: dict[str, set[str]] = {}
    for group in groups:
        for word in group:
            aliases.setdefault(stem[word], set()).update(stem[w] for w in group)

    def add(key: str, word: str) -> None:
        if stem[word] != key:
            out.setdefault(key, {}).setdefault(stem[word], word)

    for group in groups:
        for word in group:
            for other in group:
                add(stem[word], other)
    for left, right in categories:
        for word in left:
            # A question's word, or any word naming the same thing, is answered by a record naming a member.
            for key in aliases.get(stem[word], {stem[word]}):
                for member in right:
                    add(key, member)
    lines = [f"{key}\t{' '.join(f'{s}:{w}' for s, w in sorted(members.items()))}\n"
             for key, members in sorted(out.items())]
    return HEADER + "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when agentctx/retrieval/expansions.txt is out of date")
    args = parser.parse_args(argv)
    built = build(SOURCE.read_text(encoding="utf-8"))
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != built:
            print(f"{OUT} is out of date: run python tools/build_expansions.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(built, encoding="utf-8")
    print(f"wrote {OUT} ({built.count(chr(10)) - 1} stems)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
