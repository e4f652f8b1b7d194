from agentctx.outside import claudemd


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def names(files, root):
    return [str(f.path.relative_to(root)) if root in f.path.parents else f.path.name for f in files]


def test_roots_and_imports_relative_to_the_importer(repo, tmp_path):
    write(repo / "CLAUDE.md", "See @docs/style.md and @README.md.\n")
    write(repo / ".claude" / "CLAUDE.md", "- @rules/testing.md\n")
    write(repo / ".claude" / "rules" / "testing.md", "Use pytest.\n")
    write(repo / "docs" / "style.md", "Imports: @../AGENTS.md\n")
    write(repo / "AGENTS.md", "Be brief.\n")
    write(repo / "README.md", "# App\n")
    files = claudemd.load(repo, home=tmp_path / "home")
    assert names(files, repo.resolve()) == ["CLAUDE.md", ".claude/CLAUDE.md", "docs/style.md", "README.md",
                                            ".claude/rules/testing.md", "AGENTS.md"]
    assert [f.depth for f in files] == [0, 0, 1, 1, 1, 2]


def test_cycles_depth_and_code_are_safe(repo, tmp_path):
    write(repo / "CLAUDE.md", "@a.md\n```\n@fenced.md\n```\nnot `@span.md`, mail me@x.md\n")
    write(repo / "a.md", "@b.md\n")
    write(repo / "b.md", "@CLAUDE.md @c.md\n")
    for name in ("c", "d", "e", "f", "g"):
        write(repo / f"{name}.md", f"@{chr(ord(name) + 1)}.md\n")
    for name in ("fenced.md", "span.md", "x.md"):
        write(repo / name, "x\n")
    files = claudemd.load(repo, home=tmp_path / "home")
    got = [f.path.name for f in files]
    assert got == ["CLAUDE.md", "a.md", "b.md", "c.md", "d.md", "e.md"]  # five hops, no loop
    assert max(f.depth for f in files) == claudemd.MAX_DEPTH


def test_imports_only_inside_repo_or_home(repo, tmp_path):
    home = tmp_path / "home"
    outside = write(tmp_path / "elsewhere" / "secret.md", "x\n")
    write(home / ".claude" / "mine.md", "Personal rules.\n")
    write(repo / "CLAUDE.md", f"@{outside}\n@~/.claude/mine.md\n@/etc/hostname\n")
    files = claudemd.load(repo, home=home)
    assert [f.path.name for f in files] == ["CLAUDE.md", "mine.md"]


def test_missing_files_are_fine(repo, tmp_path):
    assert claudemd.load(repo, home=tmp_path) == []
    write(repo / "CLAUDE.md", "@nope.md\n")
    assert len(claudemd.load(repo, home=tmp_path)) == 1


def test_lines_carry_headings_and_code_marks(repo, tmp_path):
    write(repo / "CLAUDE.md", "# Top\n\n## Testing\n- plain functions\n```sh\npytest -q\n```\n")
    lines = claudemd.lines(claudemd.load(repo, home=tmp_path))
    assert [(ln.text, ln.heading, ln.in_code) for ln in lines] == [
        ("Top", "", False), ("Testing", "Top", False), ("- plain functions", "Testing", False),
        ("pytest -q", "Testing", True)]
    assert lines[2].number == 4
