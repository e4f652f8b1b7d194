"""Stored text reaches the terminal with its control characters neutralised (issue 34, item 17): questions and
aliases written through MCP, a teammate's `- also:` line in the team file, titles and bodies."""

from __future__ import annotations

import json

from agentctx.cli.terminal import printable, printable_json
from agentctx.mcp.server import make_context
from agentctx.mcp.tools import call

# What an MCP client or a teammate can put in a record: an OSC window title ended by BEL, a CSI colour, the
# one-byte C1 CSI (0x9b), a carriage return that overwrites the line, and a screen clear.
TITLE_OSC = "\x1b]0;owned\x07"
CSI_C1 = "\x9b2J"
RAW = ("\x1b", "\x07", "\x9b", "\r")


def _raw(text: str) -> list[str]:
    return [c for c in RAW if c in text]


def test_printable_keeps_text_and_shows_controls():
    assert printable("Use pytest\n\tnever unittest — café 東京") == "Use pytest\n\tnever unittest — café 東京"
    assert printable(f"a{TITLE_OSC}b{CSI_C1}\r\x7f") == "a\\x1b]0;owned\\x07b\\x9b2J\\x0d\\x7f"
    assert json.loads(printable_json(json.dumps({"q": CSI_C1 + "\x7f"}, ensure_ascii=False))) == {"q": CSI_C1 + "\x7f"}


def test_show_neutralises_questions_and_aliases_written_through_mcp(in_p, proj_p):
    ctx = make_context({}, cwd=str(proj_p))
    try:
        result = call(ctx, "ctx_record", {"type": "decision", "title": f"Use attrs{TITLE_OSC} for value classes",
                                         "body": f"Define classes with @define.{CSI_C1}\rnot dataclasses",
                                         "questions": [f"why attrs and not dataclasses?{TITLE_OSC}"],
                                         "aliases": [f"slots{CSI_C1}", "\x1b[31mred"]})
        assert result.is_error is False, result
        rid = result.structured["id"]
    finally:
        ctx.close()
    shown = in_p("show", rid)
    assert shown.rc == 0 and _raw(shown.out) == []
    assert "why attrs and not dataclasses?\\x1b]0;owned\\x07" in shown.out and "slots\\x9b2J" in shown.out
    as_json = in_p("show", rid, "--json")
    assert _raw(as_json.out) == [] and json.loads(as_json.out)["aliases"] == [f"slots{CSI_C1}", "\x1b[31mred"]
    for argv in (("search", "attrs"), ("search", "attrs", "--explain"), ("show", rid, "--history"), ("export",)):
        out = in_p(*argv)
        assert out.rc == 0 and _raw(out.out + out.err) == [], argv


def test_a_teammates_also_line_is_shown_neutralised(in_p, proj_p):
    assert in_p("record", "--type", "convention", "--title", "Tests use pytest",
                "--body", "Every test is a pytest function; no unittest.TestCase.").rc == 0
    assert in_p("team", "export").rc == 0
    path = proj_p / ".agentctx" / "context.md"
    text = path.read_text(encoding="utf-8")
    block = "Every test is a pytest function; no unittest.TestCase.\n"
    # A teammate's hand edit: the questions and aliases of the record, one with escapes in it.
    path.write_text(text.replace(block, block + "\n<!-- agentctx:asked -->\n- asked: how are tests written?\n"
                                 f"- also: unit tests{TITLE_OSC}\n- also: {CSI_C1}hidden\n"), encoding="utf-8")
    imported = in_p("team", "import")
    assert imported.rc == 0 and _raw(imported.out + imported.err) == []
    (rid,) = [line.split()[0] for line in in_p("search", "pytest").out.splitlines() if "Tests use pytest" in line]
    shown = in_p("show", rid)
    assert "unit tests\\x1b]0;owned\\x07" in shown.out and "\\x9b" in shown.out and _raw(shown.out) == []
