"""base/shellpaths.py: the files a shell line writes."""

import pytest

from agentctx.base.shellpaths import line_writes


@pytest.mark.parametrize("line,expected", [
    ("sed -i 's/a/b/' migrations/0001.sql", ["migrations/0001.sql"]),
    ("sed -i.bak -e 's/a/b/' -e 's/c/d/' a.sql b.sql", ["a.sql", "b.sql"]),
    ("sed -i '' -e 's/a/b/' a.sql", ["a.sql"]),
    ("sed -Ei 's/a/b/' a.sql", ["a.sql"]),
    ("sed -n 's/a/b/p' a.sql", []),
    ("perl -pi -e 's/a/b/' a.sql", ["a.sql"]),
    ("perl -i.orig -pe 's/a/b/' a.sql", ["a.sql"]),
    ("perl -ne 'print' a.sql", []),
    ("echo x > a.sql", ["a.sql"]),
    ("echo x >> a.sql 2> err.log", ["a.sql", "err.log"]),
    ("make &> build.log", ["build.log"]),
    ("ls 2>&1 >/dev/null", []),
    ("echo x >| a.sql", ["a.sql"]),
    ("cat a.sql < in.sql", []),
    ("echo x | tee -a a.sql b.sql", ["a.sql", "b.sql"]),
    ("cat > migrations/0002.sql <<'EOF'\ncreate table t();\nEOF", ["migrations/0002.sql"]),
    ("cp a.sql migrations/", ["migrations/", "migrations/a.sql"]),
    ("cp -r db migrations", ["migrations"]),
    ("cp a.sql b.sql migrations", ["migrations", "migrations/a.sql", "migrations/b.sql"]),
    ("cp -t migrations a.sql", ["migrations", "migrations/a.sql"]),
    ("mv migrations/a.sql old.sql", ["old.sql", "migrations/a.sql"]),
    ("install -m 644 a.sql migrations/a.sql", ["migrations/a.sql"]),
    ("rm -rf migrations", ["migrations"]),
    ("rm -f -- -x.sql", ["-x.sql"]),
    ("touch -d yesterday migrations/x", ["migrations/x"]),
    ("truncate -s 0 a.sql", ["a.sql"]),
    ("mkdir -p migrations/versions", ["migrations/versions"]),
    ("ln -sf ../a.sql migrations/a.sql", ["migrations/a.sql"]),
    ("dd if=/dev/zero of=a.img bs=1M", ["a.img"]),
    ("curl -sSo a.json https://x", ["a.json"]),
    ("wget -O a.json https://x", ["a.json"]),
    ("git checkout HEAD~1 -- migrations/a.sql", ["migrations/a.sql"]),
    ("git checkout main migrations/", ["migrations/"]),
    ("git checkout -b topic", []),
    ("git checkout main", []),
    ("git restore --staged migrations/a.sql", ["migrations/a.sql"]),
    ("git -C . restore migrations/a.sql", ["migrations/a.sql"]),
    ("git rm -r migrations", ["migrations"]),
    ("python -c \"open('migrations/x.sql', 'w').write('1')\"", ["migrations/x.sql"]),
    ("python3 -c \"open('migrations/x.sql').read()\"", []),
    ("python -c \"open('a.txt', mode='a')\"", ["a.txt"]),
    ("python - <<'EOF'\nfrom pathlib import Path\nPath('migrations/y.sql').write_text('x')\nEOF", ["migrations/y.sql"]),
    ("python3 <<'EOF'\nimport os\nos.remove(\"migrations/z.sql\")\nEOF", ["migrations/z.sql"]),
    ("node -e \"require('fs').writeFileSync('a.json', '{}')\"", ["a.json"]),
    ("git apply <<'EOF'\ndiff --git a/migrations/a.sql b/migrations/a.sql\n--- a/migrations/a.sql\n+++ b/migrations/a.sql\n@@ -1 +1 @@\nEOF",
     ["migrations/a.sql"]),
    ("patch -p1 <<'EOF'\n--- a/src/x.py\n+++ b/src/x.py\nEOF", ["src/x.py"]),
    ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: migrations/a.sql\n*** End Patch\nEOF", ["migrations/a.sql"]),
    ("black migrations/", ["migrations/"]),
    ("prettier --write src/a.ts", ["src/a.ts"]),
    ("prettier --check src/a.ts", []),
    ("ruff format src", ["src"]),
    ("ruff check src", []),
    ("bash -c 'echo x > migrations/a.sql'", ["migrations/a.sql"]),
    ("sudo tee migrations/a.sql < x", ["migrations/a.sql"]),
    ("for f in *.sql; do rm \"$f\"; done", []),
    ("find migrations -name '*.sql' -exec rm {} \\;", ["migrations"]),
])
def test_writes(line: str, expected: "list[str]") -> None:
    assert list(line_writes(line)) == expected


def test_a_destination_folder_is_asked_about() -> None:
    assert line_writes("cp a.sql migrations", isdir=lambda p: p == "migrations") == ("migrations", "migrations/a.sql")
    assert line_writes("cp a.sql b.sql", isdir=lambda p: False) == ("b.sql",)
