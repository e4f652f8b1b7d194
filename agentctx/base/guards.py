"""Guards: a record the user made enforced (`never`/`always` a deterministic pattern), stored in `records.guard`.

The stored form (SPEC §4.11) is text a person can read in any SQLite client: a first line `never ask`,
`never deny`, `always ask` or `always deny`, then one pattern per line, each an anchor in stored form
(`command:git push --force`, `path:migrations/*.sql`, `tool:WebFetch`). An empty string: no guard.

- `never P`: an action that matches any pattern P is stopped (asked or denied).
- `always P`: an action inside the record's own anchors (its scope) must also match one of the patterns; one that
  does not is stopped. `always command:make test` on a record anchored `command:git push` stops a bare `git push`
  and lets `make test && git push` run; `always path:migrations/*.sql` on a record anchored `path:migrations/`
  stops an edit of `migrations/env.py`. An `always` guard needs anchors (its scope).

Matching is base/anchors.py's: literal command words and bounded globs, never a regular expression.
"""

from . import anchors as _anchors

MODES = ("never", "always")
DECISIONS = ("ask", "deny")
PATTERNS_MAX = 4


class GuardError(ValueError):
    """A guard refused, in one line."""


def make(mode: str, patterns: "list[str] | tuple[str, ...]", decision: str = "ask", *,
         record_anchors: "tuple[str, ...]" = (), root: str | None = None) -> str:
    """The stored form of a guard, validated; GuardError otherwise."""
    if mode not in MODES:
        raise GuardError(f"guard mode {mode!r}: use never or always")
    if decision not in DECISIONS:
        raise GuardError(f"guard decision {decision!r}: use ask or deny")
    items = [p for p in patterns if isinstance(p, str) and p.strip()]
    if not items:
        raise GuardError("a guard needs a pattern, e.g. command:\"git push --force\"")
    if len(items) > PATTERNS_MAX:
        raise GuardError(f"{len(items)} guard patterns; the limit is {PATTERNS_MAX}")
    try:
        stored = _anchors.normalize_all(items, root)
    except _anchors.AnchorError as exc:
        raise GuardError(str(exc)) from None
    if any(_anchors.split(p)[0] == "symbol" for p in stored):
        raise GuardError("a guard pattern is a path, a command or a tool: a symbol cannot be checked before an action")
    if mode == "always" and not record_anchors:
        raise GuardError("an `always` guard applies inside the record's anchors: give the record --anchor first")
    return "\n".join([f"{mode} {decision}", *stored])


def parse(text: str) -> "tuple[str, str, tuple[str, ...]] | None":
    """(mode, decision, patterns) of a stored guard; None for no guard or one this version cannot read."""
    if not text:
        return None
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    if len(lines) < 2:
        return None
    head = lines[0].split()
    if len(head) != 2 or head[0] not in MODES or head[1] not in DECISIONS:
        return None
    return head[0], head[1], tuple(lines[1:1 + PATTERNS_MAX])


def describe(text: str) -> str:
    """One line for `show` and the dashboard: `never (ask): command:git push --force`."""
    parsed = parse(text)
    if parsed is None:
        return ""
    mode, decision, patterns = parsed
    return f"{mode} ({decision}): {', '.join(patterns)}"
