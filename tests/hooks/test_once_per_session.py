"""Issue 34: a session gets its handover and profile once (item 9), and a session id from a payload becomes a plain
token wherever it names a file (item 25)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctx.base import paths
from agentctx.base.project import detect
from agentctx.memory import capture, digest

SID = "5f0c6a2e-9f7b-4d1e-8c3a-2b1d0e9f8a7c"  # the UUID Claude Code sends


def _work_of_a_week(add, conn, repo):
    """The records an attrs session starts with: its profile, its handover (the last working state), a decision."""
    add("Stack", "- Language: Python\n- Test: pytest with hypothesis", type_="profile")
    add("Handover: end-of-session snapshot", "Branch: fix-filters-exclude\n\nLast test run: `python -m pytest "
        "tests/test_filters.py` passed\n\nNext: exclude() drops attributes given as Attribute", type_="handover")
    add("filters.exclude accepts names, types and Attribute", "exclude() and include() take a type, a field name "
        "or an attrs.Attribute since 23.3.0.")
    project = detect(repo)
    digest.refresh(conn, project.id, project=project)
    return project


def _injected(out) -> str:
    return out["hookSpecificOutput"]["additionalContext"] if out else ""


def test_the_prompt_hook_does_not_inject_again_what_the_digest_carried(hook, add, conn, repo):
    project = _work_of_a_week(add, conn, repo)
    text, ids = digest.read_carried(project.id)
    assert "fix-filters-exclude" in text and len(ids) >= 3
    start = hook("session-start", {"session_id": SID, "cwd": str(repo), "source": "startup"})
    assert "fix-filters-exclude" in _injected(start)
    prompt = "continue the exclude filter work on fix-filters-exclude: run pytest tests/test_filters.py with hypothesis"
    # without the SessionStart, the same prompt does bring these records (so the dedup is what keeps them out)
    other = _injected(hook("user-prompt-submit", {"session_id": "other", "cwd": str(repo), "prompt": prompt}))
    assert "Handover: end-of-session snapshot" in other
    first = _injected(hook("user-prompt-submit", {"session_id": SID, "cwd": str(repo), "prompt": prompt}))
    for title in ("Handover: end-of-session snapshot", "[profile] Stack"):
        assert title not in first
    # a decision the digest listed as one line may still come with its body when the prompt is about it


def test_a_decision_the_digest_listed_comes_again_only_once(hook, add, conn, repo):
    _work_of_a_week(add, conn, repo)
    hook("session-start", {"session_id": SID, "cwd": str(repo), "source": "startup"})
    prompt = "does filters.exclude accept an attrs.Attribute or only field names since 23.3.0?"
    first = _injected(hook("user-prompt-submit", {"session_id": SID, "cwd": str(repo), "prompt": prompt}))
    assert "filters.exclude accepts names" in first and "Handover: end-of-session snapshot" not in first
    again = _injected(hook("user-prompt-submit", {"session_id": SID, "cwd": str(repo), "prompt": prompt}))
    assert "filters.exclude accepts names" not in again


def test_after_compaction_the_digests_records_are_not_injected_twice_either(hook, add, conn, repo):
    _work_of_a_week(add, conn, repo)
    hook("pre-compact", {"session_id": SID, "cwd": str(repo), "trigger": "auto"})  # no log: no snapshot
    out = hook("session-start", {"session_id": SID, "cwd": str(repo), "source": "compact"})
    assert "fix-filters-exclude" in _injected(out)
    prompt = "continue the exclude filter work on fix-filters-exclude: run pytest tests/test_filters.py with hypothesis"
    assert "Handover: end-of-session snapshot" not in _injected(
        hook("user-prompt-submit", {"session_id": SID, "cwd": str(repo), "prompt": prompt}))


@pytest.mark.parametrize("sid", ["../../canary", "..", "a/../../b"])
def test_a_session_id_with_dots_names_no_file_with_them(sid, hook, add, conn, repo, monkeypatch, isolated_home):
    monkeypatch.setattr("agentctx.base.spawn.detached", lambda argv, cwd=None, lifetime=None: 1)
    _work_of_a_week(add, conn, repo)
    common = {"session_id": sid, "cwd": str(repo), "transcript_path": ""}
    hook("session-start", {**common, "source": "startup"})
    add("exclude drops Attribute instances by identity", "filters.exclude compares attributes by identity, so an "
        "Attribute from fields() of another class is not excluded.", type_="discovery")  # not in the digest
    assert hook("user-prompt-submit", {**common, "prompt": "why does exclude not drop an Attribute by identity?"})
    hook("post-tool-use", {**common, "tool_name": "Edit", "tool_input": {"file_path": "src/attr/filters.py"}})
    hook("pre-compact", {**common, "trigger": "manual"})
    from agentctx.extract import cursor
    from agentctx.hooks import lifecycle

    made = [Path(paths.dedup_file(sid)), Path(paths.dedup_file(sid) + ".digest"), Path(paths.open_marker_file(sid)),
            Path(paths.compact_file(sid)), Path(capture.log_path(sid))]
    assert all(p.exists() for p in made)
    names = [p.name for p in made] + [Path(lifecycle._state_file(sid)).name, cursor.state_path(sid).name]
    token = paths.session_token(sid)
    assert all(token in n and ".." not in n for n in names), names
    for root in (os.environ["TMPDIR"], str(isolated_home)):
        for _, _, files in os.walk(root):
            assert not [f for f in files if ".." in f]


def test_without_a_digest_the_profile_fallback_is_not_injected_again(hook, add, conn, repo):
    stack = add("Stack", "- Language: Python\n- Test: pytest with hypothesis", type_="profile")
    os.unlink(paths.digest_file(detect(repo).id))  # none yet: SessionStart falls back to the profile records
    start = hook("session-start", {"session_id": SID, "cwd": str(repo), "source": "startup"})
    assert _injected(start).startswith("Project profile (agentctx):\n- Stack: Language: Python")
    prompt = "which test runner and language does this project use: pytest with hypothesis, Python?"
    assert stack.title in _injected(hook("user-prompt-submit", {"session_id": "other", "cwd": str(repo),
                                                               "prompt": prompt}))
    assert "[profile] Stack" not in _injected(hook("user-prompt-submit", {"session_id": SID, "cwd": str(repo),
                                                                          "prompt": prompt}))
