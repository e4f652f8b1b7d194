"""The dashboard's JSON API through http.client: every endpoint, and bad input answered 4xx with nothing written."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from agentctx.store import db
from agentctx.base import paths
from agentctx.base.project import detect
from agentctx.store import records


def _count(table: str = "records") -> int:
    conn = db.connect(paths.db_path())
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def test_meta_names_the_project_and_closed_sets(live, seeded):
    status, _, data = live.call("GET", "/api/meta")
    assert status == 200
    assert data["project"]["id"] == seeded["project"].id
    assert "decision" in data["types"] and "inferred" in data["confidences"] and "dashboard" in data["sources"]
    assert any(p["id"] == seeded["project"].id and p["current"] == 4 for p in data["projects"])


def test_records_lists_current_filters_and_paginates(live, seeded):
    status, _, data = live.call("GET", "/api/records")
    assert status == 200 and data["total"] == 4
    titles = [r["title"] for r in data["items"]]
    assert "Use PostgreSQL for orders" in titles and len(titles) == 4
    _, _, only = live.call("GET", "/api/records?type=convention&confidence=inferred")
    assert [r["id"] for r in only["items"]] == [seeded["inferred"].id]
    _, _, pinned = live.call("GET", "/api/records?pinned=1")
    assert [r["id"] for r in pinned["items"]] == [seeded["pinned"].id]
    _, _, old = live.call("GET", "/api/records?superseded=only")
    assert [r["id"] for r in old["items"]] == [seeded["db"].id] and old["items"][0]["current"] is False
    _, _, page = live.call("GET", "/api/records?limit=2&offset=2")
    assert page["total"] == 4 and len(page["items"]) == 2
    assert {r["id"] for r in page["items"]}.isdisjoint({r["id"] for r in live.call("GET", "/api/records?limit=2")[2]["items"]})


def test_search_uses_the_cli_ranking(live, seeded, run_cli):
    _, _, data = live.call("GET", "/api/records?q=which%20database%20for%20orders")
    assert data["items"] and data["items"][0]["title"] == "Use PostgreSQL for orders"
    assert "score" in data["items"][0] and "relevance" in data["items"][0]
    cli_top = run_cli("search", "which database for orders", "--json")[0]["id"]
    assert data["items"][0]["id"] == cli_top


def test_record_detail_has_the_chain_entities_and_appearances(live, seeded):
    conn = db.connect(paths.db_path())
    head = records.head(conn, records.get(conn, seeded["db"].id))
    conn.close()
    status, _, data = live.call("GET", f"/api/records/{seeded['db'].id}")
    assert status == 200
    assert [r["id"] for r in data["history"]] == [seeded["db"].id, head.id]
    assert data["record"]["current"] is False
    _, _, xss = live.call("GET", f"/api/records/{seeded['xss'].id}")
    assert xss["appearances"][0]["session_id"] == "sess-1"


def test_supersede_confirm_pin_delete_go_through_the_library(live, seeded):
    rid = seeded["inferred"].id
    status, _, data = live.call("POST", f"/api/records/{rid}/supersede",
                                {"title": "Tests run with pytest -q -x", "body": "Stop at the first failure.",
                                 "rationale": "faster feedback"})
    assert status == 200
    new = data["new"]
    assert new["title"] == "Tests run with pytest -q -x" and new["source"] == "dashboard" and new["confidence"] == "explicit"
    assert "Rationale: faster feedback" in new["body"]
    conn = db.connect(paths.db_path())
    assert records.get(conn, rid).superseded_by == new["id"]
    assert live.call("POST", f"/api/records/{seeded['pinned'].id}/pin", {"pinned": False})[2]["record"]["pinned"] is False
    assert records.get(conn, seeded["pinned"].id).pinned is False
    conn.close()


def test_confirm_makes_an_inferred_record_explicit(live, seeded, add):
    rec = add("Branches are named feature/*", "Seen in three sessions.", type_="convention", confidence="inferred")
    status, _, data = live.call("POST", f"/api/records/{rec.id}/confirm", {})
    assert status == 200 and data["record"]["confidence"] == "explicit"
    conn = db.connect(paths.db_path())
    assert records.get(conn, rec.id).confidence == "explicit"
    conn.close()


def test_delete_needs_confirmation(live, seeded):
    rid = seeded["xss"].id
    before = _count()
    status, _, data = live.call("POST", f"/api/records/{rid}/delete", {})
    assert status == 400 and data["code"] == "not_confirmed" and _count() == before
    status, _, data = live.call("POST", f"/api/records/{rid}/delete", {"confirm": True})
    assert status == 200 and data["deleted"] == rid and _count() == before - 1


def test_sessions_overview_graph_and_drift(live, seeded):
    _, _, data = live.call("GET", "/api/sessions")
    assert data["total"] == 1 and data["items"][0]["session_id"] == "sess-1"
    assert data["items"][0]["tokens_injected"] == 120 and data["items"][0]["records_written"] == 1
    # What the session's tokens went to (`agentctx stats --sessions`): by channel, and by what the records were.
    assert sum(data["items"][0]["channels"].values()) == 120 and data["items"][0]["sources"]["records"] == 120
    _, _, one = live.call("GET", "/api/sessions/sess-1")
    assert one["injections"][0]["records"][0]["id"] == seeded["pinned"].id
    assert [r["id"] for r in one["written"]] == [seeded["inferred"].id]
    _, _, ov = live.call("GET", "/api/overview")
    assert ov["by_type"] == {"convention": 2, "decision": 1, "discovery": 1}
    assert ov["daily"][-1]["tokens"] == 120
    _, _, graph = live.call("GET", "/api/graph")
    ids = {n["id"] for n in graph["nodes"]}
    assert seeded["xss"].id in ids and seeded["db"].id not in ids  # current records only
    status, _, drift = live.call("GET", "/api/drift")
    assert status == 200 and set(drift) >= {"missing", "contradicted", "proposed_diff"}


def test_drift_apply_writes_claude_md_with_confirmation(live, seeded, repo):
    status, _, data = live.call("POST", "/api/drift/apply", {"confirm": False})
    assert status in (400, 409)
    assert not (repo / "CLAUDE.md").exists()
    _, _, report = live.call("GET", "/api/drift")
    if report["proposed_diff"]:
        status, _, done = live.call("POST", "/api/drift/apply", {"confirm": True, "base_sha": report["base_sha"]})
        assert status == 200 and (repo / "CLAUDE.md").exists()


@pytest.mark.parametrize("method,path,body,status,code", [
    ("GET", "/api/records?limit=0", None, 400, "invalid_field"),
    ("GET", "/api/records?limit=abc", None, 400, "invalid_field"),
    ("GET", "/api/records?type=nonsense", None, 400, "invalid_field"),
    ("GET", "/api/records?superseded=maybe", None, 400, "invalid_field"),
    ("GET", "/api/records/NOPE", None, 404, "record_not_found"),
    ("GET", "/api/sessions/none-such", None, 404, "session_not_found"),
    ("GET", "/api/nothing", None, 404, "not_found"),
    ("PUT", "/api/records", None, 405, "method_not_allowed"),
    ("POST", "/api/records/{id}/supersede", {"body": "", "rationale": "r"}, 400, "blank_field"),
    ("POST", "/api/records/{id}/supersede", {"body": "x"}, 400, "blank_field"),
    ("POST", "/api/records/{id}/supersede", {"body": 5, "rationale": "r"}, 400, "invalid_field"),
    ("POST", "/api/records/{id}/supersede", {"body": "x" * 30_000, "rationale": "r"}, 400, "field_too_long"),
    ("POST", "/api/records/{id}/pin", {"pinned": "yes"}, 400, "invalid_field"),
    ("POST", "/api/records/{old}/supersede", {"body": "x", "rationale": "r"}, 409, "already_superseded"),
])
def test_bad_input_is_4xx_json_and_writes_nothing(live, seeded, method, path, body, status, code):
    path = path.format(id=seeded["pinned"].id, old=seeded["db"].id)
    before = _count()
    got, headers, data = live.call(method, path, body)
    assert (got, data["code"]) == (status, code), data
    assert headers["content-type"].startswith("application/json") and data["error"]
    assert _count() == before


def test_malformed_bodies_are_refused(live, seeded):
    path = f"/api/records/{seeded['pinned'].id}/pin"
    assert live.call("POST", path, raw=b"{not json", headers={"Content-Type": "application/json"})[0] == 400
    assert live.call("POST", path, raw=b"[1]", headers={"Content-Type": "application/json"})[0] == 400
    assert live.call("POST", path, raw=b"pinned=1", headers={"Content-Type": "application/x-www-form-urlencoded"})[0] == 415
    status, _, _ = live.call("POST", path, raw=b"{}", headers={"Content-Type": "application/json",
                                                               "Content-Length": str(2 << 20)})
    assert status == 413


def test_static_page_and_assets(live):
    for path, kind in (("/", "text/html"), ("/app.js", "text/javascript"), ("/app.css", "text/css"),
                       ("/graph.js", "text/javascript")):
        status, headers, body = live.call("GET", path, token=None)
        assert status == 200 and headers["content-type"].startswith(kind) and body
    assert live.call("GET", "/../../etc/passwd", token=None)[0] == 404


def test_what_the_prompt_hook_injects_shows_in_sessions(live, seeded, hook, add, repo):
    for i in range(3):
        add(f"Invoice events on Kafka {i}", f"Invoices are published to the kafka topic invoices-v{i}.")
    out = hook("user-prompt-submit", {"session_id": "sess-live", "cwd": str(repo),
                                      "prompt": "how do we publish invoices to kafka?"})
    assert out and "Kafka" in out["hookSpecificOutput"]["additionalContext"]
    status, _, data = live.call("GET", "/api/sessions/sess-live")  # the hook wrote a pending line; the API drains it
    assert status == 200 and data["injections"][0]["event"] == "UserPromptSubmit"
    assert data["injections"][0]["records"][0]["title"].startswith("Invoice events on Kafka")


def test_record_detail_quotes_the_evidence_of_an_extracted_record(live, seeded, conn):
    records.add_evidence(conn, seeded["inferred"].id, "we always run pytest -q before pushing")
    _, _, data = live.call("GET", f"/api/records/{seeded['inferred'].id}")
    assert data["evidence"] == "we always run pytest -q before pushing"
    assert live.call("GET", f"/api/records/{seeded['pinned'].id}")[2]["evidence"] is None


def test_near_misses_of_each_prompt_show_in_its_session(live, seeded, hook, add, repo):
    for i in range(3):
        add(f"Invoice events on Kafka {i}", f"Invoices are published to the kafka topic invoices-v{i}.")
    hook("user-prompt-submit", {"session_id": "sess-nm", "cwd": str(repo), "prompt": "how do we publish invoices to kafka?"})
    hook("user-prompt-submit", {"session_id": "sess-nm", "cwd": str(repo),
                                "prompt": "the orders page renders slowly, maybe look at the postgres replica lag"})
    _, _, data = live.call("GET", "/api/sessions/sess-nm")
    first = data["injections"][0]
    assert first["threshold"] is not None
    injected = {r["id"] for r in first["records"]}
    assert all(not n["injected"] and n["id"] not in injected for n in first["near_misses"])
    # A prompt that injected nothing still shows its best candidates against the threshold (agentctx why's rows).
    for prompt in data["uninjected_prompts"]:
        assert prompt["threshold"] is not None and prompt["candidates"]
        assert all(not c["injected"] and isinstance(c["p"], float) for c in prompt["candidates"])
    assert len(data["injections"]) + len(data["uninjected_prompts"]) == 2


def test_explain_shows_the_prompt_hooks_decision(live, seeded, run_cli):
    status, _, data = live.call("GET", "/api/explain?q=" + quote("which database do we use for orders?"))
    assert status == 200 and data["candidates"] and data["threshold"] is not None
    top = data["candidates"][0]
    assert set(top) >= {"id", "title", "p", "injected", "reason", "features", "threshold"}
    cli = run_cli("search", "--explain", "--json", "which database do we use for orders?")
    assert [c["id"] for c in cli] == [c["id"] for c in data["candidates"]]
    assert live.call("GET", "/api/explain?q=")[2]["code"] == "blank_field"


def test_overview_shows_extraction_calls_and_tokens_per_day(live, seeded, conn):
    from agentctx.store import extraction

    extraction.log_call(conn, backend="claude-code", project_id=seeded["project"].id, session_id="sess-1", calls=2,
                        input_tokens=1800, output_tokens=240, cost_usd=0.003, outcome="ok")
    _, _, ov = live.call("GET", "/api/overview")
    (day,) = ov["extraction"]["per_day"]
    assert (day["backend"], day["calls"], day["input_tokens"], day["output_tokens"]) == ("claude-code", 2, 1800, 240)
    assert ov["extraction"]["backend"] in ("api", "claude-code", "off") and ov["extraction"]["reason"]


def test_projects_are_named_not_only_hashed(live, seeded, conn, tmp_path):
    """The project list names each namespace: the opened project by its checkout, another by the root cache the hooks
    read (`base.roots`), `_global` as such; a namespace nothing names keeps only its id."""
    from agentctx.base.models import NewRecord
    from agentctx.base.project import detect
    from agentctx.memory import digest

    other = tmp_path / "billing-service"
    (other / ".git").mkdir(parents=True)
    (other / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:acme/billing.git\n')
    billing = detect(other)
    records.insert(conn, NewRecord("decision", "Invoices are immutable", "Corrections are credit notes.", billing.id))
    records.insert(conn, NewRecord("decision", "Unknown checkout", "Nothing names this one.", "f" * 64))
    digest.remember_root(billing)
    _, _, meta = live.call("GET", "/api/meta")
    names = {p["id"]: p["name"] for p in meta["projects"]}
    assert names[seeded["project"].id] == "repo" and names[billing.id] == "billing-service"
    assert names["f" * 64] is None
    assert meta["project"]["name"] == "repo"


def test_a_dashboard_opened_by_project_id_shows_the_projects_name(repo, conn, add, monkeypatch):
    from agentctx import cli
    from agentctx.base.project import detect
    from agentctx.memory import digest
    from agentctx.ui import server

    add("Use PostgreSQL for orders", "Orders live in PostgreSQL 16.")
    digest.remember_root(detect(repo))
    opened = {}
    monkeypatch.setattr(server, "serve", lambda project, **kw: opened.update(project=project) or 0)
    monkeypatch.chdir(repo.parent)  # not inside the checkout: the id alone names it
    assert cli.main(["ui", "--project", detect(repo).id[:10], "--no-browser"]) == 0
    assert opened["project"].id == detect(repo).id and opened["project"].name == "repo"


def test_a_session_tells_what_was_asked_and_what_each_prompt_and_the_digest_brought(live, seeded, hook, add, repo):
    """The session view's timeline: the SessionStart digest with the records it carried, then each prompt as the
    user typed it (scrubbed), with what was injected for it or, when nothing was, its best candidates."""
    from agentctx.memory import consolidate

    for i in range(3):  # discoveries: not in the digest, so the prompt brings them (what the digest carried it
        # does not bring again in the same session)
        add(f"Invoice events on Kafka {i}", f"Invoices are published to the kafka topic invoices-v{i}.",
            type_="discovery")
    consolidate.run(detect(repo))  # the digest SessionStart reads
    hook("session-start", {"session_id": "sess-t", "cwd": str(repo), "source": "startup"})
    hook("user-prompt-submit", {"session_id": "sess-t", "cwd": str(repo), "prompt": "how do we publish invoices to kafka?"})
    hook("user-prompt-submit", {"session_id": "sess-t", "cwd": str(repo),
                                "prompt": "rename the save button to Submit; is sk_live_51HxYzAbCdEfGhIjKlMnOpQr still live?"})
    _, _, data = live.call("GET", "/api/sessions/sess-t")
    kinds = [e["kind"] for e in data["timeline"]]
    assert kinds == ["digest", "prompt", "prompt"]
    digest_entry, asked, other = data["timeline"]
    assert digest_entry["tokens"] > 0 and digest_entry["records"]
    assert all(r["title"] and r["type"] for r in digest_entry["records"])
    assert asked["text"] == "how do we publish invoices to kafka?" and asked["chars"] == 36
    assert asked["records"] and asked["records"][0]["title"].startswith("Invoice events on Kafka")
    assert asked["tokens"] > 0 and asked["threshold"] is not None
    assert other["text"] == "rename the save button to Submit; is [REDACTED:stripe_key] still live?"
    assert other["records"] == [] and other["tokens"] == 0
    # The list of sessions opens each one with its first request.
    _, _, listed = live.call("GET", "/api/sessions")
    row = next(s for s in listed["items"] if s["session_id"] == "sess-t")
    assert row["first_prompt"] == "how do we publish invoices to kafka?" and row["prompts"] == 2


def test_a_session_from_before_prompts_were_kept_still_lists_its_prompts(live, seeded):
    """Ledger rows without a kept prompt (older stores) are still entries of the timeline, by their hash."""
    _, _, data = live.call("GET", "/api/sessions/sess-1")
    (entry,) = data["timeline"]
    assert entry["kind"] == "prompt" and entry["text"] is None and entry["prompt_hash"] == "abc123"
    assert [r["id"] for r in entry["records"]] == [seeded["pinned"].id, seeded["xss"].id]


def test_a_candidate_already_injected_this_session_says_so(live, seeded, hook, add, repo):
    """Asked twice, a record passes the gate again but is not injected again (the session's dedup): the session view
    must not call that a near miss of the threshold."""
    add("Invoice events on Kafka", "Invoices are published to the kafka topic invoices-v2.")
    for _ in range(2):
        hook("user-prompt-submit", {"session_id": "sess-dd", "cwd": str(repo), "prompt": "how do we publish invoices to kafka?"})
    _, _, data = live.call("GET", "/api/sessions/sess-dd")
    first, again = data["timeline"]
    assert first["records"] and not again["records"]
    (repeat,) = [c for c in again["near_misses"] if c["id"] == first["records"][0]["id"]]
    assert repeat["passed"] is True and repeat["injected"] is False


def test_questions_and_aliases_are_shown_and_set_in_place(live, seeded):
    rid = seeded["pinned"].id
    status, _, data = live.call("POST", f"/api/records/{rid}/asked",
                                {"questions": ["which database do we use?", "  "], "aliases": ["rdbms"]})
    assert status == 200 and data["record"]["questions"] == ["which database do we use?"]
    assert data["record"]["id"] == rid and data["record"]["current"] is True  # no new version
    _, _, got = live.call("GET", f"/api/records/{rid}")
    assert got["record"]["aliases"] == ["rdbms"]
    status, _, data = live.call("POST", f"/api/records/{rid}/asked", {"questions": "one string"})
    assert status == 400 and data["code"] == "invalid_field"
    status, _, data = live.call("POST", f"/api/records/{rid}/asked", {"aliases": [f"a{i}" for i in range(17)]})
    assert status == 400 and "limit is 16" in data["error"]
    _, _, got = live.call("GET", f"/api/records/{rid}")
    assert got["record"]["aliases"] == ["rdbms"]  # a refused edit changes nothing


def test_sessions_and_records_say_which_agent(live, seeded, conn):
    """Issue 28: a session records the agent it ran in; the dashboard shows it for the session and its records."""
    from agentctx.store import sessions

    sessions.touch(conn, "sess-1", seeded["project"].id, agent="codex")
    status, _, data = live.call("GET", "/api/sessions")
    assert status == 200 and [s["agent"] for s in data["items"] if s["session_id"] == "sess-1"] == ["codex"]
    assert live.call("GET", "/api/sessions/sess-1")[2]["agent"] == "codex"
    (inferred,) = [r for r in live.call("GET", "/api/records")[2]["items"] if r["title"].startswith("Tests run")]
    assert live.call("GET", f"/api/records/{inferred['id']}")[2]["agent"] == "codex"


def test_anchors_and_guards_are_set_in_place_and_stats_shows_what_each_record_earned(live, seeded):
    """Issue 33: what a record governs, whether it is a guard, and what it earned, from the dashboard."""
    rid = seeded["pinned"].id
    status, _, data = live.call("POST", f"/api/records/{rid}/anchors", {"anchors": ["src/payments/**", "command:npm"]})
    assert status == 200 and data["record"]["anchors"] == ["path:src/payments/**", "command:npm"]
    assert data["record"]["id"] == rid  # no new version
    status, _, data = live.call("POST", f"/api/records/{rid}/anchors", {"anchors": ["../etc/**"]})
    assert status == 400 and "'..'" in data["error"]
    status, _, data = live.call("POST", f"/api/records/{rid}/guard",
                                {"mode": "never", "patterns": ["command:git push --force"], "decision": "deny"})
    assert status == 200 and data["record"]["guard_text"] == "never (deny): command:git push --force"
    status, _, data = live.call("POST", f"/api/records/{seeded['inferred'].id}/guard",
                                {"mode": "never", "patterns": ["command:rm -rf"]})
    assert status == 400 and "inferred" in data["error"]  # never from an inferred record
    status, _, data = live.call("POST", f"/api/records/{rid}/guard", {"mode": "never", "patterns": ["/(a+)+$/"]})
    assert status == 400
    _, _, got = live.call("GET", f"/api/records/{rid}")
    assert got["record"]["guard_text"].startswith("never (deny)") and got["uses"]["prompts"] == 1
    status, _, data = live.call("GET", "/api/stats")
    (row,) = [r for r in data["items"] if r["id"] == rid]
    assert row["prompts"] == 1 and row["guard"] is True and row["never_used"] is True and row["tokens"] == 60
    status, _, data = live.call("POST", f"/api/records/{rid}/guard", {"off": True})
    assert status == 200 and data["record"]["guard_text"] == ""
    _, _, got = live.call("GET", f"/api/records/{rid}")  # the history says who changed the guard (issue 41)
    changes = [v for v in got["history"] if v["id"] == rid][0]["guard_changes"]
    assert [(c["by"], bool(c["guard"])) for c in changes] == [("dashboard", True), ("dashboard", False)]


def test_each_version_in_the_history_has_its_own_why(live, seeded, repo):
    # Issue 34: a teammate edited the entry in .agentctx/context.md; its body still ends with the previous step's
    # "Rationale: 16 reached end of support", and the dashboard showed that as the teammate's version's "Why".
    from agentctx.team import sync as team

    conn = db.connect(paths.db_path())
    try:
        target = team.team_target(seeded["project"])
        team.export_file(conn, target)
        text = open(target.path, encoding="utf-8").read()
        with open(target.path, "w", encoding="utf-8") as fh:
            fh.write(text.replace("Orders live in PostgreSQL 17 now.", "Orders live in PostgreSQL 17.2 now, on Aurora."))
        assert len(team.import_file(conn, target).superseded) == 1
    finally:
        conn.close()
    status, _, data = live.call("GET", f"/api/records/{seeded['db'].id}")
    assert status == 200
    first, second, third = data["history"]
    assert "Rationale: 16 reached end of support" in third["body"]  # the text under the teammate's edit
    assert first["rationale"] is None
    assert second["rationale"] == "16 reached end of support"
    assert third["rationale"].startswith("Edited by hand in .agentctx/context.md")


def test_overview_and_record_show_what_came_from_an_agents_own_memory(live, seeded, conn, repo):
    from pathlib import Path

    from agentctx.outside import memdirs
    from agentctx.outside import agentmem

    memory = Path.home() / ".claude" / "projects" / memdirs.sanitize(str(repo)) / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- The staging database is refreshed from production every Sunday night.\n")
    agentmem.sync(conn, seeded["project"])
    _, _, ov = live.call("GET", "/api/overview")
    (claude,) = [a for a in ov["agent_memory"] if a["agent"] == "claude"]
    assert claude["facts"] == 1 and claude["in_store"]["records"] == 1 and claude["on"] is True
    assert "autoMemoryEnabled" in claude["switch"]
    _, _, listed = live.call("GET", "/api/records?source=agent_memory")
    (item,) = listed["items"]
    _, _, detail = live.call("GET", f"/api/records/{item['id']}")
    (where,) = detail["provenance"]
    assert where["agent"] == "Claude Code" and where["path"].endswith("MEMORY.md") and where["line"] == 1


def test_drift_covers_agents_md_like_claude_md(live, seeded, repo):
    import shutil
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "data" / "instruction_files" / "wxvx" / "AGENTS.md"
    shutil.copyfile(source, repo / "AGENTS.md")
    _, _, claude = live.call("GET", "/api/drift")
    assert claude["file"] == "CLAUDE.md" and claude["available"] == ["CLAUDE.md", "AGENTS.md"]
    _, _, report = live.call("GET", "/api/drift?file=AGENTS.md")
    assert report["file"] == "AGENTS.md" and report["files"] == [str((repo / "AGENTS.md").resolve())]
    assert report["missing"] and "a/AGENTS.md" in report["proposed_diff"]
    status, _, bad = live.call("GET", "/api/drift?file=README.md")
    assert status == 400 and bad["code"] == "invalid_field"
    status, _, done = live.call("POST", "/api/drift/apply", {"confirm": True, "base_sha": report["base_sha"],
                                                              "file": "AGENTS.md"})
    assert status == 200 and done["target"].endswith("AGENTS.md")
    assert (repo / "AGENTS.md").read_text(encoding="utf-8").startswith(source.read_text(encoding="utf-8"))
    assert not (repo / "CLAUDE.md").exists()
