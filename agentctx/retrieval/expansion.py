"""Query expansion: the other names a question's words have in records (agentctx/retrieval/expansions.txt).

"which database do we use?" is answered by a record that says PostgreSQL, "is postgres …" by one that says
PostgreSQL: the prompt hook stays lexical, so the words a record uses for what a question names by category,
spelling or abbreviation come from a vocabulary written by hand (tools/vocabulary.txt, built by
tools/build_expansions.py). A record naming a member counts as containing the question's word.
"""

FILE = "expansions.txt"
_data: "bytes | None" = None


def _load() -> bytes:
    global _data
    if _data is None:
        import os

        try:
            with open(os.path.join(os.path.dirname(__file__), FILE), "rb") as fh:
                _data = b"\n" + fh.read()
        except OSError:  # a damaged install: no expansion, plain lexical search
            _data = b""
    return _data


def lookup(stems: "list[str]") -> "dict[str, dict[str, str]]":
    """For each query stem with other names, {member stem: a word spelling it} of the names the query does not
    hold itself. A stem's line is found with one bytes search (the file is ~25 KB: cheaper than parsing it)."""
    data = _load()
    out: "dict[str, dict[str, str]]" = {}
    if not data:
        return out
    own = set(stems)
    for stem in own:
        if not stem.isascii():
            continue
        start = data.find(b"\n" + stem.encode() + b"\t")
        if start < 0:
            continue
        end = data.find(b"\n", start + 1)
        line = data[start + len(stem) + 2:end if end >= 0 else len(data)].decode()
        members = {}
        for pair in line.split():
            member, _, word = pair.partition(":")
            if member not in own:
                members[member] = word
        if members:
            out[stem] = members
    return out
