"""The dashboard's security rules, each with a test: Host, token, fetch metadata, no CORS, CSP, loopback only."""

from __future__ import annotations

import pytest

from agentctx import cli
from agentctx.store import db
from agentctx.base import paths
from agentctx.store import records
from agentctx.ui import server


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1", "127.0.0.1:1", "0.0.0.0:{port}",
                                  "localhost.evil.example:{port}", ""])
def test_wrong_host_is_rejected_even_with_the_token(live, host):
    status, _, data = live.call("GET", "/api/meta", headers={"Host": host.format(port=live.port)})
    assert status == 421 and data["code"] == "bad_host"


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_loopback_hosts_are_accepted(live, host):
    assert live.call("GET", "/api/meta", headers={"Host": host.format(port=live.port)})[0] == 200


def test_the_page_itself_checks_the_host(live):
    assert live.call("GET", "/", token=None, headers={"Host": "rebind.example"})[0] == 421


@pytest.mark.parametrize("token", [None, "", "wrong", "x" * 43])
def test_every_api_call_needs_the_token(live, token):
    for method, path, body in (("GET", "/api/meta", None), ("GET", "/api/records", None),
                               ("POST", "/api/records/X/pin", {"pinned": True})):
        status, _, data = live.call(method, path, body, token=token)
        assert status == 401 and data["code"] == "bad_token"


def test_a_token_in_the_query_string_is_not_accepted(live):
    assert live.call("GET", f"/api/meta?token={live.token}", token=None)[0] == 401


@pytest.mark.parametrize("headers", [{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
                                     {"Origin": "http://evil.example"}, {"Origin": "null"},
                                     {"Origin": "http://127.0.0.1:1"}])
def test_cross_site_mutations_are_refused_and_write_nothing(live, seeded, headers):
    rid = seeded["pinned"].id
    status, _, data = live.call("POST", f"/api/records/{rid}/pin", {"pinned": False}, headers=headers)
    assert status == 403 and data["code"] == "cross_site"
    conn = db.connect(paths.db_path())
    assert records.get(conn, rid).pinned is True
    conn.close()


def test_same_origin_mutation_is_allowed(live, seeded):
    headers = {"Sec-Fetch-Site": "same-origin", "Origin": f"http://localhost:{live.port}"}
    assert live.call("POST", f"/api/records/{seeded['pinned'].id}/pin", {"pinned": False}, headers=headers)[0] == 200


def test_no_cors_headers_anywhere(live):
    status, headers, _ = live.call("OPTIONS", "/api/records", token=None,
                                   headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert status == 405
    for path in ("/", "/api/meta"):
        _, headers, _ = live.call("GET", path, headers={"Origin": "http://evil.example"})
        assert not [h for h in headers if h.startswith("access-control-")]


def test_strict_content_security_policy_on_every_response(live):
    for path, token in (("/", None), ("/app.js", None), ("/api/meta", "default"), ("/api/nothing", "default")):
        _, headers, _ = live.call("GET", path, token=token)
        csp = headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff" and headers["cache-control"] == "no-store"


def test_the_page_has_no_inline_script_and_never_writes_html():
    from importlib import resources

    static = resources.files("agentctx.ui").joinpath("static")
    html = static.joinpath("index.html").read_text()
    assert "<script>" not in html and "onclick=" not in html and "http" not in html.split("<body>")[1].replace("https://", "")
    for name in ("app.js", "graph.js"):
        js = static.joinpath(name).read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
            assert sink not in js, f"{name} uses {sink}"


def test_url_carries_the_token_in_the_fragment_only(seeded):
    httpd, settings = server.make_server(seeded["project"], port=0, fallback=False)
    try:
        url = server.url_for(settings, httpd)
        assert url.startswith(f"http://127.0.0.1:{httpd.server_address[1]}/#token=")
        assert url.split("#token=")[1] == settings.token and len(settings.token) >= 40
    finally:
        httpd.server_close()


def test_tokens_differ_per_start(seeded):
    tokens = set()
    for _ in range(3):
        httpd, settings = server.make_server(seeded["project"], port=0, fallback=False)
        tokens.add(settings.token)
        httpd.server_close()
    assert len(tokens) == 3


def test_binds_loopback_and_falls_back_from_a_taken_port(seeded):
    first, _ = server.make_server(seeded["project"], port=0, fallback=False)
    try:
        assert first.server_address[0] == "127.0.0.1"
        second, _ = server.make_server(seeded["project"], port=first.server_address[1])
        assert second.server_address[1] != first.server_address[1]
        second.server_close()
        with pytest.raises(OSError):
            server.make_server(seeded["project"], port=first.server_address[1], fallback=False)
    finally:
        first.server_close()


def test_non_loopback_needs_an_explicit_flag(repo, monkeypatch, capsys, conn):
    monkeypatch.chdir(repo)
    rc = cli.main(["ui", "--host", "0.0.0.0", "--no-browser"])
    err = capsys.readouterr().err
    assert rc == 64 and "--allow-remote" in err and "Traceback" not in err


def test_non_loopback_with_the_flag_warns(repo, monkeypatch, capsys, conn):
    monkeypatch.chdir(repo)
    started = {}

    def fake_serve(project, **kw):  # a fake: the real server would block the test
        started.update(kw)
        return 0

    monkeypatch.setattr(server, "serve", fake_serve)
    assert cli.main(["ui", "--host", "0.0.0.0", "--allow-remote", "--no-browser"]) == 0
    assert "WARNING" in capsys.readouterr().err and started["host"] == "0.0.0.0"
