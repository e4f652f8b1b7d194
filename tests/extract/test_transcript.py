"""The transcript reader against a fixture in the real Claude Code shapes (vendor-facts §1.4)."""

from __future__ import annotations

import json
from pathlib import Path

from agentctx.extract import transcript

FIXTURE = Path(__file__).parent / "fixtures" / "session.jsonl"


def test_reads_developer_and_assistant_text_only():
    s = transcript.read(FIXTURE)
    assert [t.role for t in s.turns] == ["developer", "assistant", "developer", "assistant"]
    first = s.turns[0].text
    assert first.startswith("We store everything in SQLite")
    texts = " ".join(t.text for t in s.turns)
    # tool results, sidechains, compact summaries, meta caveats, thinking and command wrappers are all gone
    for noise in ("3 passed", "ORM", "being continued", "Caveat", "suggest Redis as a cache too", "/init",
                  "Initialized CLAUDE.md", "half-writ"):
        assert noise not in texts
    assert s.cwd == "/w/app"


def test_split_response_is_one_turn():
    s = transcript.read(FIXTURE)
    assert s.turns[1].text == "Understood: SQLite, pytest. I could also add Redis as a cache layer."
    raw = FIXTURE.read_bytes()
    assert s.turns[1].end == raw.index(b"\n", raw.index(b'"uuid":"a3"')) + 1  # spans the three msg_01 lines


def test_torn_last_line_is_left_for_the_next_read(tmp_path):
    path = tmp_path / "t.jsonl"
    data = FIXTURE.read_bytes()
    path.write_bytes(data)
    s = transcript.read(path)
    assert s.end == data.rindex(b"\n") + 1 < len(data)
    with path.open("ab") as fh:
        fh.write(b'ten"}}\n')
    s2 = transcript.read(path, s.end)
    assert [t.text for t in s2.turns] == ["half-written"]


def test_reading_from_an_offset_and_a_shrunk_file(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(FIXTURE.read_bytes())
    whole = transcript.read(path)
    later = transcript.read(path, whole.turns[2].offset)
    assert [t.text for t in later.turns] == [t.text for t in whole.turns[2:]]
    assert len(transcript.read(path, 10**9).turns) == len(whole.turns)  # offset past the end: file was rewritten


def test_slash_command_arguments_are_the_developer_speaking():
    line = {"type": "user", "message": {"role": "user", "content":
            "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
            "<command-args>the auth module, we keep JWT</command-args>"}}
    s = transcript.parse((json.dumps(line) + "\n").encode())
    assert s.turns[0].text == "/review the auth module, we keep JWT"


def test_garbage_and_unknown_lines_are_skipped():
    data = b'not json\n[1,2]\n{"type":"progress","data":{}}\n{"type":"user","message":"oops"}\n' \
           b'{"type":"user","message":{"role":"user","content":"kept"}}\n'
    s = transcript.parse(data)
    assert [t.text for t in s.turns] == ["kept"] and s.skipped == 3


def test_strip_private_and_render():
    assert transcript.strip_private("a <private>secret</private> b") == "a   b"
    assert transcript.strip_private("a <private>never closed") == "a  "
    s = transcript.read(FIXTURE)
    assert transcript.render(s.turns[:2]).startswith("Developer: We store")
    assert "\n\nAssistant: Understood" in transcript.render(s.turns[:2])
