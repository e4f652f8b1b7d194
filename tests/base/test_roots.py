"""The root cache (`base.roots`): work-tree root -> project id, and the names it gives projects."""

from __future__ import annotations

from agentctx.base import roots
from agentctx.base.project import detect
from agentctx.memory import digest


def _repo(path, remote):
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n')
    return detect(path)


def test_names_come_from_the_checkouts_the_cache_knows(tmp_path):
    assert roots.names() == {}  # no cache yet: nothing is named
    shop = _repo(tmp_path / "shop", "git@github.com:acme/shop.git")
    clone = _repo(tmp_path / "a-second-clone", "https://github.com/acme/shop")  # the same project elsewhere
    api = _repo(tmp_path / "api", "git@github.com:acme/api.git")
    for project in (shop, clone, api):
        digest.remember_root(project)
    assert shop.id == clone.id
    # One name per project, the same on every call: the first of its checkouts in path order.
    assert roots.names() == {shop.id: "a-second-clone", api.id: "api"}


def test_a_damaged_cache_names_nothing(tmp_path):
    from pathlib import Path

    Path(roots.roots_file()).parent.mkdir(parents=True, exist_ok=True)
    for junk in ("{", "[1, 2]", '{"/x": "not a list", "/y": [3, 4]}'):
        Path(roots.roots_file()).write_text(junk)
        assert roots.names() == {}
