"""The pre-action hook: records whose anchors match an edit, a command or a tool reach the model before it runs, once
per session, within budget; guards ask or deny; nothing at all when nothing matches."""

from agentctx.base import guards, paths
from agentctx.base.project import detect
from agentctx.hooks import action
from agentctx.memory import anchormap, consolidate
from agentctx.store import records

from hookcases import payload as _payload
from hookcases import pending as _pending



def test_no_anchored_record_means_no_map_and_no_output(add, repo, hook):
    add("Plain", "Nothing governed.")
    assert not (paths.state_dir_str() and __import__("os").path.exists(paths.anchor_map_file(detect(repo).id)))
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": str(repo / "src/x.py")})) is None


def test_an_anchored_edit_gets_the_record_once_per_session(add, repo, hook):
    rec = add("Payments use integer cents", "Amounts in src/payments are integer cents, never floats.",
              anchors=("path:src/payments/**",))
    consolidate.run(detect(repo))  # the root cache the hooks read
    out = hook("pre-tool-use", _payload(repo, "Edit", {"file_path": str(repo / "src/payments/charge.py"),
                                                       "old_string": "a", "new_string": "b"}))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert "Payments use integer cents" in text and rec.id in text and "integer cents, never floats" in text
    assert "permissionDecision" not in out["hookSpecificOutput"]
    assert action.ACTION_BUDGET * 4 >= len(text)
    row = [r for r in _pending() if r["event"] == "PreToolUse"][-1]
    assert row["record_ids"] == [rec.id] and row["tokens"] > 0
    # once per session; another session gets it again; an unanchored file gets nothing
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": str(repo / "src/payments/refund.py")})) is None
    assert hook("pre-tool-use", _payload(repo, "Write", {"file_path": "src/payments/x.py"}, session="s2"))
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": str(repo / "src/other.py")}, session="s3")) is None


def test_commands_tools_and_symbols(add, repo, hook):
    add("Migrations through alembic", "Run alembic upgrade head only after a backup.", anchors=("command:alembic upgrade",))
    add("No web fetches", "Docs are vendored under docs/vendor.", anchors=("tool:WebFetch",))
    add("Client.send retries", "send() retries three times; do not add another loop.", anchors=("symbol:Client.send",))
    consolidate.run(detect(repo))
    out = hook("pre-tool-use", _payload(repo, "Bash", {"command": "cd app && sudo alembic upgrade head"}))
    assert "Migrations through alembic" in out["hookSpecificOutput"]["additionalContext"]
    assert hook("pre-tool-use", _payload(repo, "Bash", {"command": "alembic history"}, session="t")) is None
    assert "No web fetches" in hook("pre-tool-use", _payload(repo, "WebFetch", {"url": "x"}))["hookSpecificOutput"][
        "additionalContext"]
    out = hook("pre-tool-use", _payload(repo, "Edit", {"file_path": "a.py", "new_string": "client.send(msg)"}))
    assert "Client.send retries" in out["hookSpecificOutput"]["additionalContext"]
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": "a.py", "new_string": "resend()"}, session="u")) is None


def test_a_never_guard_asks_every_time_and_deny_denies(add, conn, repo, hook):
    rec = add("No force pushes", "Never force-push shared branches; open a PR instead.")
    pid = detect(repo).id
    records.set_guard(conn, rec.id, pid, guards.make("never", ["command:git push --force"]))
    consolidate.run(detect(repo))
    for _ in range(2):  # a guard is not once per session
        out = hook("pre-tool-use", _payload(repo, "Bash", {"command": "git fetch && git push --force origin main"}))
        specific = out["hookSpecificOutput"]
        assert specific["permissionDecision"] == "ask"
        assert "No force pushes" in specific["permissionDecisionReason"] and rec.id in specific["permissionDecisionReason"]
    assert hook("pre-tool-use", _payload(repo, "Bash", {"command": "git push origin topic"})) is None
    records.set_guard(conn, rec.id, pid, guards.make("never", ["command:git push --force"], "deny"))
    out = hook("pre-tool-use", _payload(repo, "Bash", {"command": "git push --force"}))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    records.set_guard(conn, rec.id, pid, "")
    assert hook("pre-tool-use", _payload(repo, "Bash", {"command": "git push --force"}, session="z")) is None


def test_an_always_guard_stops_actions_in_scope_that_miss_the_pattern(add, conn, repo, hook):
    rec = add("Test before pushing", "Run make test in the same command before any git push.",
              anchors=("command:git push",))
    pid = detect(repo).id
    records.set_guard(conn, rec.id, pid, guards.make("always", ["command:make test"], record_anchors=rec.anchors))
    consolidate.run(detect(repo))
    assert hook("pre-tool-use", _payload(repo, "Bash", {"command": "git push"}))["hookSpecificOutput"][
        "permissionDecision"] == "ask"
    out = hook("pre-tool-use", _payload(repo, "Bash", {"command": "make test && git push"}))
    assert out is None or "permissionDecision" not in out["hookSpecificOutput"]


def test_guards_refuse_inferred_records_and_bad_patterns(add, conn, repo):
    import pytest

    from agentctx.base.errors import ValidationError

    rec = add("Seen once", "inferred", confidence="inferred")
    with pytest.raises(ValidationError):
        records.set_guard(conn, rec.id, detect(repo).id, guards.make("never", ["command:rm -rf"]))
    for bad in (["command:/.*(a+)+$/"], ["**"], ["/etc/passwd"], [], ["symbol:X.y"]):
        with pytest.raises(guards.GuardError):
            guards.make("never", bad)
    with pytest.raises(guards.GuardError):
        guards.make("always", ["command:make test"])  # no anchors: no scope


def test_select_keeps_within_budget_and_skips_native_agents():
    entries = [{"id": f"r{i}", "type": "rule", "title": f"Rule {i}", "text": "x " * 110,
                "anchors": ["path:src/**"], "guard": "", "skip_agents": ["codex"] if i == 0 else []}
               for i in range(10)]
    target = action.Target("Edit", ("src/a.py",), "", "")
    picks = action.select(entries, target, "claude", set())
    assert 0 < len(picks) < 10
    assert (len(action.render(picks)) + 3) // 4 <= action.ACTION_BUDGET
    assert "r0" not in [p.entry["id"] for p in action.select(entries, target, "codex", set())]
    assert action.select(entries, target, "claude", {e["id"] for e in entries}) == []


def test_the_map_indexes_so_an_unrelated_target_checks_nothing(add, conn, repo):
    add("Docs", "d", anchors=("path:docs/**", "*.md"))
    add("Npm", "n", anchors=("command:npm",))
    data = anchormap.build(conn, detect(repo).id)
    root = str(repo)
    assert action.candidates(data, action.target_of("Edit", {"file_path": "src/x.py"}, root, root)) == []
    assert len(action.candidates(data, action.target_of("Edit", {"file_path": "README.md"}, root, root))) == 1
    assert len(action.candidates(data, action.target_of("Bash", {"command": "cd x; ./node_modules/.bin/npm i"},
                                                        root, root))) == 1


def test_a_broken_map_or_payload_never_breaks_the_hook(add, repo, hook):
    add("A", "b", anchors=("src/**",))
    consolidate.run(detect(repo))
    with open(paths.anchor_map_file(detect(repo).id), "w") as fh:
        fh.write("{not json")
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": "src/a.py"})) is None
    assert hook("pre-tool-use", _payload(repo, "Edit", ["junk"])) is None
    assert hook("pre-tool-use", "not json") is None


def test_hostile_payloads_are_bounded_and_exit_zero(add, repo, hook):
    import time

    add("Npm", "Use pnpm.", anchors=("command:npm install", "src/**"))
    consolidate.run(detect(repo))
    cases = [_payload(repo, "Bash", {"command": "a;" * 500_000 + "npm install"}),
             _payload(repo, "Edit", {"file_path": "src/\udcff\udcfe.py"}),
             _payload(repo, "Edit", {"file_paths": [f"src/f{i}.py" for i in range(10_000)]}),
             _payload(repo, "Edit", {"file_path": "/" + "a/" * 5000 + "x.py"}),
             _payload(repo, "Bash", {"command": "'" * 100_000})]
    for i, payload in enumerate(cases):
        start = time.perf_counter()
        hook("pre-tool-use", {**payload, "session_id": f"h{i}"})  # exits 0 (the fixture asserts it)
        assert time.perf_counter() - start < 2.0
    out = hook("pre-tool-use", _payload(repo, "Edit", {"file_path": "src/\udcff.py"}, session="u8"))
    assert out is None or "Npm" in out["hookSpecificOutput"]["additionalContext"]


def test_a_session_end_and_a_compaction_forget_what_was_delivered(add, repo, hook):
    add("Payments", "cents", anchors=("src/**",))
    consolidate.run(detect(repo))
    edit = _payload(repo, "Edit", {"file_path": "src/a.py"})
    assert hook("pre-tool-use", edit)
    assert hook("pre-tool-use", edit) is None
    hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "compact"})
    assert hook("pre-tool-use", edit)  # the summary replaced what the model had seen
    hook("session-end", {"session_id": "s1", "cwd": str(repo), "reason": "other"})
    assert not __import__("os").path.exists(paths.actions_file("s1"))


def test_each_delivery_gets_its_own_follow_up_without_tool_use_ids(add, conn, repo, hook):
    """Gemini CLI gives no tool-use id: the action's key is its target, and a repeated action is followed up again."""
    rec = add("No force pushes", "Open a PR.")
    records.set_guard(conn, rec.id, detect(repo).id, guards.make("never", ["command:git push --force"]))
    consolidate.run(detect(repo))
    push = _payload(repo, "Bash", {"command": "git push --force"})
    for _ in range(2):
        assert hook("pre-tool-use", push)["hookSpecificOutput"]["permissionDecision"] == "ask"
        hook("post-tool-use", {**push, "tool_response": {"stdout": ""}})
    outcomes = [r["outcomes"] for r in _pending() if r["event"] == "PostToolUse"]
    assert outcomes == [{rec.id: "ignored"}, {rec.id: "ignored"}]
    hook("post-tool-use", {**push, "tool_response": {"stdout": ""}})  # no delivery left to answer: nothing noted
    assert len([r for r in _pending() if r["event"] == "PostToolUse"]) == 2


def test_a_path_rule_the_agent_loads_itself_is_still_delivered_for_a_shell_edit_or_read(conn, repo):
    # The real case (issue 43): Claude Code loads a `.claude/rules` file with `paths` at Read/Write/Edit of a matching
    # file, Copilot its `applyTo` instructions, Gemini a folder's GEMINI.md; none of them for `sed -i`, `>` or `cat`.
    from agentctx.outside import rulefiles

    for rel, text in ((".claude/rules/db.md", '---\npaths: ["migrations/*.sql"]\n---\n# Migrations\nNever edit an '
                       "applied one."), (".github/instructions/py.instructions.md", "---\napplyTo: 'src/**/*.py'\n"
                       "---\nType hints everywhere."), ("pkg/GEMINI.md", "# Pkg\nNo IO in pkg."),
                      (".claude/rules/style.md", "# Style\nTabs, never spaces.")):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    for rel in ("migrations/001.sql", "src/a.py", "pkg/x.txt"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x\n", encoding="utf-8")
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    data = anchormap.build(conn, project.id)
    root = str(repo)

    def picked(agent, tool, tool_input):
        target = action.target_of(tool, tool_input, root, root)
        return [p.entry["origin"] for p in action.select(action.candidates(data, target), target, agent, set())]

    cases = (("claude", "migrations/001.sql", "rule file: .claude/rules/db.md"),
             ("copilot", "src/a.py", "rule file: .github/instructions/py.instructions.md"),
             ("gemini", "pkg/x.txt", "rule file: pkg/GEMINI.md"))
    for agent, rel, origin in cases:
        assert picked(agent, "Edit", {"file_path": rel, "old_string": "x", "new_string": "y"}) == []
        assert picked(agent, "Read", {"file_path": rel}) == []
        for line in (f"sed -i 's/x/y/' {rel}", f"echo y > {rel}", f"cat > {rel} <<'EOF'\ny\nEOF", f"cat {rel}",
                     f"sed -n 1,5p {rel}"):
            assert origin in picked(agent, "Bash", {"command": line}), (agent, line)
        assert picked("codex", "Edit", {"file_path": rel, "old_string": "x", "new_string": "y"}) == [origin]
    # A rule Claude Code has from the session's start (`.claude/rules` without `paths`) stays skipped for it
    # everywhere, a shell line included.
    rule = next(r for r in records.current(conn, project.id, limit=100) if r.title.startswith(".claude/rules/style"))
    style = anchormap.entry(conn, rule)
    assert "claude" in style["skip_start"] and "claude" in style["skip_agents"]
    from agentctx.outside.native import entry_skips

    assert entry_skips(style, "claude", "", shell=True) and not entry_skips(style, "codex", "", shell=True)
