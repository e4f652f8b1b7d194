"""The prompt hook's injection decision: a few features of each candidate and a fitted logistic model.

One floor over a lexical score cannot tell a long, chatty prompt that collects rare words by chance from a short
question that shares one or two words with the record it is about. The decision looks at how much of the prompt a
record explains and how much of the record's title the prompt names, besides the shared words' specificity, and
turns them into a probability with coefficients fitted on real prompts, cross-validated by repository and by prompt
source (`tools/fit_relevance.py` writes `relevance.txt`; figures in docs/benchmarks.md). Runs in the prompt hook: no
json, re or typing here.
"""

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable

    from ..base.models import SearchHit, SearchResult
    from .meaning import Meaning

# The features of a prompt's best candidate the gate reads, in the order of the model file. Each is cheap: the search
# already knows which query stems a record contains and how specific each query stem is; only the record's title is
# tokenized again.
FEATURES = ("relevance", "cover", "title_cover", "title_shared", "telling", "terms", "question", "question_cover",
            "store", "expanded")
MODEL_FILE = "relevance.txt"
# Short prompts (questions, one-line requests) and long ones (problem descriptions, pasted context) each have their
# own fitted gate: a long prompt collects rare words by chance, a short one shares one or two words with its record.
SHORT_TERMS = 12
CLASSES = ("short", "long")
# With the static meaning data (retrieval/meaning.py: the `[vectors]` extra built it), each class has a second model
# that also reads the candidates' semantic features, "short_m" and "long_m" in the model file.
SEMANTIC = "_m"
SEMANTIC_FEATURES = ("semantic", "semantic_gap")
# Candidates the prompt hook asks search for: top 3 injected, 3 spare for records already injected this session
# (pool: 32 candidates).
SEARCH_LIMIT = 6
# Only the best few candidates are weighed (the hook injects at most 3; `why` shows the rest of these).
CONSIDER = 6
# The gate reads the most probable of the first GATE_RANKS candidates (by the model of the prompt's class).
GATE_RANKS = 3
# Once the gate opens, that candidate is injected and so is each of the next two whose score is at least this
# share of the best one's: a companion rides along only when it is nearly as relevant as the first (a close second
# is often the record meant too; a distant one is noise). Measured held out (docs/benchmarks.md, issue 45): 0.6
# instead of 0.4 cuts the wrong records per related prompt by a quarter (1.15 -> 0.88) for about a point of hits.
COMPANION = 0.6
# ... and whose own probability is at least this share of the threshold: a candidate that outscores the gate's on
# common words ("where do the release notes for my change go?" against a data-migration decision that says
# "changes" and "notes") is no companion.
COMPANION_P = 0.5
RARE = 0.5  # a stem in fewer than about one in 45 general software documents
TELLING = 0.1  # as search.TELLING: a stem found in fewer than about half of general software documents
# A prompt that says most of what a record's own text says is about it, whatever the fitted gate makes of its other
# features ("The test suite just hangs when I'm connected to the VPN" against "on the corporate VPN the test suite
# hangs" was refused at p 0.765): at least this share of the prompt's specificity found in the title or body, through
# at least VERBATIM_TELLING telling words, one of them rare (generic words alone say nothing: "Scan the project to
# understand it" is near-verbatim to a record about an OCR engine that scans projects to understand them).
VERBATIM_COVER = 0.75
VERBATIM_TELLING = 3
VERBATIM_RARE = 1
# A short question that a candidate holds almost all of, by weight in this store (its "cover"), through at least
# ANSWERED_TELLING telling words is about it, whatever the fitted gate makes of its other features: "where do the
# release notes for my change go?" against a record whose other name is "release notes" and whose text says where
# changelog fragments go (gate p 0.595). So is one it holds most of through two telling words when it also says half
# of one of the record's own questions ("what coverage does CI want?" against "what coverage does ci require?").
# Measured held-out (docs/benchmarks.md): the hand-written questions 0.444 -> 0.556, no unrelated prompt more; with
# cover >= 0.8 and 2 telling words and no stored question, more of them for a point more unrelated.
# And so is one that says half of one of the record's questions through three telling words, when they hold a fifth
# of it by weight ("is there a way to get a temporary deployment of my pull request to show someone?" against a
# record that foresaw "do we have review apps for pull requests?"). Measured held-out: questions +3 points with
# recorded expansions, no unrelated prompt more (docs/benchmarks.md).
ANSWERED_COVER = 0.9
ANSWERED_TELLING = 3
ASKED_COVER = 0.8
ASKED_QUESTION = 0.5
FORESEEN_COVER = 0.2
# A stored question shorter than this in content words says this much less (relevance.question_cover).
QUESTION_WORDS_MIN = 2
# A prompt this short that ends with "?" is a question: it names its subject in few words.
QUESTION_TERMS = 16

# A short question made only of words about working on the project ("how do I run the tests?", "which linter do
# we use?", "what's our stack?") asks about its profile, whatever the gate's lexical features say: the profile
# records are titled by their key ("Commands"), and such questions share one generic word with them. Words the
# profile record itself contains may join them ("where is the entry point of the cli?").
PROFILE_INTENT = {
    "Commands": "test tests testing lint linter linting build run running start dev server typecheck type check "
                "format formatter install command commands script scripts compile suite unit",
    "Stack": "stack tech technology technologies framework frameworks library libraries language languages package "
             "packages manager managers dependency dependencies depend depends runtime tool tools tooling version",
    "Entry points": "entry point points main binary binaries executable",
}
PROFILE_FILLER = "project repo repository code codebase app application locally local"
ASK_WORDS = ("how", "which", "what", "what's", "whats", "where")
_intent_stems: "dict[str, frozenset[str]] | None" = None

_model: "dict[str, tuple[dict[str, float], float, dict[str, float], dict[str, float]]] | None" = None


def load() -> "dict[str, tuple[dict[str, float], float, dict[str, float], dict[str, float]]]":
    """Per prompt class, (coefficients incl. "bias", threshold, feature means, feature scales) from relevance.txt:
    "CLASS.NAME value" lines ("#" comments); NAME is "threshold", "bias", a feature, or "mean:F"/"scale:F", which
    standardize feature F before its coefficient applies."""
    global _model
    if _model is None:
        import os

        model: "dict[str, tuple[dict[str, float], float, dict[str, float], dict[str, float]]]" = {}
        with open(os.path.join(os.path.dirname(__file__), MODEL_FILE), encoding="ascii") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) != 2 or line.startswith("#") or "." not in parts[0]:
                    continue
                klass, _, key = parts[0].partition(".")
                coef, threshold, mean, scale = model.get(klass) or ({}, 0.5, {}, {})
                value = float(parts[1])
                if key == "threshold":
                    threshold = value
                elif key.startswith("mean:"):
                    mean[key[5:]] = value
                elif key.startswith("scale:"):
                    scale[key[6:]] = value
                else:
                    coef[key] = value
                model[klass] = (coef, threshold, mean, scale)
        _model = model
    return _model


def prompt_class(n_terms: int) -> str:
    return "short" if n_terms <= SHORT_TERMS else "long"


def threshold(klass: str = "short") -> float:
    return load()[klass][1]


def is_question(prompt: str, n_terms: int) -> bool:
    return n_terms <= QUESTION_TERMS and prompt.rstrip().endswith("?")


def weights(specific: "dict[str, float]", frequency: "tuple[int, dict[str, int]] | None") -> "dict[str, float]":
    """Each query stem's weight: its specificity in general software text times its specificity in this store (1 for
    a word in one record or none, falling to 0 for a word in every record, on a log scale relative to the store's
    size: a word many records share, say a generic other name, tells this store's records apart no better than a
    common word). Computed once per prompt."""
    n, df = frequency if frequency else (0, {})
    scale = math.log(n + 1) if n > 1 else 0.0
    out = {}
    for stem, spec in specific.items():
        d = df.get(stem, 0)
        out[stem] = spec * max(0.0, 1.0 - math.log(d) / scale) if scale and d > 1 else spec
    return out


def features(hit: "SearchHit", specific: "dict[str, float]", question: bool,
             weight: "dict[str, float] | None" = None, n_records: int = 0) -> "dict[str, float]":
    """The gate's inputs for one candidate; `specific` is every distinct query stem's specificity, `weight` its
    weight in this store (relevance.weights; the specificity alone without it), `n_records` the store's size."""
    from . import search
    from ..base import text

    weight = weight if weight is not None else specific
    matched = hit.matched or {}
    total = sum(specific.values()) or 1.0
    shared = [specific.get(s, 1.0) for s in matched]
    title_stems = list(dict.fromkeys(text.stems(text.content_tokens(hit.record.title))))
    title_spec = search.specificity([s for s in title_stems if s not in specific])
    title_spec.update((s, specific[s]) for s in title_stems if s in specific)
    title_total = sum(title_spec.values())
    covered = [s for s in title_stems if s in specific]
    asked = hit.asked or {}
    only_asked = sum(specific.get(s, 1.0) for s, only in asked.items() if only)
    # A word found only through the record's questions or other names counts by its specificity once more: a
    # generic other name ("logging", "documentation") matches everyday prompts and says little; a specific one,
    # or one few records of this store share, still counts through its weight. The words of an other name of two
    # words or more that the prompt says whole ("release notes") count in full: the phrase is specific.
    whole = phrase_stems(hit.record.aliases, weight) if any(asked.values()) else frozenset()
    held = sum(weight.get(s, 0.0) * (min(1.0, specific.get(s, 1.0) / RARE) if asked.get(s) and s not in whole
                                     else 1.0) for s in matched)
    return {
        # The specificity of the shared words (search.relevance), and the share of the prompt's weight they make up.
        "relevance": math.log1p(hit.relevance),
        "cover": held / (sum(weight.values()) or 1.0),
        # How much of what the record says it is about (its title) the prompt names.
        "title_cover": sum(title_spec[s] for s in covered) / title_total if title_total else 0.0,
        "title_shared": float(len(covered)),
        "telling": float(sum(1 for v in shared if v >= TELLING)),
        "rare": float(sum(1 for v in shared if v >= RARE)),
        "terms": math.log1p(len(specific)),
        "question": 1.0 if question else 0.0,
        # The share of the prompt's specificity the record's own text holds (the near-verbatim rule reads it).
        "text_cover": (sum(shared) - only_asked) / total,
        # How much of one of the record's questions the prompt says: a question asked as it was foreseen.
        "question_cover": question_cover(hit.record.questions, specific),
        # The same, counting a stored question of two or more words only when the prompt says two of them: what
        # the closed-gate rule for foreseen questions reads (answered()).
        "question_asked": question_cover(hit.record.questions, specific, strict=True),
        # The store's size (log1p of its records): the same overlap is likelier by chance among more records.
        "store": math.log1p(n_records),
        # Whether the record carries questions or other names: they give it more words to match by chance, and
        # only then does question_cover say anything. Without it the gate read one meaning into the overlap of
        # records with and without them; with it, measured held-out, more questions and less noise for both.
        "expanded": 1.0 if hit.record.questions or hit.record.aliases else 0.0,
    }


def phrase_stems(aliases: "tuple[str, ...]", prompt: "dict[str, float]") -> "frozenset[str]":
    """The stems of the record's other names of two words or more whose words the prompt all says."""
    from ..base import text

    out: "set[str]" = set()
    for alias in aliases or ():
        stems = set(text.stems(text.content_tokens(alias)))
        if len(stems) > 1 and stems <= prompt.keys():
            out |= stems
    return frozenset(out)


def question_cover(questions: "tuple[str, ...]", specific: "dict[str, float]", strict: bool = False) -> float:
    """The largest share of a stored question's content words that are among the prompt's stems (0 without
    questions): a question asked as it was foreseen. Counted, not weighed by specificity: measured, weighing them
    (a background lookup per word) did no better. A question of one content word counts as two: "how do we log?"
    is all said by any prompt about logging ("add more logging to the upload handler")."""
    from ..base import text

    best = 0.0
    for question in questions or ():
        words = text.content_tokens(question)
        if words:
            found = sum(1 for stem in text.stems(words) if stem in specific)
            # `strict`: one word of a stored question of two or more says no more than one shared word ("user
            # profiles" is not half of "Route53 Profiles?", which opened a closed gate at cover 0.31). Measured,
            # the gate's own feature keeps the old count (held out, strict cost 3.7 points of questions with
            # expansions); only the closed-gate rule reads the strict one (docs/benchmarks.md, issue 45).
            if not strict or found >= min(len(words), QUESTION_WORDS_MIN):
                best = max(best, found / max(len(words), QUESTION_WORDS_MIN))
    return best


def near_verbatim(feats: "dict[str, float]") -> bool:
    """Whether a candidate's own text says most of what the prompt says (see VERBATIM_COVER)."""
    return (feats.get("text_cover", 0.0) >= VERBATIM_COVER and feats.get("telling", 0.0) >= VERBATIM_TELLING
            and feats.get("rare", 0.0) >= VERBATIM_RARE)


def answered(feats: "dict[str, float]") -> bool:
    """Whether a short question says little the candidate does not hold (see ANSWERED_COVER)."""
    if feats.get("question", 0.0) != 1.0:
        return False
    cover, telling = feats.get("cover", 0.0), feats.get("telling", 0.0)
    # Half of a short stored question does not open a closed gate on its own (issue 45: "user profiles" against
    # "Route53 Profiles?"): this rule reads the share that counts a two-word question only when both words are said.
    asked = feats.get("question_asked", feats.get("question_cover", 0.0)) >= ASKED_QUESTION
    return (cover >= ANSWERED_COVER and telling >= ANSWERED_TELLING) or (
        asked and cover >= ASKED_COVER and telling >= ANSWERED_TELLING - 1) or (
        asked and cover >= FORESEEN_COVER and telling >= ANSWERED_TELLING)


def said_whole(feats: "dict[str, float]") -> bool:
    """Whether a candidate passes a closed gate: near-verbatim, or a question it answers whole."""
    return near_verbatim(feats) or answered(feats)


def asked_only(hit: "SearchHit") -> "list[str]":
    """The query stems a candidate matched only through its questions or aliases (how it will be asked)."""
    return [stem for stem, only in (hit.asked or {}).items() if only]


def prompt_words(prompt: str) -> "dict[str, str]":
    """Each of the prompt's stems -> the first word it came from (to show stems as the words someone typed)."""
    from ..base import text

    tokens = text.query_tokens(prompt)
    return dict(zip(reversed(text.stems(tokens)), reversed(tokens)))


def probability(feats: "dict[str, float]", klass: str) -> float:
    """p under the class's model (whatever features its coefficients name)."""
    coef, _, mean, scale = load()[klass]
    z = coef.get("bias", 0.0)
    for name, w in coef.items():
        if w and name != "bias":
            z += w * (feats.get(name, 0.0) - mean.get(name, 0.0)) / (scale.get(name) or 1.0)
    if z < -40:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def _intent_vocab() -> "dict[str, frozenset[str]]":
    global _intent_stems
    if _intent_stems is None:
        from ..base import text

        _intent_stems = {key: frozenset(text.stems(words.split()))
                         for key, words in (*PROFILE_INTENT.items(), ("", PROFILE_FILLER))}
    return _intent_stems


def profile_intent(prompt: str, stems: "Iterable[str]") -> "tuple[str, frozenset[str]] | None":
    """(the profile key a short question asks about, its stems that are no profile word) or None. The caller checks
    that the profile record contains those other stems."""
    words = frozenset(stems)
    head = prompt.lstrip()[:12].lower().split(maxsplit=1)
    if not words or len(words) > SHORT_TERMS or not (prompt.rstrip().endswith("?") or (head and head[0] in ASK_WORDS)):
        return None
    vocab = _intent_vocab()
    rest = words - vocab[""]
    counts = {key: len(rest & vocab[key]) for key in PROFILE_INTENT}
    key = max(counts, key=counts.__getitem__)  # ties: the order of PROFILE_INTENT
    if not counts[key]:
        return None
    return key, frozenset(rest - vocab[key])


class Assessed:
    """One candidate weighed: the hit, its features, its probability under the prompt class's model (the best
    candidate's is the gate's), its score as a share of the best, and the outcome with the reason for it."""

    __slots__ = ("hit", "features", "p", "ratio", "inject", "reason", "klass")

    def __init__(self, hit: "SearchHit", feats: "dict[str, float]", p: float, ratio: float, inject: bool,
                 reason: str, klass: str) -> None:
        self.hit, self.features, self.p, self.ratio = hit, feats, p, ratio
        self.inject, self.reason, self.klass = inject, reason, klass


def reads_meaning() -> bool:
    """Whether the shipped gate has a model that reads the semantic features (the `_m` classes): only then does the
    hook look for the meaning data, and `agentctx embed` build it (measured, they add nothing yet: docs/benchmarks.md)."""
    model = load()
    return any(klass + SEMANTIC in model for klass in CLASSES)


def semantic(hits: "list[SearchHit]", meaning: "Meaning | None") -> "list[dict[str, float]] | None":
    """Per hit, the semantic features (`semantic`: the cosine of the prompt's static vector with the record's;
    `semantic_gap`: how far it stands above the best of the other candidates'), or None when the meaning data is
    missing or any of the first GATE_RANKS hits has no vector (a record written since the last consolidation): then
    the lexical model decides the whole prompt."""
    if meaning is None or not hits:
        return None
    from .meaning import checksum

    sims = []
    for h in hits:
        r = h.record
        sims.append(meaning.similarity(r.id, checksum(r.title, r.body, r.questions, r.aliases)))
    if any(v is None for v in sims[:GATE_RANKS]):
        return None
    values = [v if v is not None else 0.0 for v in sims]
    out = []
    for i, v in enumerate(values):
        others = [o for j, o in enumerate(values) if j != i]
        out.append({"semantic": v, "semantic_gap": v - max(others) if others else 0.0})
    return out


def assess(result: "SearchResult", prompt: str, *, consider: int = CONSIDER,
           meaning: "Meaning | None" = None) -> "list[Assessed]":
    """The best `consider` hits of a search, each weighed by the fitted model of the prompt's class. The gate is the
    most probable of the first GATE_RANKS; when it reaches the class's threshold, that candidate and the others
    scoring at least COMPANION of it pass (the hook injects the first 3 of them not already injected this session).
    Without word statistics (the LIKE and pinned rungs) there are no features: a hit passes only with the share of
    query terms search.LIKE_SHARE_MAX asks of it there."""
    hits = list(result.hits[:consider])
    if not hits:
        return []
    if result.specific is None:
        from .search import LIKE_SHARE_MAX

        out = []
        for h in hits:
            ok = result.degraded == "like-search" and h.relevance >= LIKE_SHARE_MAX
            out.append(Assessed(h, {}, h.relevance, 1.0, ok, f"{result.degraded}: share of terms "
                                f"{h.relevance:.2f} {'>=' if ok else '<'} {LIKE_SHARE_MAX}", "degraded"))
        return out
    specific = result.specific
    weight = weights(specific, result.frequency)
    klass = prompt_class(len(specific))
    question = is_question(prompt, len(specific))
    sem = semantic(hits, meaning)
    if sem is not None and klass + SEMANTIC in load():
        klass += SEMANTIC
    cut = threshold(klass)
    weighed = []
    for i, hit in enumerate(hits):
        feats = features(hit, specific, question, weight, result.frequency[0] if result.frequency else 0)
        if sem is not None:
            feats.update(sem[i])
        weighed.append((hit, feats, probability(feats, klass)))
    # The gate: the most probable of the first GATE_RANKS candidates (the record meant is often a close second).
    lead = max(range(min(GATE_RANKS, len(weighed))), key=lambda i: weighed[i][2])
    gate = weighed[lead][2]
    verbatim = False
    if gate < cut:
        said = [i for i in range(min(GATE_RANKS, len(weighed))) if said_whole(weighed[i][1])]
        if said:
            lead, verbatim = said[0], True
    best = weighed[lead][0].score
    out = []
    for rank, (hit, feats, p) in enumerate(weighed):
        ratio = hit.score / best if best > 0 else 0.0
        if verbatim and rank == lead:
            inject = True
            reason = (f"near-verbatim: its own text says {feats['text_cover']:.0%} of what the prompt says"
                      if near_verbatim(feats) else f"a question it answers: it holds {feats['cover']:.0%} of its "
                      f"words by weight") + f" (gate p={p:.3f} < {cut:.3f})"
        elif verbatim:
            inject = ratio >= COMPANION and p >= COMPANION_P * cut
            reason = _companion(ratio, p, cut, "the candidate that passed a closed gate")
        elif gate < cut:
            inject = False
            reason = (f"{klass}-prompt gate p={gate:.3f} < {cut:.3f}" if rank == lead
                      else f"gate closed (best candidate p={gate:.3f} < {cut:.3f})")
        elif rank == lead:
            inject, reason = True, f"{klass}-prompt gate p={gate:.3f} >= {cut:.3f}"
        else:
            inject = ratio >= COMPANION and p >= COMPANION_P * cut
            reason = _companion(ratio, p, cut, "the gate's candidate")
        out.append(Assessed(hit, feats, p, ratio, inject, reason, klass))
    return out


def _companion(ratio: float, p: float, cut: float, of: str) -> str:
    if ratio < COMPANION:
        return f"score {ratio:.2f} of {of} < {COMPANION}"
    ok = p >= COMPANION_P * cut
    return f"score {ratio:.2f} of {of} >= {COMPANION}, p={p:.3f} {'>=' if ok else '<'} {COMPANION_P * cut:.3f}"


def decide(conn: "sqlite3.Connection", prompt: str, project_id: str) -> "list[Assessed]":
    """The prompt's best candidates, each weighed by the injection decision (what UserPromptSubmit and `why` show)."""
    from . import search

    # No expansion: measured, it cost more unrelated injections than it brought related ones (docs/benchmarks.md).
    result = search.search(conn, prompt, project_id, limit=SEARCH_LIMIT, floor=0.0, expand=False)
    found = None
    if result.hits and result.specific and reads_meaning():
        from ..base import paths
        from .meaning import for_prompt

        found = for_prompt(paths.db_file(), list(result.terms), result.specific)
    weighed = assess(result, prompt, meaning=found)
    intent = profile_intent(prompt, result.specific) if result.specific else None
    return _answer_profile(conn, weighed, intent, project_id) if intent else weighed


def _answer_profile(conn: "sqlite3.Connection", weighed: "list[Assessed]", intent: "tuple[str, frozenset[str]]",
                    project_id: str) -> "list[Assessed]":
    """A question about the project's profile (relevance.profile_intent) gets that profile record, first, when the
    record holds every other word of the question; the other candidates keep the gate's decision."""
    from ..base import text
    from ..store import records

    key, others = intent
    found = [r for r in records.current(conn, project_id, types=["profile"], own_only=True) if r.title == key]
    if not found or not others <= set(text.stems(text.content_tokens(f"{found[0].title} {found[0].body}"))):
        return weighed
    record = found[0]
    same = next((a for a in weighed if a.hit.record.id == record.id), None)
    gate = f"; gate p={same.p:.3f}" if same is not None else "; not a keyword candidate"
    reason = f"a question about the project's {key.lower()}: its profile record answers it{gate}"
    if same is not None:
        answer = Assessed(same.hit, same.features, same.p, 1.0, True, reason, same.klass)
    else:
        from ..base.models import SearchHit

        klass = weighed[0].klass if weighed else "short"
        answer = Assessed(SearchHit(record, 0.0, 0.0), {}, 0.0, 1.0, True, reason, klass)
    return [answer] + [a for a in weighed if a.hit.record.id != record.id]
