"""Properties of the grounded seam (kernel.laws.grounded) over drawn villagers, rows and words:
an answer may name its speaker, its listener and whom its cited lines name, and nobody else;
a claim of who gave to or took from whom (a gift said by its receiver too) stands where a cited
line says it, and its reverse falls where none does; a claim it cannot tell the parties of is not judged; words passed on stand where a cited line
of talk has their speaker saying them."""

from __future__ import annotations

import re

from hypothesis import assume, given
from hypothesis import strategies as st

from kernel import laws
from kernel.laws.grounded import Claim, unclaimed, unnamed

VILLAGERS = ["Halla", "Ander", "Mose", "Tove", "Corin", "Brisca", "Odhran", "Ysolde", "Ann",
             "Ann Lee"]
# words that are no name, no pronoun and no verb of giving or taking, and marks between them
PLAIN = st.sampled_from(["the", "bread", "field", "near", "well", "morning", "ate", "walked",
                         "saw", "parcels", "mill", "east", "meadow", "3", "1.0", ",", ".", "!",
                         "was", "not", "he", "she", "they", "friend", "hands", "hand"])
filler = st.lists(PLAIN, max_size=6).map(" ".join)
# free text with no capital letter, so it names nobody (it may say anything else)
lower = st.text(alphabet="abcdefghijklmnopqrstuvwxyz .,;:!?'\"\n0123456789", max_size=40)
cast = st.lists(st.sampled_from(VILLAGERS), min_size=3, max_size=len(VILLAGERS), unique=True)


def _gave_row(speaker: str, a: str, b: str, place: str) -> str:
    """A gift row as the speaker holds it: its own (a subjectless "handed"), or a witness's."""
    return (f"handed {b} 2 parcels{place}, 1.0 grams" if a == speaker
            else f"{a} handed {b} 2 parcels{place}, 1.0 grams")


def _took_row(speaker: str, a: str, b: str, place: str) -> str:
    return (f"took 3 parcels out of {b}'s hands{place}, 1.5 grams" if a == speaker
            else f"{a} took 3 parcels out of {b}'s hands{place}, 1.5 grams")


PLACES = st.sampled_from(["", " in the mill field", " by the well"])


def _subject(who: str, speaker: str, listener: str | None, pronoun: bool) -> str:
    if pronoun and who == speaker:
        return "I"
    if pronoun and who == listener:
        return "You"
    return who


def _object(who: str, speaker: str, listener: str | None, pronoun: bool) -> tuple[str, str]:
    """The object as said, and its possessive."""
    if pronoun and who == speaker:
        return "me", "my"
    if pronoun and who == listener:
        return "you", "your"
    return who, f"{who}'s"


GAVE_SAYINGS = ["{a} gave {b} some bread", "{a} handed {b} two parcels", "{a} gave the bread to {b}",
                "{a} shared my bread with {b}", "{a} had kindly passed a parcel to {b}",
                "{a} then offered {b} bread"]
# a gift said by its receiver: {b} (who was given to) is the subject, {a} (who gave) the object
RECEIVED_SAYINGS = ["{b} received bread from {a}", "{b} got two parcels from {a}",
                    "{b} gladly accepted a parcel from {a}", "{b} had received parcels from {a}"]
TOOK_SAYINGS = ["{a} took bread from {b}", "{a} stole {bs} bread", "{a} grabbed parcels off {b}",
                "{a} took 3 parcels out of {bs} hands", "{a} robbed {b} of bread"]


@st.composite
def claimed(draw):
    """A cast, a speaker, maybe a listener, a cited row saying who gave or took from whom, and
    a saying of the same claim in other words, pronouns where a party is the speaker or the
    listener."""
    names = draw(cast)
    speaker, other = names[0], names[1]
    listener = draw(st.sampled_from([None, other]))
    a, b = draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
    verb = draw(st.sampled_from([laws.grounded.GAVE, laws.grounded.TOOK]))
    row = (_gave_row if verb == laws.grounded.GAVE else _took_row)(speaker, a, b, draw(PLACES))
    pronoun = draw(st.booleans())
    saying = draw(st.sampled_from(GAVE_SAYINGS + RECEIVED_SAYINGS if verb == laws.grounded.GAVE
                                  else TOOK_SAYINGS))
    if saying in RECEIVED_SAYINGS:
        text = saying.format(b=_subject(b, speaker, listener, pronoun),
                             a=_object(a, speaker, listener, pronoun)[0])
    else:
        said, possessive = _object(b, speaker, listener, pronoun)
        text = saying.format(a=_subject(a, speaker, listener, pronoun), b=said, bs=possessive)
    return names, speaker, listener, Claim(verb, a, b), row, text


@given(cast, st.data())
def test_a_text_naming_only_its_speaker_its_listener_and_names_of_its_cited_lines_is_never_refused_for_naming(
        names, data):
    speaker = names[0]
    listener = data.draw(st.sampled_from([None, names[1]]))
    cited_names = data.draw(st.lists(st.sampled_from(names[2:]), max_size=3))
    cited = [f"{n} ate bread {f}" for n, f in zip(cited_names, data.draw(
        st.lists(lower, min_size=len(cited_names), max_size=len(cited_names))), strict=True)]
    allowed = [speaker, *cited_names] + ([listener] if listener else [])
    said = data.draw(st.lists(st.tuples(st.sampled_from(allowed), lower), max_size=5))
    text = " ".join(f"{n} {w}" for n, w in said)
    got = laws.judge_grounded(text, speaker=speaker, listener=listener, cited=cited, names=names)
    assert got is None or "is named" not in got.reason


@given(cast, st.data())
def test_naming_a_villager_that_is_not_the_speaker_the_listener_nor_named_in_a_cited_line_always_refuses(
        names, data):
    speaker, stranger = names[0], names[-1]
    listener = data.draw(st.sampled_from([None, names[1]]))
    others = [n for n in names[:-1] if n != listener]
    cited = [f"{n} walked to the well" for n in data.draw(st.lists(st.sampled_from(others)))]
    before, after = data.draw(filler), data.draw(lower)
    text = f"{before} {stranger} {after}"
    got = laws.judge_grounded(text, speaker=speaker, listener=listener, cited=cited, names=names)
    assert got is not None and got.check == "ungrounded"
    assert got.reason == unnamed(stranger, listener)


@given(claimed(), st.lists(st.sampled_from(["ate bread near the well", "walked to the mill"])))
def test_a_claim_that_agrees_in_direction_with_a_cited_line_is_never_refused(case, more):
    names, speaker, listener, claim, row, text = case
    got = laws.judge_grounded(text, speaker=speaker, listener=listener, cited=[row, *more],
                              names=names)
    assert got is None, (text, row, got)


@given(claimed())
def test_the_reversed_claim_is_refused_where_no_cited_line_has_that_direction(case):
    names, speaker, listener, claim, row, text = case
    saying = (GAVE_SAYINGS[0] if claim.verb == laws.grounded.GAVE else TOOK_SAYINGS[0])
    reversed_text = saying.format(a=claim.other, b=claim.by)
    got = laws.judge_grounded(reversed_text, speaker=speaker, listener=listener, cited=[row],
                              names=names)
    assert got is not None and got.check == "ungrounded"
    assert got.reason == unclaimed(Claim(claim.verb, claim.other, claim.by))


@given(claimed())
def test_the_claims_of_a_text_are_the_parties_the_law_finds_in_a_saying_of_them(case):
    names, speaker, listener, claim, row, text = case
    assert laws.claims(text, names, speaker=speaker, listener=listener) == (claim,)
    assert laws.claims(row, names, speaker=speaker, cited=True) == (claim,)


@given(cast, st.lists(st.sampled_from(["gave", "handed", "took", "stole", "the", "miller",
                                       "baker", "bread", "to", "from", "he", "she", "we", "a",
                                       "stranger", "was", "not", "never"]), max_size=10),
       st.data())
def test_a_claim_whose_parties_are_not_villagers_is_not_judged(names, words, data):
    text = "the " + " ".join(words)   # never opening with a verb: no sentence is the speaker's
    cited = data.draw(st.lists(st.sampled_from(["ate bread", "walked to the mill"])))
    assert laws.claims(text, names, speaker=names[0]) == ()
    assert laws.judge_grounded(text, speaker=names[0], cited=cited, names=names) is None


@given(claimed(), st.randoms(use_true_random=False), st.lists(lower, max_size=3))
def test_the_order_of_the_cited_lines_does_not_change_the_verdict(case, rnd, more):
    names, speaker, listener, claim, row, text = case
    lines = [row, *more]
    shuffled = list(lines)
    rnd.shuffle(shuffled)
    for t in (text, f"{names[-1]} {text}"):
        assert (laws.judge_grounded(t, speaker=speaker, listener=listener, cited=lines,
                                    names=names)
                == laws.judge_grounded(t, speaker=speaker, listener=listener, cited=shuffled,
                                       names=names))


@given(claimed())
def test_a_pronoun_is_judged_as_the_villager_it_stands_for(case):
    names, speaker, listener, claim, row, text = case
    words = {"I": speaker, "me": speaker, "my": f"{speaker}'s"}
    if listener is not None:
        words.update({"You": listener, "you": listener, "your": f"{listener}'s"})
    by_name = re.sub(r"\b(I|me|my|You|you|your)\b", lambda m: words.get(m[1], m[1]), text)
    assert (laws.claims(by_name, names, speaker=speaker, listener=listener)
            == laws.claims(text, names, speaker=speaker, listener=listener))


@given(cast, lower)
def test_a_name_or_its_possessive_names_its_villager_and_a_name_run_into_another_word_names_nobody(
        names, rest):
    n = names[0]
    assume(" " not in n)
    assert n in laws.named(f"{rest} {n}'s {rest}", names)
    assert n in laws.named(f"{n}. {rest}", names)
    assert laws.named(f"x{n} {n}x giftof{n}H {n.lower()}", names) == ()


@given(cast, st.sampled_from(["I gave you bread", "took bread from me", "handed my parcels to you"]))
def test_inside_quotation_marks_a_pronoun_and_an_opening_verb_are_nobody(names, quoted):
    speaker, other = names[0], names[1]
    line = f'heard {other} say: "{quoted}"'
    assert laws.claims(line, names, speaker=speaker, cited=True) == (
        Claim(laws.grounded.SAID, other, speaker),)     # who said it to whom, and nothing inside
    assert laws.claims(f'"{quoted}"', names, speaker=speaker, listener=other) == ()


@given(claimed())
def test_a_gift_said_by_its_receiver_the_wrong_way_round_is_refused_as_the_reversed_gift(case):
    names, speaker, listener, claim, row, text = case
    assume(claim.verb == laws.grounded.GAVE)
    backwards = RECEIVED_SAYINGS[0].format(b=claim.by, a=claim.other)   # the giver received
    got = laws.judge_grounded(backwards, speaker=speaker, listener=listener, cited=[row],
                              names=names)
    assert got is not None and got.check == "ungrounded"
    assert got.reason == unclaimed(Claim(laws.grounded.GAVE, claim.other, claim.by))


HEARD_SAYINGS = ["I heard {x} say that {f}", "{x} told me {f}", "{x} said {f}",
                 "I heard {x} tell of {f}", "{x} had said to me {f}"]
OWN_SAYINGS = ["I said to {y} {f}", "I told {y} {f}", "I had told {y} {f}"]


@given(cast, st.data())
def test_words_passed_on_stand_where_a_cited_line_of_talk_has_their_speaker_say_them(names, data):
    speaker, x = names[0], names[1]
    listener = data.draw(st.sampled_from([None, names[2]]))
    f = data.draw(filler)
    text = data.draw(st.sampled_from(HEARD_SAYINGS)).format(x=x, f=f)
    row = f'heard {x} say: "{data.draw(lower)}"'
    assert laws.judge_grounded(text, speaker=speaker, listener=listener, cited=[row],
                               names=names) is None
    own = data.draw(st.sampled_from(OWN_SAYINGS)).format(y=x, f=f)
    assert laws.judge_grounded(own, speaker=speaker, listener=listener,
                               cited=[f'said to {x}: "{data.draw(lower)}"'], names=names) is None


@given(cast, st.data())
def test_words_passed_on_without_a_cited_line_of_their_speakers_talk_are_refused_naming_the_claim(
        names, data):
    speaker, x, y = names[0], names[1], names[2]
    f = data.draw(filler)
    # y is named in a cited line, so the naming check passes; y said nothing in any of them
    cited = [f"{y} walked to the well", f'heard {x} say: "{data.draw(lower)}"']
    text = data.draw(st.sampled_from(HEARD_SAYINGS)).format(x=y, f=f)
    got = laws.judge_grounded(text, speaker=speaker, cited=cited, names=names)
    assert got is not None and got.check == "ungrounded"
    claim = laws.claims(text, names, speaker=speaker)[0]
    assert claim.by == y and got.reason == unclaimed(claim)
    own = data.draw(st.sampled_from(OWN_SAYINGS)).format(y=y, f=f)
    got = laws.judge_grounded(own, speaker=speaker, cited=cited, names=names)
    assert got is not None and got.reason == unclaimed(Claim(laws.grounded.SAID, speaker, y))


YOU_LINES = st.sampled_from(["you came to live in the south wood", "you ate plums in the orchard",
                             "Ander broke your cart and never paid", "you walked about the mill field",
                             "Mose handed you two parcels by the well"])


@given(cast, YOU_LINES, filler, filler)
def test_an_utterance_saying_a_cited_lines_you_and_the_words_after_it_is_always_refused(
        names, line, before, after):
    speaker, listener = names[0], names[1]
    words = line.split()
    k = next(i for i, w in enumerate(words) if w in ("you", "your"))
    text = f"{before} {' '.join(words[k:])} {after}"
    got = laws.judge_grounded(text, speaker=speaker, listener=listener, cited=[line],
                              names=[n for n in names if n not in ("Ander", "Mose")])
    assert got is not None and got.check == "ungrounded"
    assert got.reason == laws.grounded.miscopied(" ".join(words[k:k + laws.grounded.COPIED]),
                                                 speaker, listener)
    # in a thought, whose "you" is its speaker as the line's is, the same words stand
    assert laws.grounded.copied_you(text, [line]) is not None
    assert laws.judge_grounded(text, speaker=speaker, cited=[line],
                               names=[n for n in names if n not in ("Ander", "Mose")]) is None


QUOTES = st.sampled_from(["I came to live in the north field", "I gathered plums in the orchard",
                          "my cart broke by the well", "I ate oats this morning"])


@given(cast, QUOTES, filler, st.sampled_from([None, 2]))
def test_a_quoted_villagers_i_said_outside_quotation_marks_is_always_refused_and_he_always_stands(
        names, quote, after, listener):
    speaker, quoted = names[0], names[1]
    listener = None if listener is None else names[listener]
    line = f'heard {quoted} say: "{quote}"'
    text = f"I heard {quoted} say {quote} {after}"
    got = laws.judge_grounded(text, speaker=speaker, listener=listener, cited=[line], names=names)
    words = quote.casefold().split()[:laws.grounded.COPIED]
    assert got is not None and got.reason == laws.grounded.misquoted(" ".join(words), quoted)
    third = {"i": "he", "my": "his", "me": "him"}
    retold = " ".join(third.get(w.casefold(), w) for w in quote.split())
    assert laws.judge_grounded(f"I heard {quoted} say {retold} {after}", speaker=speaker,
                               listener=listener, cited=[line], names=names) is None
