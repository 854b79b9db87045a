"""The seam's rule that an answer says only what its citations say: whom it names, and who
gave to or took from whom.

This module owns `named` (the villagers a text names), `claims` (who it says gave to or took
from whom, or said words to whom), `copied_you` (a cited line's "you" an utterance says of
its listener), `quoted_i` (a quoted "I" said as the speaker's own), `judge_grounded` (the first
of the four checks a thought, an utterance or an interview answer fails, a `StatementRefusal`
of check `ungrounded`) and the wording of each refusal. The model proposes, this code checks:
the round that judges an answer hands in its speaker, its listener (talk only), the texts of
the rows it cites (a cited thought's text is its line) and the name of every villager of its
world. It must not call a model, read the
log, or know where a line came from; it is no parser of English, only the few shapes below.

**Words.** A text is read, after NFKC, as words: runs of letters, an apostrophe or a hyphen
inside one kept (`Ander's`, `didn't`). Digits and other marks are no words. A word ending in
`'s` is that word's possessive. A sentence ends at `.` (not before a digit: `1.0 grams`), `!`,
`?`, `;`, `:`, a line's end and a double quotation mark, which also opens or closes a quote.

**Who is named.** A villager is named where the words of its name stand as words, in the case
the world writes them, the last one possessive or not: `Ander` and `Ander's` name Ander,
`ander`, `Anders` and `giftofAnder` do not. A pronoun names nobody.

**Who a pronoun is.** Outside quotation marks, "I", "me", "my", "mine" and "myself" are the
speaker; "you", "your", "yours" and "yourself" are the listener in an utterance, and the
speaker elsewhere: a reflection's and an interview's prompts speak to the villager as "you",
and a model answers in that voice ("You handed Ander bread"). A cited line is a row of the
speaker's own (the cite check holds to it), so in a cited line both are the speaker. Inside
quotation marks a pronoun is nobody, for who speaks there is someone quoted (`heard Halla
say: "I gave you bread"`); "he", "she", "we" and "they" are nobody anywhere. A villager named
or a pronoun that is someone is a *party*.

**A claim** is a verb of giving or taking (`VERBS`) with two parties:

- its subject is the party just before it in its sentence, with nothing between but helping
  words (`HELPING`, and words ending in "ly"); where nothing but helping words stands before
  the verb in its sentence, outside quotation marks, the subject is the speaker, as in the
  speaker's own rows ("handed Ander 2 parcels", "took 3 parcels out of Ander's hands"). A
  possessive is never a subject, and any other word (not, never, was, he, friend) leaves the
  verb with none: "Ander was given bread", "Halla did not give" and "Mose said he gave" are
  not judged. A verb after "and" (helping words between) shares the subject its sentence
  opens with, where it opens with a party: "I saw Rasmus and took his bread" says I took.
- its object is the first party after it in its sentence, before any other verb of giving or
  taking, that stands where the verb takes one: for giving, right after the verb ("handed
  Ander", not for pass or share) or right after "to" ("gave bread to Ander"; share also
  "with"), never a possessive; for taking, a possessive ("out of Ander's hands", "took
  Ander's bread") or right after "from", "off" or "of" (rob also right after the verb); for
  receiving (receive, get, accept), right after "from".

A claim is "X gave to Y" or "X took from Y"; a verb of receiving is a claim of giving read
the other way ("I received bread from Ander" and "got bread from Ander" say Ander gave to me);
a verb whose subject or object is not a party makes none, and so is not judged.

**A claim of saying** is words passed on: "X said to Y" where the text reports what was said.
"heard X say" (or tell, talk, speak, in any tense) says X said it to the subject of "heard"
(`heard Halla say: "..."`, a listener's own row: Halla said it to me). A past verb of saying
(`SAYING`: "said", "told") with a subject found as above says its subject said it, to the party
right after "to" ("said to Ander") or, for "told", right after the verb ("told me"), and where
there is none, to somebody the text does not name: "Mose said he gave bread" says Mose said
something. Only the past is read: "I say" is the saying itself, not a report of it. A text's
claim of saying to nobody named stands on any cited line of the same villager saying anything,
and any claim of saying on a cited line that has that villager saying words to nobody named
(`heard Orm say: "I heard Ander say ..."`: the quoted "I" is nobody, so Ander said it to
somebody).

**The checks**, in order, the first failed refusing the answer whole:

1. every villager the text names is its speaker, its listener or named in a cited line;
2. every claim of the text is a claim of at least one cited line (the same verb, the same two
   parties in the same order), each line read by the rules above with the speaker as its "I":
   a villager who passes on words says who said them only as a cited line of talk does
   (`said to Ander: "..."`, `heard Ander say: "..."`);
3. in an utterance, no "you" or "your" of a cited line is said again with the words after it
   (`COPIED` words, or to the line's end where it has fewer, at least three): a cited line's
   "you" is the speaker and an utterance's the listener, so "I remember that you came to live
   in the south wood", citing the speaker's own "you came to live in the south wood", says the
   listener did what the speaker did. What a cited line quotes is left out: its "you" is
   whoever was spoken to there;
4. no "I", "me" or "my" of what a cited line quotes another villager saying is said outside
   quotation marks with the words after it (as in the third check): there "I" was the one
   quoted, here it is the speaker, so "I heard Yusuf say I came to live in the north field",
   citing `heard Yusuf say: "I came to live in the north field"`, says the speaker came.
   Words passed on say "he" or "she", or quote.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kernel.laws._errors import LawError
from kernel.laws.statement import StatementRefusal

UNGROUNDED = "ungrounded"
GAVE, TOOK, SAID = "gave", "took", "said"


@dataclass(frozen=True, slots=True)
class Verb:
    """How a verb of giving or taking finds its object: right after it (`direct`), right after
    one of `after`, or as a possessive (`possessive`, taking only); a verb of receiving
    (`received`) says its object gave to its subject."""

    claim: str
    direct: bool
    after: frozenset[str]
    possessive: bool = False
    received: bool = False
    close: bool = False         # the word of `after` stands right after the verb ("said to")


def _forms(words: str, verb: Verb) -> dict[str, Verb]:
    return dict.fromkeys(words.split(), verb)


_GIVE = Verb(GAVE, True, frozenset({"to"}))
_TAKE = Verb(TOOK, False, frozenset({"from", "off", "of"}), possessive=True)
VERBS: dict[str, Verb] = {
    **_forms("give gives gave giving given handed handing offer offers offered offering "
             "lend lends lent lending gifted", _GIVE),
    **_forms("pass passes passed passing", Verb(GAVE, False, frozenset({"to"}))),
    **_forms("share shares shared sharing", Verb(GAVE, False, frozenset({"to", "with"}))),
    **_forms("take takes took taking taken steal steals stole stealing stolen grab grabs "
             "grabbed grabbing snatch snatches snatched seize seizes seized", _TAKE),
    **_forms("rob robs robbed robbing", Verb(TOOK, True, frozenset({"of"}), possessive=True)),
    **_forms("receive receives received receiving get gets got getting gotten accept accepts "
             "accepted accepting", Verb(GAVE, False, frozenset({"from"}), received=True)),
}
"""The verbs of giving, taking and receiving, by the word as written (casefolded). "hand" and "hands"
are left out: every take row holds the noun ("out of Ander's hands")."""

SAYING: dict[str, Verb] = {
    "said": Verb(SAID, False, frozenset({"to"}), close=True),
    "told": Verb(SAID, True, frozenset({"to"}), close=True),
}
"""The verbs of saying, past tense only (a villager's "I say" is the saying itself, not a
report of it): "said" finds its listener right after "to", "told" right after it."""

HEARD = frozenset("heard hear hears hearing".split())
SAY = frozenset("say says saying said tell tells telling told talk talks talking speak "
                "speaks spoke".split())
"""`heard X say`: X said it to whoever heard (the subject of `HEARD`), in any tense of `SAY`."""

HELPING = frozenset("had has have did does do will would could can may might must should shall "
                    "then also just once again even first later today yesterday".split())
"""The words that may stand between a subject and its verb."""

_ME = {"i": False, "me": False, "my": True, "mine": True, "myself": False}
_YOU = {"you": False, "your": True, "yours": True, "yourself": False}
_CONTRACTED = ("m", "ve", "d", "ll", "re")      # I'm, I've, I'd, I'll, you're: still the pronoun
_TOKEN = re.compile(r"(?P<word>[^\W\d_]+(?:['’\-][^\W\d_]+)*)|(?P<quote>[\"“”])"
                    r"|(?P<stop>[!?;:\n]|\.(?!\d))")


@dataclass(frozen=True, slots=True)
class Claim:
    """That `by` gave to `other` (`verb` "gave") or took from `other` (`verb` "took")."""

    verb: str
    by: str
    other: str | None         # None: said to somebody the text does not name (said only)

    def __str__(self) -> str:
        if self.other is None:
            return f"{self.by} said something"
        return f"{self.by} {self.verb} {'from' if self.verb == TOOK else 'to'} {self.other}"

    def stands_on(self, cited: set[Claim]) -> bool:
        """Whether a claim of `cited` says this one: the same, or for a claim of saying where
        one of the two does not say to whom (a quoted "I heard Ander say": who heard is not
        known), any saying of the same villager."""
        if self in cited:
            return True
        return self.verb == SAID and any(
            c.verb == SAID and c.by == self.by and None in (c.other, self.other) for c in cited)


@dataclass(frozen=True, slots=True)
class _Item:
    word: str               # as written (a name's words joined by a space)
    party: str | None       # the villager it is, if any
    possessive: bool
    sentence: int
    quoted: bool


def _text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise LawError(f"Expected text but got {name}={value!r:.80}")
    return value


def _everyone(names: Iterable[str], *more: str | None) -> list[str]:
    """`names` and the names in `more` (None left out), each checked to be a text."""
    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise LawError(f"Expected the villagers' names as a collection of texts but got "
                       f"names={names!r:.80}")
    return [_text("a villager's name", n) for n in (*names, *more) if n is not None]


def _names(names: Iterable[str]) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """Each villager's name as the tuple of its words, by its first word, the longest first."""
    out: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for n in sorted(set(names)):
        ws = tuple(w for w, _, _ in _tokens(n))
        if ws:
            out.setdefault(ws[0], []).append((ws, n))
    for same_first in out.values():
        same_first.sort(key=lambda p: -len(p[0]))   # "Ann Lee" before "Ann"
    return out


def _tokens(text: str) -> list[tuple[str, int, bool]]:
    """(word, sentence, quoted) for each word of `text`."""
    out, sentence, quoted = [], 0, False
    for m in _TOKEN.finditer(unicodedata.normalize("NFKC", text)):
        if m.group("word"):
            out.append((m.group(), sentence, quoted))
            continue
        sentence += 1
        if m.group("quote"):
            quoted = m.group() == "“" or (m.group() == '"' and not quoted)
    return out


def _possessive(word: str) -> tuple[str, bool]:
    for end in ("'s", "’s"):
        if word.endswith(end) and len(word) > 2:
            return word[:-2], True
    return word, False


def _pronoun(word: str, me: str | None, you: str | None) -> tuple[str | None, bool]:
    """The party a pronoun outside quotation marks is (None: none), and whether possessive."""
    base, _, rest = word.replace("’", "'").partition("'")
    low = (base if rest.lower() in _CONTRACTED else word).lower()
    if low in _ME and (low != "i" or base == "I"):
        return me, _ME[low]
    if low in _YOU:
        return you, _YOU[low]
    return None, False


def _items(text: str, names: dict[str, list[tuple[tuple[str, ...], str]]], me: str | None,
           you: str | None) -> list[_Item]:
    """The text's words, a name's words as one item, each party found."""
    toks = _tokens(text)
    out: list[_Item] = []
    i = 0
    while i < len(toks):
        word, sentence, quoted = toks[i]
        for ws, name in names.get(_possessive(word)[0], ()):
            got = toks[i:i + len(ws)]
            last, poss = _possessive(got[-1][0])
            if (len(got) == len(ws) and all(g[1] == sentence for g in got)
                    and (*(g[0] for g in got[:-1]), last) == ws):
                out.append(_Item(" ".join(ws), name, poss, sentence, quoted))
                i += len(ws)
                break
        else:
            party, poss = (None, False) if quoted else _pronoun(word, me, you)
            out.append(_Item(word, party, poss, sentence, quoted))
            i += 1
    return out


def named(text: str, names: Iterable[str]) -> tuple[str, ...]:
    """The villagers of `names` that `text` names, in the order each is first named."""
    found = [it.party for it in _items(_text("text", text), _names(_everyone(names)), None, None)
             if it.party is not None]
    return tuple(dict.fromkeys(found))


def _subject(items: Sequence[_Item], i: int, speaker: str) -> str | None:
    v = items[i]
    for k in range(i - 1, -1, -1):
        it = items[k]
        if it.sentence != v.sentence:
            break
        if it.party is not None:
            return None if it.possessive else it.party
        low = it.word.lower()
        if low == "and":
            return _opener(items, k)
        if low not in HELPING and not low.endswith("ly"):
            return None
    return None if v.quoted else speaker


def _opener(items: Sequence[_Item], k: int) -> str | None:
    """The subject a verb after "and" shares: the party its sentence opens with ("I saw Rasmus
    and took his bread": I took), or none where the sentence opens otherwise."""
    first = k
    while first > 0 and items[first - 1].sentence == items[k].sentence:
        first -= 1
    it = items[first]
    return it.party if it.party is not None and not it.possessive else None


def _object(items: Sequence[_Item], i: int, verb: Verb) -> str | None:
    v = items[i]
    for j in range(i + 1, len(items)):
        it = items[j]
        if it.sentence != v.sentence or (it.party is None and it.word.lower() in VERBS):
            return None
        if it.party is None:
            continue
        if it.possessive:
            if verb.possessive:
                return it.party
            continue
        if (verb.direct and j == i + 1) or (j > i + 1 and items[j - 1].party is None
                                            and items[j - 1].word.lower() in verb.after
                                            and (not verb.close or j == i + 2)):
            return it.party
    return None


def _saying(items: Sequence[_Item], i: int, speaker: str) -> Claim | None:
    """The claim of saying at item `i`: `heard X say` (X said to the one who heard), or a past
    verb of saying with its subject (`SAYING`); None where it is neither or has no subject."""
    it = items[i]
    low = it.word.lower()
    if (low in SAY and i >= 2 and items[i - 1].party is not None and not items[i - 1].possessive
            and items[i - 2].party is None and items[i - 2].word.lower() in HEARD
            and items[i - 2].sentence == it.sentence == items[i - 1].sentence):
        return Claim(SAID, items[i - 1].party, _subject(items, i - 2, speaker))
    verb = SAYING.get(low)
    by = None if verb is None else _subject(items, i, speaker)
    return None if by is None else Claim(SAID, by, _object(items, i, verb))


def claims(text: str, names: Iterable[str], *, speaker: str,
           listener: str | None = None, cited: bool = False) -> tuple[Claim, ...]:
    """Who `text` says gave to or took from whom, in the order said (the rules above).

    `speaker` is whose words they are, `listener` whom they are said to (an utterance); a
    `cited` line is a row of the speaker's, whose "you" is the speaker too."""
    speaker = _text("speaker", speaker)
    you = speaker if cited or listener is None else _text("listener", listener)
    items = _items(_text("text", text), _names(_everyone(names, speaker, you)), speaker, you)
    out = []
    for i, it in enumerate(items):
        verb = VERBS.get(it.word.lower()) if it.party is None else None
        if verb is None:
            said = _saying(items, i, speaker) if it.party is None else None
            out += () if said is None else (said,)
            continue
        by, other = _subject(items, i, speaker), _object(items, i, verb)
        if by is not None and other is not None:
            out.append(Claim(verb.claim, other, by) if verb.received
                       else Claim(verb.claim, by, other))
    return tuple(out)


COPIED = 5
"""How many words from a cited line's "you" on (the pronoun first) an utterance says again, in
order, to say the line's "you" of its listener; a line with fewer after it needs them all, and
three at least."""


def _unquoted(text: str) -> list[str]:
    """The words of `text` outside quotation marks, casefolded."""
    return [w.casefold() for w, _, quoted in _tokens(text) if not quoted]


_AS_YOU = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself"}


def copied_you(text: str, cited: Iterable[str]) -> str | None:
    """The words of a cited line from its "you" or "your" on that `text` says again (the
    third check), or None where it says none. A line shown in the speaker's own words
    (`laws.first_person`: "I came to live in the south wood") is read with its "I", "me" and
    "my" as the "you" and "your" they were."""
    said = " " + " ".join(_unquoted(text)) + " "
    for line in cited:
        words = _unquoted(line)
        for k, w in enumerate(words):
            run = [_AS_YOU.get(w, w), *words[k + 1:k + COPIED]]
            if ((w in _YOU or w in _AS_YOU) and len(run) >= 3
                    and f" {' '.join(run)} " in said):
                return " ".join(run)
    return None


def _quoted(text: str) -> list[list[str]]:
    """The words of each quoted sentence of `text`, casefolded."""
    runs: dict[int, list[str]] = {}
    for w, sentence, quoted in _tokens(text):
        if quoted:
            runs.setdefault(sentence, []).append(w.casefold())
    return list(runs.values())


def quoted_i(text: str, cited: Iterable[str], *, speaker: str,
             names: Iterable[str]) -> tuple[str, str] | None:
    """Who a cited line quotes and the words of the quote from its "I", "me" or "my" on that
    `text` says outside quotation marks (the fourth check), or None where it says none."""
    said = " " + " ".join(_unquoted(text)) + " "
    for line in cited:
        by = [c.by for c in claims(line, names, speaker=speaker, cited=True)
              if c.verb == SAID and c.by != speaker]
        for run in _quoted(line) if by else ():
            for k, w in enumerate(run):
                words = run[k:k + COPIED]
                if w in _ME and len(words) >= 3 and f" {' '.join(words)} " in said:
                    return by[0], " ".join(words)
    return None


def misquoted(words: str, quoted: str) -> str:
    """The refusal's reason for a text that says `quoted`'s `words` in its own voice."""
    words = " ".join("I" if w == "i" else w for w in words.split())
    return f'says "{words}" as its own, and in its cited line "I" is {quoted}'


def miscopied(words: str, speaker: str, listener: str) -> str:
    """The refusal's reason for an utterance that says a cited line's `words`, whose "you" was
    `speaker`, to `listener`."""
    return (f'says "{words}" to {listener}, and in its cited line "you" is {speaker}, '
            f"not {listener}")


def unnamed(name: str, listener: str | None = None) -> str:
    """The refusal's reason for a text naming `name`, whom nothing it stands on names."""
    who = "the speaker, nor the listener," if listener is not None else "the speaker"
    return f"{name} is named, and is not {who} nor named in a cited line"


def unclaimed(claim: Claim) -> str:
    """The refusal's reason for a text saying `claim`, which no cited line says."""
    if claim.other is None:
        return f"says {claim}, and no cited line has {claim.by} saying anything"
    doing = {GAVE: "giving to", TOOK: "taking from", SAID: "saying anything to"}[claim.verb]
    return f"says {claim}, and no cited line has {claim.by} {doing} {claim.other}"


def judge_grounded(text: str, *, speaker: str, cited: Iterable[str], names: Iterable[str],
                   listener: str | None = None,
                   shown: Iterable[str] | None = None) -> StatementRefusal | None:
    """The first check of the four (the rules above) that `text` fails, or None when it stands.

    `speaker` says it, to `listener` where it is an utterance; `cited` are the texts of the rows
    it cites; `names` the name of every villager of its world (the speaker's and listener's
    need not be among them); `shown` the cited lines as its prompt showed them, which the
    third check reads (a world in words shows "you came to live ..." of a row "came to live
    ..."), `cited` where not given."""
    everyone = _everyone(names, _text("speaker", speaker), listener)
    if isinstance(cited, str | bytes) or not isinstance(cited, Iterable):
        raise LawError(f"Expected the cited lines as a collection of texts but got "
                       f"cited={cited!r:.80}")
    lines = [_text("a cited line", c) for c in cited]
    known = {speaker, *(() if listener is None else (listener,))}
    known = known.union(*(named(c, everyone) for c in lines))
    for n in named(text, everyone):
        if n not in known:
            return StatementRefusal(UNGROUNDED, unnamed(n, listener))
    said = {c for line in lines for c in claims(line, everyone, speaker=speaker, cited=True)}
    for c in claims(text, everyone, speaker=speaker, listener=listener):
        if not c.stands_on(said):
            return StatementRefusal(UNGROUNDED, unclaimed(c))
    copied = None if listener is None else copied_you(
        text, lines if shown is None else [_text("a shown line", c) for c in shown])
    if copied is not None:
        return StatementRefusal(UNGROUNDED, miscopied(copied, speaker, listener))
    quoted = quoted_i(text, lines, speaker=speaker, names=everyone)
    if quoted is not None:
        return StatementRefusal(UNGROUNDED, misquoted(quoted[1], quoted[0]))
    return None
