"""CJK and other scripts written without spaces are findable (issue 26, item 13): FTS5's unicode61 keeps a run of
them as one token, so a word inside a longer run is matched as a substring, for searches someone asks for."""

from __future__ import annotations

from agentctx.base.models import NewRecord
from agentctx.cli import main
from agentctx.retrieval import search
from agentctx.store import records

P = "p" * 64


def _add(conn, title, body):
    return records.insert(conn, NewRecord(type="decision", title=title, body=body, project_id=P,
                                          confidence="explicit"))[0]


def test_a_japanese_word_inside_a_longer_run_is_found(conn):
    rec = _add(conn, "日本語の設定ファイルはconfig/ja.tomlに置く", "翻訳の設定はすべてここにまとめる。")
    _add(conn, "Use SQLite", "One file.")
    assert [h.record.id for h in search.search(conn, "日本語", P).hits] == [rec.id]
    assert [h.record.id for h in search.search(conn, "翻訳 設定", P).hits] == [rec.id]


def test_korean_and_chinese_too(conn):
    ko = _add(conn, "데이터베이스는 PostgreSQL을 사용한다", "주문 서비스")
    zh = _add(conn, "订单服务使用消息队列", "异步处理")
    assert [h.record.id for h in search.search(conn, "데이터베이스", P).hits] == [ko.id]
    assert [h.record.id for h in search.search(conn, "消息队列", P).hits] == [zh.id]


def test_the_prompt_hook_does_not_scan_for_substrings(conn):
    _add(conn, "日本語の設定ファイル", "翻訳")
    assert search.search(conn, "日本語", P, expand=False).hits == ()


def test_the_cli_search_finds_cjk(conn, repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    assert main(["record", "--type", "decision", "--title", "日本語の設定ファイル", "--body", "config/ja.toml"]) == 0
    capsys.readouterr()
    assert main(["search", "日本語"]) == 0
    assert "日本語の設定ファイル" in capsys.readouterr().out
