"""Namespacing (SPEC §3.4): the project id from the normalised origin remote, else the repository root."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest

from agentctx.base import project
from agentctx.base.project import detect, normalize_remote

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SAME_REPO = [
    "git@github.com:Org/Repo.git",
    "ssh://git@github.com/Org/Repo.git",
    "ssh://git@github.com:22/Org/Repo.git",
    "https://github.com/Org/Repo",
    "https://user:s3cret@github.com/Org/Repo/",
    "https://user@github.com/org/repo.git",
    "HTTPS://GITHUB.COM/ORG/REPO.GIT",
    "https://github.com:443/Org/Repo.git",
    "git://github.com/Org/Repo.git",
    "github.com:Org/Repo",
    "git@github.com:/Org/Repo.git",
    "  https://github.com//Org//Repo.git  ",
]


def _sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main",
                    *args], cwd=cwd, check=True, capture_output=True)


def make_repo(path, remote=None):
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    if remote:
        git(path, "remote", "add", "origin", remote)
    return path


@pytest.mark.parametrize("url", SAME_REPO)
def test_remote_forms_normalise_to_one_name(url):
    assert normalize_remote(url) == "github.com/org/repo"


def test_normalised_remote_never_keeps_credentials():
    assert "s3cret" not in normalize_remote("https://user:s3cret@github.com/Org/Repo/")
    assert "user" not in normalize_remote("https://user:s3cret@github.com/Org/Repo/")


@pytest.mark.parametrize("url", [
    "git@github.com:Fork/Repo.git",       # a fork
    "git@github.com:Org/Other.git",       # another repository
    "git@gitlab.com:Org/Repo.git",        # another host
    "/srv/git/Org/Repo.git",              # a plain path
    "https://github.com/Org/Repo/sub",    # a deeper path
])
def test_different_repositories_get_different_names(url):
    assert normalize_remote(url) != "github.com/org/repo"


def test_local_path_remotes_normalise_consistently():
    assert normalize_remote("/srv/git/repo.git") == normalize_remote("file:///srv/git/repo.git") == "srv/git/repo"


@needs_git
@pytest.mark.parametrize("url", SAME_REPO[:5])
def test_clones_with_any_remote_form_share_one_id(tmp_path, url):
    ids = {detect(make_repo(tmp_path / f"clone{i}", u)).id for i, u in enumerate([url, SAME_REPO[0]])}
    assert len(ids) == 1
    (only,) = ids
    assert only == _sha("github.com/org/repo")
    assert len(only) == 64 and all(c in "0123456789abcdef" for c in only)


@needs_git
def test_fork_and_other_repo_and_plain_path_differ(tmp_path):
    a = detect(make_repo(tmp_path / "a", "git@github.com:Org/Repo.git")).id
    fork = detect(make_repo(tmp_path / "b", "git@github.com:Fork/Repo.git")).id
    other = detect(make_repo(tmp_path / "c", "git@github.com:Org/Other.git")).id
    plain = detect(make_repo(tmp_path / "d")).id
    assert len({a, fork, other, plain}) == 4


@needs_git
def test_project_fields_and_credentials_dropped(tmp_path):
    repo = make_repo(tmp_path / "my-app", "https://bob:hunter2@github.com/Org/My-App.git")
    found = detect(repo)
    assert found.name == "my-app"
    assert found.root == repo.resolve()
    assert found.remote == "github.com/org/my-app"
    assert "hunter2" not in repr(found)


@needs_git
def test_subdirectories_belong_to_the_repository(tmp_path):
    repo = make_repo(tmp_path / "r", "git@github.com:Org/Repo.git")
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    assert detect(deep) == detect(repo)


@needs_git
def test_no_remote_uses_the_repository_root_path(tmp_path):
    repo = make_repo(tmp_path / "local")
    (repo / "sub").mkdir()
    found = detect(repo / "sub")
    assert found.remote is None
    assert found.root == repo.resolve()
    assert found.id == _sha(str(repo.resolve()))


def test_no_repository_uses_the_directory(tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    found = detect(plain)
    assert found.id == _sha(str(plain.resolve()))
    assert found.name == "plain" and found.remote is None
    monkeypatch.chdir(plain)
    assert detect() == found


@needs_git
def test_non_origin_remotes_are_ignored(tmp_path):
    repo = make_repo(tmp_path / "r")
    git(repo, "remote", "add", "upstream", "git@github.com:Upstream/Repo.git")
    assert detect(repo).remote is None
    git(repo, "remote", "add", "origin", "git@github.com:Org/Repo.git")
    assert detect(repo).remote == "github.com/org/repo"


@needs_git
def test_worktree_shares_the_main_repository_id(tmp_path):
    repo = make_repo(tmp_path / "main", "git@github.com:Org/Repo.git")
    git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    assert (tmp_path / "wt" / ".git").is_file()
    found = detect(tmp_path / "wt")
    assert found.id == detect(repo).id
    assert found.root == (tmp_path / "wt").resolve()


def test_git_file_with_relative_gitdir(tmp_path):
    # A submodule-style checkout: `.git` is a file pointing at a relative git directory.
    gitdir = tmp_path / "super" / ".git" / "modules" / "lib"
    gitdir.mkdir(parents=True)
    (gitdir / "config").write_text('[core]\n\tbare = false\n[remote "origin"]\n\turl = git@host:Org/Lib.git\n')
    checkout = tmp_path / "super" / "lib"
    checkout.mkdir()
    (checkout / ".git").write_text("gitdir: ../.git/modules/lib\n")
    found = detect(checkout)
    assert found.remote == "host/org/lib"
    assert found.root == checkout.resolve()


def test_origin_url_parsing_tolerates_comments_and_spacing(tmp_path):
    (tmp_path / "config").write_text(
        '# comment\n[remote "upstream"]\n url = git@a:x/y\n; another\n[remote  "origin"]\n'
        '\tfetch = +refs/heads/*:refs/remotes/origin/*\n\tURL="https://h/o/r"\n[branch "main"]\n\turl = nope\n'
    )
    assert project.origin_url(tmp_path) == "https://h/o/r"


def test_origin_url_missing_config(tmp_path):
    assert project.origin_url(tmp_path) is None


def test_unreadable_git_file_falls_back_without_crashing(tmp_path):
    (tmp_path / ".git").write_text("not a gitdir line")
    found = detect(tmp_path)
    assert found.remote is None


@needs_git
def test_worktrees_of_a_repository_without_origin_are_one_project(tmp_path):
    # Worktrees of one repository are one project (SPEC §3.4): without an origin the id is the main work tree's
    # path, so a linked worktree joins the main checkout; the main checkout keeps the id it always had.
    repo = make_repo(tmp_path / "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    (tmp_path / "wt" / "pkg").mkdir()
    found = detect(tmp_path / "wt" / "pkg")
    assert found.id == detect(repo).id == _sha(str(repo.resolve()))
    assert found.root == (tmp_path / "wt").resolve() and found.name == "wt"


@needs_git
def test_worktrees_of_a_bare_repository_share_its_id(tmp_path):
    bare = tmp_path / "proj.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    seed = make_repo(tmp_path / "seed")
    git(seed, "commit", "-q", "--allow-empty", "-m", "first")
    git(seed, "push", "-q", str(bare), "HEAD:refs/heads/main")
    git(bare, "worktree", "add", "-q", str(tmp_path / "one"), "main")
    git(bare, "worktree", "add", "-q", str(tmp_path / "two"), "-b", "other", "main")
    assert detect(tmp_path / "one").id == detect(tmp_path / "two").id == _sha(str(bare.resolve()))


def test_submodule_without_origin_keeps_its_checkout_id(tmp_path):
    gitdir = tmp_path / "super" / ".git" / "modules" / "lib"
    gitdir.mkdir(parents=True)
    (gitdir / "config").write_text("[core]\n\tbare = false\n")
    (gitdir / "HEAD").write_text("ref: refs/heads/main\n")
    checkout = tmp_path / "super" / "lib"
    checkout.mkdir()
    (checkout / ".git").write_text("gitdir: ../.git/modules/lib\n")
    assert detect(checkout).id == _sha(str(checkout.resolve()))
