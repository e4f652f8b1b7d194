"""base/cmdpattern.py: command patterns matched the way the tool reads its words."""

import pytest

from agentctx.base.cmdpattern import matches
from agentctx.base.shell import parse


def hit(pattern: str, line: str) -> bool:
    return any(matches(pattern, c.words) for c in parse(line).commands)


@pytest.mark.parametrize("pattern,line,expected", [
    ("git push --force", "git push -f", True),
    ("git push --force", "git push origin main --force", True),
    ("git push --force", "git push origin +main", True),
    ("git push --force", "git -C . push --force", True),
    ("git push --force", "git -c k=v push --force", True),
    ("git push --force", "git --no-pager push --force", True),
    ("git push --force", "git --git-dir=.git --work-tree=. push -f", True),
    ("git push --force", "git push --force-with-lease", True),
    ("git push --force", "git push --force-with-lease=main:abc origin main", True),
    ("git push --force", "git push --force-if-includes", True),
    ("git push --force", "git push -fu origin topic", True),
    ("git push -f", "git push --force", True),
    ("git push --force", "git push origin main", False),
    ("git push --force", "git commit -m 'push -f'", False),
    ("git push --force", "git stash push -f", False),
    ("git push --force", "git push -o ci.skip origin main", False),
    ("git push", "git -P push", True),
    ("git push", "git pushx", False),
    ("git branch -D", "git branch --delete --force x", True),
    ("git clean -fd", "git clean -fdx", True),
    ("git reset --hard", "git reset --hard HEAD~1", True),
    ("git reset --hard", "git reset --soft HEAD~1", False),
    ("terraform apply -auto-approve", "terraform -chdir=infra apply -auto-approve", True),
    ("terraform apply -auto-approve", "terraform apply --auto-approve -var x=1", True),
    ("terraform apply -auto-approve", "terraform apply", False),
    ("kubectl delete", "kubectl -n prod delete pod x", True),
    ("kubectl delete namespace", "kubectl delete --context prod namespace x", True),
    ("docker system prune -f", "docker system prune --all --force", True),
    ("docker system prune -f", "docker system prune", False),
    ("docker compose down", "docker-compose -f x.yml down -v", True),
    ("docker compose down -v", "docker compose -p x down --volumes", True),
    ("rm -rf", "rm -fr x", True),
    ("rm -rf", "rm -r -f x", True),
    ("rm -rf", "rm --recursive --force x", True),
    ("rm -rf", "rm -Rf x", True),
    ("rm -rf", "rm -r x", False),
    ("pip install", "python3 -m pip install -U x", True),
    ("pip install", "pip3 install x", True),
    ("pip install", "uv pip install x", False),
    ("uv pip install", "uv pip install x", True),
    ("alembic upgrade", "uv run alembic upgrade head", True),
    ("alembic upgrade", "alembic -c alembic.ini upgrade head", True),
    ("alembic upgrade", "poetry run alembic -x db=prod upgrade head", True),
    ("alembic downgrade", "alembic upgrade head", False),
    ("npm install", "npm i lodash", True),
    ("npm install", "npm --prefix web install", True),
    ("npm publish", "npm publish --access public", True),
    ("pnpm add", "pnpm -C web add x", True),
    ("yarn add", "yarn --cwd web add x", True),
    ("prisma migrate reset", "npx prisma migrate reset --force", True),
    ("make deploy", "make deploy prod", True),
    ("make deploy", "make test", False),
])
def test_patterns(pattern: str, line: str, expected: bool) -> None:
    assert hit(pattern, line) is expected
