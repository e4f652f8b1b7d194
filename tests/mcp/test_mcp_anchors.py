"""ctx_record and ctx_supersede take what a record governs (anchors); bad anchors are one structured error (issue 33)."""

from agentctx.base import paths


def _ok(result):
    assert result["isError"] is False, result
    return result["structuredContent"]


def test_anchors_are_stored_carried_and_written_to_the_map(ctx_a, helpers, repo_a):
    rec = _ok(helpers.call(ctx_a, "ctx_record", {
        "type": "convention", "title": "Money in cents", "body": "Amounts are integer cents.",
        "anchors": ["src/payments/**", "command:alembic upgrade", f"{repo_a}/migrations/*.sql"]}))
    got = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [rec["id"]]}))["records"][0]
    assert got["anchors"] == ["path:src/payments/**", "command:alembic upgrade", "path:migrations/*.sql"]
    with open(paths.anchor_map_file(ctx_a.project.id), encoding="utf-8") as fh:
        assert rec["id"] in fh.read()
    v2 = _ok(helpers.call(ctx_a, "ctx_supersede", {"old_id": rec["id"], "new_body": "Integer cents, always.",
                                                   "rationale": "clearer"}))
    got = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [v2["new_id"]]}))["records"][0]
    assert got["anchors"][0] == "path:src/payments/**"


def test_bad_anchors_are_refused_with_one_error_and_the_loop_survives(ctx_a, helpers):
    bad = [["/etc/passwd"], ["a/../../b"], ["**"], ["command:/(a+)+$/"], ["src/\udcff.py"],
           [f"src/m{i}/**" for i in range(10_000)], ["x" * 500]]
    for anchors in bad:
        result = helpers.call(ctx_a, "ctx_record", {"type": "convention", "title": "T", "body": "B",
                                                    "anchors": anchors})
        assert result["isError"] is True, anchors[:1]
        text = result["content"][0]["text"]
        assert "Traceback" not in text and len(text) < 600
    assert _ok(helpers.call(ctx_a, "ctx_search", {"query": "cents"}))["results"] == []  # nothing stored
