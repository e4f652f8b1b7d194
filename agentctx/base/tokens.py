"""Token budgets (SPEC §10): one estimate and one truncation rule used by every surface."""

SESSION_START_BUDGET = 1500
PROMPT_BUDGET = 2000
PROMPT_CHAR_CAP = 8000
PROMPT_TOP_K = 3
SEARCH_RESULT_BUDGET = 50
SEARCH_LIMIT_MAX = 15
DRIFT_HINT_BUDGET = 60

ELLIPSIS = "\n…"


def estimate(text: str) -> int:
    """Tokens as ceil(chars / 4): cheap, deterministic, and conservative for English and code."""
    return (len(text) + 3) // 4


def truncate(text: str, budget: int) -> str:
    """Cut `text` to at most `budget` tokens, at a word boundary when one is past halfway, marking the cut.

    The result never exceeds the budget: a budget too small for the marker yields "".
    """
    if budget <= 0:
        return ""
    if estimate(text) <= budget:
        return text
    limit = budget * 4 - len(ELLIPSIS)
    if limit <= 0:
        return ""
    cut = text[:limit]
    boundary = max(cut.rfind(" "), cut.rfind("\n"))
    if boundary > limit // 2:
        cut = cut[:boundary]
    return cut.rstrip() + ELLIPSIS


def truncate_chars(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters with the same marker."""
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS):
        return ""
    return text[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS


def fit(blocks: list[str], budget: int, *, separator: str = "\n\n", char_cap: int | None = None) -> list[str]:
    """Keep blocks in order while they fit the token budget (and char cap); a block that does not fit is skipped."""
    kept: list[str] = []
    used_chars = 0
    for block in blocks:
        extra = len(block) + (len(separator) if kept else 0)
        if estimate("x" * (used_chars + extra)) > budget:
            continue
        if char_cap is not None and used_chars + extra > char_cap:
            continue
        kept.append(block)
        used_chars += extra
    return kept


def compose(sections: list[str], budget: int, *, separator: str = "\n\n", min_partial: int = 40) -> str:
    """Join sections in priority order under `budget`, truncating the first that overflows and dropping the rest."""
    out = ""
    for section in sections:
        if not section:
            continue
        candidate = out + (separator if out else "") + section
        if estimate(candidate) <= budget:
            out = candidate
            continue
        room = budget - estimate(out + (separator if out else ""))
        if room >= min_partial:
            out = out + (separator if out else "") + truncate(section, room)
        break
    return out
