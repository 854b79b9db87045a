"""The measure of the minds: whether what a model said is something a reader would call a thought.

This module owns the rules that mark one answer, one question and one thought, and the sums over
many (`tally`, `worst`). An answer degenerates when it ran to its token limit, says one word
3-gram three times or more (`loop`, over the whole answer, its citations and plans too), or is
more than 30% digits (`digit_share`, over what it says: its string values, `said`, never its
keys or the integers of its structure). A question parrots its template when it holds a run of
five words of the template's own text (`parrots`, over the `runs` of the pieces between its
tags, compared as the seam compares text, `statement.plain`). A thought is grounded by the
cosine of its vector to the mean of the vectors of the rows it cites (`grounding`); it is a
near-restatement when it lies within a small edit (`edit_share`) or a high cosine of a line its
prompt showed (`nearness`); a villager's thoughts are alike by the mean cosine of every pair of
them (`alike`). What the villagers said is read as a reader reads it (`read`, summed by
`read_tally`): its words that are real (`real`, in a word list or the world's names), whether it
is a complete sentence (`sentence`), copies a cited line (`copies`), runs words together
(`run_together`), and names villagers its citations ground (`grounded_names`); and how many of
a villager's answers differ (`distinct`). Every threshold is named once, below, with its reason.
This module must not call a model, read the log or a file, render a template or know where a
vector came from: the run's measure (kernel.report.minds) hands in the texts, the template's
pieces, the vectors and the word list, as a frozenset.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernel.events import Purpose
from kernel.laws._errors import LawError, integer
from kernel.laws.retrieval import cosine
from kernel.laws.statement import plain

# --- the thresholds, each named once with its reason ------------------------------------------

LOOP_WORDS = 3
"""A loop is judged on word 3-grams: two words repeat in any sentence ("of the"), three in a row
said again and again are a phrase going round."""
LOOP_TIMES = 3
"""A 3-gram said this many times or more is a loop: twice may be an echo a reader lets pass,
three times is a model going round ("106 of what he did not do. 106 of what ...")."""
DIGIT_SHARE = 0.30
"""An answer more than this share digits (of the characters it says, spaces aside) is counting,
not saying: the densest lines a villager lives stay under it ("went from 11,2 to 9,3" is 0.29,
"ate 50 mouthfuls on 9,3, 25.0 grams" 0.24)."""
PARROT_RUN = 5
"""A question holding this many words in a row of its template's own text says the instruction
back: four-word runs ("what the day meant") are the plain words any question about a day uses."""
NEAR_EDIT = 0.20
"""A thought whose plain text is within this share of edits (of the longer text's characters)
of a line it was shown is that line with a detail changed ("took 17 parcels" for "took 7")."""
NEAR_COSINE = 0.90
"""A thought at this cosine or above to a line it was shown says that line again in other
words: the cosine at which felt memory takes a statement to be an earlier thought recurring
(laws.felt.LAWS.recurrence)."""

DEGENERATE = ("limit", "loop", "digits")
"""Why an answer degenerates, in the order they are told."""


# --- an answer --------------------------------------------------------------------------------

_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)("|$)', re.S)
_KEY = re.compile(r"\s*:")
_TOKEN = re.compile(r"[^\W_]+")


def _text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise LawError(f"Expected text but got {name}={value!r:.80}")
    return value


def _unescaped(body: str) -> str:
    try:
        return json.loads(f'"{body}"')
    except ValueError:   # a literal cut inside an escape: its characters as they stand
        return body


def said(answer: str) -> tuple[str, ...]:
    """What an answer says: the string values of its JSON text, in order, keys left out.

    Read as literals, not parsed, so an answer cut off by its token limit still says what it
    said up to the cut (its last literal runs to the end). A night plan, all integers, says
    nothing; a statement says its statement; a questions answer its questions.
    """
    answer = _text("answer", answer)
    out = []
    for m in _LITERAL.finditer(answer):
        if m.group(2) and _KEY.match(answer, m.end()):
            continue
        out.append(_unescaped(m.group(1)))
    return tuple(out)


def tokens(text: str) -> tuple[str, ...]:
    """The words of a text as a loop is counted in: each run of letters and digits (NFKC,
    casefolded), so "[445, 445, 445" is three words and "11,3" two, and punctuation, brackets
    and quotes are none."""
    return tuple(_TOKEN.findall(unicodedata.normalize("NFKC", _text("text", text)).casefold()))


def loop(text: str, n: int = LOOP_WORDS) -> int:
    """The most times one `n`-gram of `tokens(text)` occurs in it (overlapping occurrences
    counted); 0 for a text of fewer than `n` words."""
    words = tokens(text)
    n = integer("n", n, at_least=1)
    grams = Counter(words[i:i + n] for i in range(len(words) - n + 1))
    return max(grams.values(), default=0)


def digit_share(text: str) -> float:
    """The share of `text`'s characters, spaces aside, that are decimal digits; 0.0 when it
    has none but spaces."""
    chars = [ch for ch in _text("text", text) if not ch.isspace()]
    if not chars:
        return 0.0
    return sum(ch.isdecimal() for ch in chars) / len(chars)


@dataclass(frozen=True, slots=True)
class Marks:
    """What the degeneracy rules say of one answer: its loop count and digit share (over what
    it says), whether it ran to its limit, and the reasons it degenerates (of DEGENERATE)."""

    loop: int
    digits: float
    limit: bool

    @property
    def reasons(self) -> tuple[str, ...]:
        hit = {"limit": self.limit, "loop": self.loop >= LOOP_TIMES,
               "digits": self.digits > DIGIT_SHARE}
        return tuple(r for r in DEGENERATE if hit[r])

    @property
    def degenerate(self) -> bool:
        return bool(self.reasons)


def marks(answer: str, done_reason: str, tokens_out: int | None = None,
          limit: int | None = None) -> Marks:
    """The degeneracy marks of one answer: it ran to its limit when its done reason is "length"
    or, where its token counts are known, it said `limit` tokens or more; its loop is counted
    over the whole answer (a list of citations or a plan can go round as words do), its digits
    over what it says (`said`), since an answer's ids and a plan are integers by nature."""
    _text("done_reason", done_reason)
    ran = done_reason == "length"
    if tokens_out is not None and limit is not None:
        ran = ran or integer("tokens_out", tokens_out, at_least=0) >= integer("limit", limit,
                                                                              at_least=1)
    return Marks(loop=loop(answer), digits=digit_share("\n".join(said(answer))), limit=ran)


# --- a question and its template --------------------------------------------------------------

def runs(pieces: Iterable[str], n: int = PARROT_RUN) -> frozenset[tuple[str, ...]]:
    """Every run of `n` words in a row within one piece of a template's own text (as `plain`
    gives them). A run never spans two pieces: what lay between them was a variable."""
    n = integer("n", n, at_least=1)
    out = set()
    for piece in pieces:
        words = plain(_text("a piece of the template", piece)).split()
        out.update(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
    return frozenset(out)


def parrots(question: str, template_runs: frozenset[tuple[str, ...]],
            n: int = PARROT_RUN) -> bool:
    """Whether `question` holds a run of `n` words of its template (`runs(pieces, n)`)."""
    words = plain(_text("question", question)).split()
    return any(tuple(words[i:i + n]) in template_runs for i in range(len(words) - n + 1))


# --- a thought, its citations and the lines it was shown --------------------------------------

def edit_distance(a: str, b: str) -> int:
    """The Levenshtein distance of two texts: the fewest characters put in, taken out or changed."""
    a, b = _text("a", a), _text("b", b)
    if len(a) < len(b):
        a, b = b, a
    before = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        now = [i]
        for j, cb in enumerate(b, start=1):
            now.append(min(before[j] + 1, now[j - 1] + 1, before[j - 1] + (ca != cb)))
        before = now
    return before[-1]


def edit_share(a: str, b: str) -> float:
    """The edit distance of two texts as `plain` gives them, over the longer one's length:
    0.0 for one text, 1.0 for texts with nothing in common; 0.0 for two empty texts."""
    pa, pb = plain(_text("a", a)), plain(_text("b", b))
    longer = max(len(pa), len(pb))
    return edit_distance(pa, pb) / longer if longer else 0.0


def _mean(vectors: Sequence[np.ndarray]) -> np.ndarray:
    rows = [np.asarray(v, dtype=np.float64) for v in vectors]
    # an exactly rounded sum for each coordinate: the same mean in any order, on any machine
    return np.array([math.fsum(col) for col in zip(*(r.tolist() for r in rows), strict=True)]) \
        / len(rows)


def grounding(thought: np.ndarray, cited: Sequence[np.ndarray]) -> float:
    """The cosine of a thought's vector to the mean of the vectors of the rows it cites."""
    if len(cited) == 0:
        raise LawError("Expected the vectors of the rows a thought cites but got none")
    return cosine(thought, _mean(cited))


@dataclass(frozen=True, slots=True)
class Nearness:
    """How near a thought lies to the lines its prompt showed: the least edit share and the
    line with it, and the highest cosine (None where the vectors are not known)."""

    line: int
    edit: float
    cosine: float | None

    @property
    def near(self) -> bool:
        return self.edit <= NEAR_EDIT or (self.cosine is not None and self.cosine >= NEAR_COSINE)


def nearness(thought: str, shown: Mapping[int, str], vector: np.ndarray | None = None,
             vectors: Mapping[int, np.ndarray] | None = None) -> Nearness | None:
    """How near `thought` is to the lines `shown` (id to text); None when none was shown.

    The cosine is the highest over the shown lines with a vector in `vectors`, given the
    thought's `vector`; ties of edit share go to the lowest id.
    """
    if not shown:
        return None
    edits = sorted((edit_share(thought, t), i) for i, t in shown.items())
    best = None
    if vector is not None and vectors:
        got = [cosine(vector, vectors[i]) for i in sorted(shown) if i in vectors]
        best = max(got, default=None)
    edit, line = edits[0]
    return Nearness(line=line, edit=edit, cosine=best)


def alike(vectors: Sequence[np.ndarray]) -> tuple[float, int]:
    """The sum of the cosines of every pair of `vectors` and how many pairs: one villager's
    thoughts, of which the mean (sum / pairs) says how little they differ."""
    pairs = [(i, j) for i in range(len(vectors)) for j in range(i + 1, len(vectors))]
    return math.fsum(cosine(vectors[i], vectors[j]) for i, j in pairs), len(pairs)


# --- the sums ---------------------------------------------------------------------------------

PURPOSES = (Purpose.QUESTIONS, Purpose.STATEMENT, Purpose.NIGHT, Purpose.BASINS, Purpose.KEYWORDS,
            Purpose.PLAN, Purpose.TALK, Purpose.ANSWER)
"""The purposes of a generation call, in the order a round and a night make them: a
reflection's two, the night's consolidation plan, then, where a run has basins and plans,
the basins' update, a keyword consolidation and the plan for tomorrow, and, where its
villagers talk, an utterance started at a meeting and an answer to one."""
BASINS_AND_PLANS = ("basins", "keywords", "plan")
TALKS = (Purpose.TALK, Purpose.ANSWER)
ALWAYS = PURPOSES[:3]
"""The purposes every measure shows, with answers or none; the others where a run has any."""


@dataclass(frozen=True, slots=True)
class AnswerRead:
    """One model answer as the measure reads it: where it was said, its marks, and what became
    of it. `questions` and `parroting` count its questions (a questions answer); `refused` is
    the check that refused it whole; `became` is "thought" or "recurred" for a statement that
    stood, "said" for an utterance that was; `groups` and `absorbed` count a night plan's accepted groups and the rows they took
    in, `group_checks` the check of each group refused. `cost` is the call's tokens in and out
    and nanoseconds, where its recording holds them (None where not)."""

    tick: int
    villager: int
    purpose: str
    index: int
    text: str
    marks: Marks
    questions: int = 0
    parroting: int = 0
    refused: str | None = None
    became: str | None = None
    groups: int = 0
    absorbed: int = 0
    group_checks: tuple[str, ...] = ()
    cost: tuple[int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class ThoughtMark:
    """One thought written, as the measure reads it: its grounding in its citations (None
    without vectors) and how near it is to the lines it was shown (None where they are not
    known, or none was shown)."""

    tick: int
    villager: int
    id: int
    text: str
    grounding: float | None
    nearness: Nearness | None


def ratio(part: str, whole: str) -> property:
    """A property of a row of counts: its `part` over its `whole`, or None where `whole` is 0 (a
    mean or a share of nothing is no number)."""
    def get(self: Any) -> float | None:
        w = getattr(self, whole)
        return getattr(self, part) / w if w else None

    return property(get, doc=f"{part} over {whole}; None where {whole} is 0")


@dataclass(frozen=True, slots=True)
class Tally:
    """The measure of some answers and the thoughts they wrote: counts, and the means they give.

    `grounded` counts the thoughts with a grounding, `shown` those whose shown lines are known;
    `alike_pairs` counts the pairs of one villager's thoughts with vectors; `costed` the answers
    whose cost is known, of which `tokens_in`, `tokens_out` and `took_ns` are the sums. A mean
    over nothing is None, never a number: there is nothing to say."""

    answers: int = 0
    degenerate: int = 0
    reasons: tuple[tuple[str, int], ...] = ()
    questions: int = 0
    parroting: int = 0
    question_calls: int = 0
    questions_refused: int = 0
    statements: int = 0
    thoughts: int = 0
    recurred: int = 0
    plans: int = 0
    plans_with_group: int = 0
    absorbed: int = 0
    interest_calls: int = 0      # the basins' updates, keyword consolidations and plans ahead
    # (its name is a key of `village minds --json`, so it keeps its old word)
    utterances: int = 0          # talk calls: utterances started and answers
    said: int = 0                # of them, the utterances the seam let be said
    refusals: tuple[tuple[str, int], ...] = ()
    grounded: int = 0
    grounding_sum: float = 0.0
    shown: int = 0
    near: int = 0
    alike_sum: float = 0.0
    alike_pairs: int = 0
    costed: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    took_ns: int = 0

    def per_call(self, what: str) -> float | None:
        """The mean per costed call of "tokens_in", "tokens_out" or "seconds"; None with none."""
        if not self.costed:
            return None
        total = self.took_ns / 1e9 if what == "seconds" else getattr(self, what)
        return total / self.costed

    grounding = ratio("grounding_sum", "grounded")
    alike = ratio("alike_sum", "alike_pairs")

    @property
    def kept(self) -> int:
        """Statements that became thoughts or recurrences."""
        return self.thoughts + self.recurred


def tally(answers: Iterable[AnswerRead], thoughts: Iterable[ThoughtMark] = (),
          alike_by: Mapping[int, tuple[float, int]] | None = None) -> Tally:
    """The sums of `answers` and `thoughts`; `alike_by` holds each villager's pair sum and pair
    count (`alike`), of which the villagers with a thought here are summed."""
    answers, thoughts = tuple(answers), tuple(thoughts)
    reasons = Counter(r for a in answers for r in a.marks.reasons)
    checks = Counter([a.refused for a in answers if a.refused is not None]
                     + [c for a in answers for c in a.group_checks])
    of = {p: [a for a in answers if a.purpose == p] for p in PURPOSES}
    grounded = [t.grounding for t in thoughts if t.grounding is not None]
    shown = [t.nearness for t in thoughts if t.nearness is not None]
    pairs = [alike_by[v] for v in sorted({t.villager for t in thoughts}) if v in (alike_by or {})]
    costs = [a.cost for a in answers if a.cost is not None]
    return Tally(
        answers=len(answers), degenerate=sum(a.marks.degenerate for a in answers),
        reasons=tuple((r, reasons[r]) for r in DEGENERATE if reasons[r]),
        questions=sum(a.questions for a in of["questions"]),
        parroting=sum(a.parroting for a in of["questions"]),
        question_calls=len(of["questions"]),
        questions_refused=sum(a.refused is not None for a in of["questions"]),
        statements=len(of["statement"]),
        thoughts=sum(a.became == "thought" for a in of["statement"]),
        recurred=sum(a.became == "recurred" for a in of["statement"]),
        plans=len(of["night"]), plans_with_group=sum(a.groups > 0 for a in of["night"]),
        absorbed=sum(a.absorbed for a in of["night"]),
        interest_calls=sum(len(of[p]) for p in BASINS_AND_PLANS),
        utterances=sum(len(of[p]) for p in TALKS),
        said=sum(a.became == "said" for p in TALKS for a in of[p]),
        refusals=tuple(sorted(checks.items())),
        grounded=len(grounded), grounding_sum=math.fsum(grounded),
        shown=len(shown), near=sum(n.near for n in shown),
        alike_sum=math.fsum(s for s, _ in pairs), alike_pairs=sum(n for _, n in pairs),
        costed=len(costs), tokens_in=sum(c[0] for c in costs),
        tokens_out=sum(c[1] for c in costs), took_ns=sum(c[2] for c in costs))


def worst(answers: Iterable[AnswerRead], n: int = 5) -> tuple[AnswerRead, ...]:
    """The `n` worst degenerate answers: the most reasons first, then the most repeated
    3-gram, then the most digits, then the earliest (tick, villager, purpose, index)."""
    bad = [a for a in answers if a.marks.degenerate]
    bad.sort(key=lambda a: (-len(a.marks.reasons), -a.marks.loop, -a.marks.digits, a.tick,
                            a.villager, PURPOSES.index(a.purpose) if a.purpose in PURPOSES else 3,
                            a.index))
    return tuple(bad[:integer("n", n, at_least=0)])


# --- what was said, as a reader reads it ------------------------------------------------------

READS = ("thought", "utterance", "interview")
"""What a reader reads of a run, in this order: its thoughts (the statements accepted), its
utterances (the talk the seam let be said) and its interview answers (those the seam let stand)."""
ONE_LETTER = frozenset({"a", "i"})
"""The only words of one letter a reader takes for words: a word list holds every letter (as
the letter's name), and a lone "s" or "t" in a sentence is a word cut short."""
SENTENCE_WORDS = 3
"""A complete sentence has at least this many words: who, what they did, and to what or whom
("Ander took bread."). It stands in for "holds a verb", which no rule this simple can see."""
SENTENCE_ENDS = ".!?"
"""The marks a complete sentence ends with (closing quotes and brackets after them aside)."""
RUN_PIECE = 3
"""A word of words run together has at least this many letters, or is one of SHORT_WORDS: a
word list holds every letter and hundreds of two-letter abbreviations and symbols ("er",
"ed", "au"), and with those nearly any garble splits ("urned" into "urn" and "ed")."""
SHORT_WORDS = frozenset({"am", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is",
                         "it", "me", "my", "no", "of", "oh", "on", "or", "so", "to", "up", "us",
                         "we"})
"""The two-letter words of English's grammar, the short words a model runs into the next
("ofsight", "onThursday", "toAnder")."""
RUN_PIECES = 4
"""Words run together are at most this many ("happywithme" is three); a token that splits only
into more is a garble, not words said without their spaces."""
COPY_EDIT = NEAR_EDIT
"""A text within this share of edits of a cited line copies it: the share at which a thought
is a near-restatement of a line it was shown (NEAR_EDIT), one rule for both."""

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_OPENERS = "\"'“‘(«"
_CLOSERS = "\"'”’)»"
_QUOTED = re.compile(r'"([^"]*)"|“([^”]*)”')


def words_of(text: str) -> tuple[str, ...]:
    """The words of a text as a reader counts them, as they stand: each run of letters, an
    apostrophe inside it kept ("didn't", "Mose's"); digits, punctuation and spaces are none,
    so "went from 11,2 to 9,3" is three words and "well-kept" two."""
    return tuple(_WORD.findall(unicodedata.normalize("NFKC", _text("text", text))))


def folded(word: str) -> str:
    """A word as it is looked up: NFKC, casefolded, its apostrophe made plain, a possessive 's
    taken off ("Mose's" and "MOSE" are "mose")."""
    w = unicodedata.normalize("NFKC", _text("word", word)).casefold().replace("’", "'")
    return w[:-2] if w.endswith("'s") and len(w) > 2 else w


def lexicon(listed: Iterable[str], names: Iterable[str]) -> frozenset[str]:
    """The words a reader knows: those of a word list and every word of the world's own
    names (its villagers' and its places'), each folded."""
    return frozenset({folded(w) for w in listed}
                     | {folded(w) for n in names for w in words_of(_text("a name", n))})


def real(word: str, known: frozenset[str]) -> bool:
    """Whether a word is real: folded, it is in `known` (`lexicon`); of one letter, only the
    words of ONE_LETTER are."""
    w = folded(word)
    return w in ONE_LETTER if sum(ch.isalpha() for ch in w) == 1 else w in known


def _piece(word: str, known: frozenset[str]) -> bool:
    w = folded(word)
    return w in SHORT_WORDS or (len(w) >= RUN_PIECE and w in known)


def run_together(word: str, known: frozenset[str]) -> tuple[str, ...] | None:
    """The words `word` runs together, or None: a word that is not real and splits whole into
    two to RUN_PIECES real words, each of at least RUN_PIECE letters or one of SHORT_WORDS
    ("giftofMose": gift, of, Mose; "onThursday": on, Thursday). Of its splits, the fewest
    words, then the longest first word. A garble that only opens with words ("youdrewoned")
    is a word not real, and not words run together."""
    if real(word, known):
        return None
    w = unicodedata.normalize("NFKC", word)
    n = len(w)
    fewest: list[float] = [math.inf] * n + [0]     # the fewest pieces that make w[i:]
    for i in range(n - 2, -1, -1):
        for j in range(i + 2, n + 1):
            if fewest[j] + 1 < fewest[i] and _piece(w[i:j], known):
                fewest[i] = fewest[j] + 1
    if not 2 <= fewest[0] <= RUN_PIECES:
        return None
    out, i = [], 0
    while i < n:
        j = next(j for j in range(n, i + 1, -1)
                 if fewest[j] == fewest[i] - 1 and _piece(w[i:j], known))
        out.append(w[i:j])
        i = j
    return tuple(out)


def sentence(text: str, known: frozenset[str]) -> bool:
    """Whether `text` is a complete sentence, as this measure takes one: its first character
    (opening quotes aside) a capital letter, its last (closing quotes and brackets aside) one
    of SENTENCE_ENDS, at least SENTENCE_WORDS words, and every word real."""
    head = _text("text", text).strip().lstrip(_OPENERS)
    tail = head.rstrip().rstrip(_CLOSERS)
    got = words_of(text)
    return (bool(tail) and head[0].isupper() and tail[-1] in SENTENCE_ENDS
            and len(got) >= SENTENCE_WORDS and all(real(w, known) for w in got))


def quoted(line: str) -> tuple[str, ...]:
    """The words a line quotes, each between double quotes ('heard Orm say: "..."')."""
    return tuple(a or b for a, b in _QUOTED.findall(_text("line", line)))


def copies(text: str, lines: Iterable[str]) -> bool:
    """Whether `text` copies one of `lines` (the lines it cites): as `plain` gives them, it is
    the line, or holds it whole at word bounds, or is within COPY_EDIT edits of it
    (`edit_share`). What a line quotes is a line of its own, so saying again what was heard
    copies the line that heard it."""
    said_ = f" {plain(_text('text', text))} "
    for line in lines:
        for one in (_text("line", line), *quoted(line)):
            p = plain(one)
            if p and (f" {p} " in said_ or edit_share(text, one) <= COPY_EDIT):
                return True
    return False


def villagers_named(text: str, names: Mapping[int, str]) -> frozenset[int]:
    """The villagers `text` names: each whose name's words stand in it in a row, as whole words,
    folded (in any case, a possessive 's aside)."""
    got = [folded(w) for w in words_of(text)]
    out = set()
    for v, name in names.items():
        want = [folded(w) for w in words_of(_text("a name", name))]
        k = len(want)
        if k and any(got[i:i + k] == want for i in range(len(got) - k + 1)):
            out.add(v)
    return frozenset(out)


def grounded_names(text: str, speaker: int, listener: int | None, cited: Iterable[str],
                   names: Mapping[int, str]) -> tuple[int, int]:
    """How many villagers `text` names, and how many of them it may name from what it stands
    on: the speaker, the listener (None: nobody, as for a thought or an interview answer), or
    one a cited line names."""
    named = villagers_named(text, names)
    seen = {speaker, listener}.union(*(villagers_named(c, names) for c in cited))
    return len(named), len(named & seen)


def distinct(answers: Iterable[str]) -> tuple[int, int]:
    """How many of `answers` differ from one another, as `plain` gives them, and how many
    there are: one villager's interview answers, of which a mind that answers the question
    gives as many as it is asked."""
    got = [plain(_text("answer", a)) for a in answers]
    return len(set(got)), len(got)


@dataclass(frozen=True, slots=True)
class Reading:
    """One text said, as a reader reads it: what it is (of READS), who said it, its words and
    which are real, whether it is a complete sentence and whether it copies a cited line, the
    words it runs together, and the villagers it names and of them those grounded."""

    what: str
    villager: int
    text: str
    words: int
    real: int
    sentence: bool
    copy: bool
    unreal: tuple[str, ...]
    run_together: tuple[str, ...]
    named: int
    grounded: int


def read(what: str, villager: int, text: str, cited: Sequence[str], known: frozenset[str],
         names: Mapping[int, str], listener: int | None = None) -> Reading:
    """`text`, said by `villager` (to `listener`) citing the lines `cited`, as a reader reads
    it with the words `known` (`lexicon`) and the villagers' `names`."""
    if what not in READS:
        raise LawError(f"Expected what a reader reads, one of {list(READS)}, but got what={what!r}")
    got = words_of(text)
    unreal = tuple(w for w in got if not real(w, known))
    named, grounded = grounded_names(text, villager, listener, cited, names)
    return Reading(what=what, villager=villager, text=text, words=len(got),
                   real=len(got) - len(unreal), sentence=sentence(text, known),
                   copy=copies(text, cited), unreal=unreal,
                   run_together=tuple(w for w in unreal if run_together(w, known) is not None),
                   named=named, grounded=grounded)


def _most(words: Iterable[str]) -> tuple[tuple[str, int], ...]:
    counts = Counter(words)
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass(frozen=True, slots=True)
class ReadTally:
    """The sums of some readings: texts, words and real words, complete sentences, copies of a
    cited line, words run together, villagers named and grounded; the words not real and those
    run together with how often each (the most often first). A share of nothing is None."""

    texts: int = 0
    words: int = 0
    real: int = 0
    sentences: int = 0
    copies: int = 0
    run_together: int = 0
    named: int = 0
    grounded: int = 0
    unreal_words: tuple[tuple[str, int], ...] = ()
    run_together_words: tuple[tuple[str, int], ...] = ()

    real_share = ratio("real", "words")
    sentence_share = ratio("sentences", "texts")
    copy_share = ratio("copies", "texts")
    grounded_share = ratio("grounded", "named")


def read_tally(readings: Iterable[Reading]) -> ReadTally:
    """The sums of `readings`."""
    rs = tuple(readings)
    return ReadTally(
        texts=len(rs), words=sum(r.words for r in rs), real=sum(r.real for r in rs),
        sentences=sum(r.sentence for r in rs), copies=sum(r.copy for r in rs),
        run_together=sum(len(r.run_together) for r in rs), named=sum(r.named for r in rs),
        grounded=sum(r.grounded for r in rs),
        unreal_words=_most(folded(w) for r in rs for w in r.unreal),
        run_together_words=_most(w for r in rs for w in r.run_together))
