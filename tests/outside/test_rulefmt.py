"""Each rule format read as anchors, keeping its meaning (outside/rulefmt.py; vendor-notes/rule-files.md)."""

from __future__ import annotations

from agentctx.base.anchors import path_matches
from agentctx.outside.rulefmt import expand_braces, glob_list, parse, split_frontmatter


def _governs(rule, path):
    return any(path_matches(a.split(":", 1)[1], path) for a in rule.anchors)


def test_cursor_globs_comma_separated_and_braces():
    text = "---\ndescription: API errors\nglobs: src/api/**/*.ts, src/**/*.{test,spec}.ts\nalwaysApply: false\n---\n# API\nUse ApiError.\n"
    rule = parse(".cursor/rules/api.mdc", text)
    assert rule.mode == "globs" and rule.title == "API errors"
    assert rule.anchors == ("path:src/api/**/*.ts", "path:src/**/*.test.ts", "path:src/**/*.spec.ts")
    assert _governs(rule, "src/api/v1/users.ts") and _governs(rule, "src/x/y.spec.ts")
    assert not _governs(rule, "src/x/y.ts") and not _governs(rule, "docs/api.md")
    assert rule.body == "# API\nUse ApiError."


def test_cursor_activation_modes():
    always = parse(".cursor/rules/a.mdc", "---\ndescription: x\nglobs: src/**\nalwaysApply: true\n---\nbody")
    assert always.mode == "always" and always.anchors == ()  # alwaysApply wins over globs
    asked = parse(".cursor/rules/b.mdc", "---\ndescription: When writing migrations\nglobs:\nalwaysApply: false\n---\nbody")
    assert asked.mode == "description" and asked.title == "When writing migrations"
    manual = parse(".cursor/rules/c.mdc", "---\ndescription:\nglobs:\nalwaysApply: false\n---\nbody")
    assert manual.mode == "manual"
    quoted = parse(".cursor/rules/d.mdc", '---\nglobs: "*.py"\nalwaysApply: "true"\n---\nbody')
    assert quoted.mode == "globs" and any("not a boolean" in n for n in quoted.notes)


def test_claude_rules_paths_list_and_no_paths():
    rule = parse(".claude/rules/front.md", '---\npaths:\n  - "web/**/*.{ts,tsx}"\n  - "tests/**/*.test.ts"\n---\n# Front\n')
    assert rule.mode == "globs" and rule.format == "claude_rules"
    assert set(rule.anchors) == {"path:web/**/*.ts", "path:web/**/*.tsx", "path:tests/**/*.test.ts"}
    assert parse(".claude/rules/general.md", "# General\nAlways.").mode == "always"


def test_copilot_apply_to():
    rule = parse(".github/instructions/py.instructions.md", "---\napplyTo: '**/*.py,scripts/*.sh'\n---\nType hints.")
    # VS Code puts `**/` before a glob that does not start with `/` or `**/` (vendor-notes/rule-files.md, 12).
    assert rule.mode == "globs" and rule.anchors == ("path:**/*.py", "path:**/scripts/*.sh")
    assert parse(".github/instructions/all.instructions.md", '---\napplyTo: "**"\n---\nx').mode == "always"
    assert parse(".github/instructions/none.instructions.md", "# no applyTo\nx").mode == "manual"
    assert parse(".github/instructions/notes.md", "x") is None  # not an .instructions.md file


def test_nested_files_govern_their_folder_and_root_files_are_their_agents():
    rule = parse("packages/api/AGENTS.md", "# API package\nRun make test.")
    assert rule.mode == "directory" and rule.anchors == ("path:packages/api/",)
    assert _governs(rule, "packages/api/src/a.py") and not _governs(rule, "packages/apix/a.py")
    assert parse("svc/.claude/CLAUDE.md", "x").anchors == ("path:svc/",)
    assert parse("AGENTS.md", "# Root").mode == "root"
    assert parse("GEMINI.md", "x").mode == "root"


def test_unusable_globs_are_noted_not_fatal():
    rule = parse(".cursor/rules/x.mdc", "---\nglobs: ../outside/*.py, !vendor/**, /abs/ok.py\n---\nx")
    assert rule.anchors == ("path:abs/ok.py",)  # a leading `/` is the repository root in these formats
    assert any("'..'" in n for n in rule.notes) and any("negated" in n for n in rule.notes)


def test_braces_are_bounded_and_nested():
    assert expand_braces("a/{b,c{d,e}}/*.py") == ["a/b/*.py", "a/cd/*.py", "a/ce/*.py"]
    assert len(expand_braces("{a,b}{c,d}{e,f}{g,h}{i,j}")) == 24
    assert expand_braces("a{b}c") == ["a{b}c"]
    assert glob_list(["a,b", "c{d,e}"]) == ["a", "b", "c{d,e}"]


def test_frontmatter_subset():
    fields, body = split_frontmatter("\ufeff---\na: [x, 'y']\nb: yes # comment\nc:\n- 1\n- two\n---\nrest\n")
    assert fields == {"a": ["x", "y"], "b": True, "c": ["1", "two"]} and body == "rest"
    assert split_frontmatter("---\nno end\n")[0] == {}


# Issue 42, item 16: a slash-free glob means what its own agent makes of it (vendor-notes/rule-files.md, "Globs").
# The rule files are the kept-apart check's shapes: a docs rule `*.md`, a README rule, a root config file.
SLASH_FREE = {
    "cursor": (".cursor/rules/docs.mdc", "---\ndescription: Docs\nglobs: '*.md, README.md'\n---\nOne sentence a line."),
    "claude_rules": (".claude/rules/docs.md", "---\npaths:\n  - \"*.md\"\n  - \"README.md\"\n---\nOne sentence a line."),
    "copilot": (".github/instructions/docs.instructions.md", "---\napplyTo: '*.md,README.md'\n---\nOne sentence a line."),
}
# What each agent does with `*.md` / `README.md` for a file at the root and one below it: Cursor's docs ("`*.ts`:
# all .ts files in the root"); Claude Code 2.1.197 and 2.1.332 match `paths` with the `ignore` package (gitignore:
# a pattern without a slash matches at any depth); VS Code's Copilot prefixes `**/`.
AT_DEPTH = {"cursor": False, "claude_rules": True, "copilot": True}


def test_a_slash_free_glob_matches_where_its_agent_matches_it():
    for fmt, (path, text) in SLASH_FREE.items():
        rule = parse(path, text)
        assert rule.format == fmt and rule.mode == "globs"
        assert _governs(rule, "README.md") and _governs(rule, "CHANGELOG.md"), fmt
        assert _governs(rule, "docs/guide.md") is AT_DEPTH[fmt], fmt
        assert _governs(rule, "pkg/README.md") is AT_DEPTH[fmt], fmt
        assert not _governs(rule, "src/main.py"), fmt


def test_a_leading_slash_or_dot_is_the_root_and_an_inner_slash_is_rooted():
    claude = parse(".claude/rules/cfg.md", '---\npaths: ["/setup.cfg", "./tox.ini", "src/*.py"]\n---\nx')
    assert _governs(claude, "setup.cfg") and not _governs(claude, "pkg/setup.cfg")
    assert _governs(claude, "tox.ini") and not _governs(claude, "a/tox.ini")
    assert _governs(claude, "src/a.py") and not _governs(claude, "lib/src/a.py")  # gitignore: an inner `/` anchors
    cursor = parse(".cursor/rules/src.mdc", "---\nglobs: src/*.py\n---\nx")
    assert _governs(cursor, "src/a.py") and not _governs(cursor, "lib/src/a.py")
    copilot = parse(".github/instructions/src.instructions.md", "---\napplyTo: 'src/*.py'\n---\nx")
    assert _governs(copilot, "src/a.py") and _governs(copilot, "lib/src/a.py")  # `**/src/*.py`, as VS Code reads it
