"""The grounded seam's rule on the rows perception writes and on sentences a model wrote: who
a text names, who it says gave to or took from whom, and each refusal's words."""

from __future__ import annotations

import pytest

from kernel import engine, laws
from kernel import events as ev
from kernel.errors import LawError
from kernel.laws.grounded import Claim
from kernel.laws.perception import perceive, start

NAMES = ("Halla", "Ander", "Mose", "Corin", "Brisca", "Odhran")
HALLA, ANDER, MOSE = 1, 2, 3


def _rows():
    """Every row perception writes for Halla handing Ander 2 parcels and Ander taking 3 parcels
    out of Halla's hands, Mose seeing both, by (villager, event)."""
    s = start(engine.load_rules())
    s, _ = perceive(s, 0, [ev.Founded(villager=v, name=NAMES[v - 1], x=v, y=0) for v in (1, 2, 3)]
                    + [ev.CameIntoSight(viewer=a, seen=b, millicells=1000)
                       for a, b in ((1, 2), (2, 1), (3, 1), (3, 2))])
    _, rows = perceive(s, 1, [ev.Gave(giver=HALLA, receiver=ANDER, parcels=2, milligrams=1000),
                              ev.Took(taker=ANDER, owner=HALLA, parcels=3, milligrams=1500)])
    return {(r.villager, r.event): r.text for r in rows}


@pytest.mark.parametrize("holder, event, claim", [
    (HALLA, "gift", Claim("gave", "Halla", "Ander")),     # its own row: "handed Ander ..."
    (ANDER, "gift", Claim("gave", "Halla", "Ander")),     # the receiver's: "Halla handed Ander"
    (MOSE, "gift", Claim("gave", "Halla", "Ander")),      # a witness's
    (ANDER, "take", Claim("took", "Ander", "Halla")),     # "took 3 parcels out of Halla's hands"
    (HALLA, "take", Claim("took", "Ander", "Halla")),
    (MOSE, "take", Claim("took", "Ander", "Halla")),
])
def test_every_row_perception_writes_of_a_gift_or_a_take_says_who_gave_or_took_from_whom(
        holder, event, claim):
    text = _rows()[(holder, event)]
    assert laws.claims(text, NAMES, speaker=NAMES[holder - 1], cited=True) == (claim,)


@pytest.mark.parametrize("row, claim", [
    ("handed Ander two parcels in the mill field", Claim("gave", "Halla", "Ander")),
    ("Mose handed Ander two parcels by the well this morning", Claim("gave", "Mose", "Ander")),
    ("took three parcels out of Ander's hands in the east meadow", Claim("took", "Halla", "Ander")),
    ("Mose took two parcels out of Ander's hands at the mill", Claim("took", "Mose", "Ander")),
])
def test_a_row_worded_with_places_keeps_its_direction(row, claim):
    assert laws.claims(row, NAMES, speaker="Halla", cited=True) == (claim,)


@pytest.mark.parametrize("text, claims", [
    ("I gave Ander my bread", (Claim("gave", "Halla", "Ander"),)),
    ("You handed Ander two parcels.", (Claim("gave", "Halla", "Ander"),)),
    ("Ander took ices from Ander.", (Claim("took", "Ander", "Ander"),)),
    ("Mose stole my bread and then shared it with Ander",
     (Claim("took", "Mose", "Halla"), Claim("gave", "Mose", "Ander"))),   # "and then" shares Mose
    ("Mose quickly grabbed parcels off me; gave them to Ander",
     (Claim("took", "Mose", "Halla"), Claim("gave", "Halla", "Ander"))),
    ("Ander was given bread by Mose", ()),       # the passive: no subject before the verb
    ("Mose did not give Ander anything", ()),
    ("Mose said he gave bread to Ander", (Claim("said", "Mose", None),)),   # not the gift
    ("Mose passed Ander on the road", ()),       # pass gives only "to" someone
    ("The miller gave the baker bread", ()),     # nobody of the village
    ('Mose said: "I gave you bread"', (Claim("said", "Mose", None),)),   # a quote's "I": nobody
    ("I received 2 dozen parcels from Ander today.", (Claim("gave", "Ander", "Halla"),)),
    ("Mose got bread from Ander", (Claim("gave", "Ander", "Mose"),)),   # a gift, said by its receiver
    ("I got up from the bench near Ander", ()),  # "from" no villager: no claim
    ("I got near Ander", ()),
])
def test_a_villagers_own_words_say_the_claims_the_rule_finds(text, claims):
    assert laws.claims(text, NAMES, speaker="Halla") == claims


def test_in_an_utterance_you_is_the_listener_and_in_a_thought_the_speaker():
    said = "You took my bread"
    assert laws.claims(said, NAMES, speaker="Halla", listener="Ander") == (
        Claim("took", "Ander", "Halla"),)
    assert laws.claims(said, NAMES, speaker="Halla") == (Claim("took", "Halla", "Halla"),)


def test_a_villager_named_by_nothing_the_answer_stands_on_is_refused_by_name():
    got = laws.judge_grounded("Corin gave Brisca seven parcels of tobacco.", speaker="Brisca",
                              cited=["Odhran took 7 parcels out of Brisca's hands"], names=NAMES)
    assert (got.check, got.reason) == (
        "ungrounded", "Corin is named, and is not the speaker nor named in a cited line")


def test_a_claim_against_the_direction_of_every_cited_line_is_refused_by_the_claim():
    got = laws.judge_grounded("Odhran gave Brisca seven parcels.", speaker="Brisca",
                              cited=["Odhran took 7 parcels out of Brisca's hands"], names=NAMES)
    assert (got.check, got.reason) == (
        "ungrounded", "says Odhran gave to Brisca, and no cited line has Odhran giving to Brisca")
    assert laws.judge_grounded("Odhran took my parcels.", speaker="Brisca",
                               cited=["Odhran took 7 parcels out of Brisca's hands"],
                               names=NAMES) is None


def test_an_utterance_may_name_its_listener_and_says_so_when_it_names_another():
    assert laws.judge_grounded("Ander, I remember you", speaker="Halla", listener="Ander",
                               cited=["ate 3 mouthfuls"], names=NAMES) is None
    got = laws.judge_grounded("Mose was near", speaker="Halla", listener="Ander",
                              cited=["ate 3 mouthfuls"], names=NAMES)
    assert got.reason == ("Mose is named, and is not the speaker, nor the listener, nor named "
                          "in a cited line")


def test_a_cited_line_of_talk_names_whom_it_quotes_and_whom_it_was_said_to():
    heard = 'heard Mose say: "Corin took bread from Ander"'
    assert laws.named(heard, NAMES) == ("Mose", "Corin", "Ander")
    assert laws.judge_grounded("Corin took bread from Ander", speaker="Halla", cited=[heard],
                               names=NAMES) is None


def test_a_name_and_its_possessive_name_a_villager_and_a_name_run_into_a_word_does_not():
    assert laws.named("Ander's bread and Mose", NAMES) == ("Ander", "Mose")
    assert laws.named("Tove urned the giftofMoseH Tove, ander and Anders", NAMES) == ()


def test_a_bad_argument_is_refused_naming_it():
    with pytest.raises(LawError, match="names="):
        laws.judge_grounded("x", speaker="Halla", cited=[], names="Halla")
    with pytest.raises(LawError, match="cited="):
        laws.judge_grounded("x", speaker="Halla", cited="a line", names=NAMES)
    with pytest.raises(LawError, match="speaker="):
        laws.judge_grounded("x", speaker=None, cited=[], names=NAMES)


def test_a_row_that_speaks_to_its_villager_as_you_grounds_a_claim_in_the_first_person():
    from kernel.laws.grounded import judge_grounded
    names = ["Fenna", "Ysolde", "Liesel"]
    took = ["Ysolde took over a dozen parcels out of your hands this evening"]
    assert judge_grounded("Ysolde took parcels out of my hands.", speaker="Fenna", cited=took,
                          names=names) is None
    wrong = judge_grounded("I took parcels out of Ysolde's hands.", speaker="Fenna", cited=took,
                           names=names)
    assert wrong is not None and wrong.check == "ungrounded"
    gave = ["Liesel handed you two parcels"]
    assert judge_grounded("Liesel gave me two parcels.", speaker="Fenna", cited=gave,
                          names=names) is None
    assert judge_grounded("I gave Liesel two parcels.", speaker="Fenna", cited=gave,
                          names=names) is not None


def test_a_verb_after_and_shares_the_party_its_sentence_opens_with():
    from kernel.laws.grounded import judge_grounded
    names = ["Bertil", "Rasmus", "Liesel"]
    cited = ["Rasmus took dozens of parcels out of Liesel's hands this evening"]
    said = "I saw Rasmus come near this evening and took dozens of parcels out of Liesel's hands."
    got = judge_grounded(said, speaker="Bertil", cited=cited, names=names)
    assert got is not None and got.check == "ungrounded" and "Bertil took" in got.reason
    assert judge_grounded("Rasmus came near and took parcels out of Liesel's hands.",
                          speaker="Bertil", cited=cited, names=names) is None


@pytest.mark.parametrize("text, claims", [
    ('heard Ander say: "I ate bread"', (Claim("said", "Ander", "Halla"),)),   # a listener's row
    ('said to Ander: "I ate bread"', (Claim("said", "Halla", "Ander"),)),     # a speaker's row
    ("I heard Mose say that Ander ate bread", (Claim("said", "Mose", "Halla"),)),
    ("I said to Mose this morning that I ate", (Claim("said", "Halla", "Mose"),)),
    ("Ander told me about the well", (Claim("said", "Ander", "Halla"),)),
    ("Mose said that he walked to Ander", (Claim("said", "Mose", None),)),  # "to" not right after
    ("I say we share the bread", ()),           # the saying itself, not a report of it
    ("Mose was told about the well", ()),       # the passive: no subject
])
def test_words_passed_on_say_who_said_them_to_whom(text, claims):
    assert laws.claims(text, NAMES, speaker="Halla", cited=text.startswith(("heard", "said"))) == claims


def test_words_passed_on_stand_only_on_a_cited_line_of_their_speakers_talk():
    heard = 'heard Mose say: "I came to live in the orchard"'
    assert laws.judge_grounded("I heard Mose say that he came to live in the orchard.",
                               speaker="Halla", cited=[heard], names=NAMES) is None
    assert laws.judge_grounded("Mose said he lives in the orchard.", speaker="Halla",
                               cited=[heard], names=NAMES) is None
    got = laws.judge_grounded("I said to Mose this morning that Ander ate bread.",
                              speaker="Halla", cited=["Mose ate bread", "Ander ate bread"],
                              names=NAMES)
    assert (got.check, got.reason) == (
        "ungrounded", "says Halla said to Mose, and no cited line has Halla saying anything to Mose")
    got = laws.judge_grounded("Ander told me that Mose ate bread.", speaker="Halla",
                              cited=[heard, "Ander ate bread"], names=NAMES)
    assert got.reason == ("says Ander said to Halla, and no cited line has Ander saying "
                          "anything to Halla")
    got = laws.judge_grounded("Ander said that Mose ate.", speaker="Halla",
                              cited=[heard, "Ander ate bread"], names=NAMES)
    assert got.reason == "says Ander said something, and no cited line has Ander saying anything"


def test_in_an_utterance_words_the_listener_said_stand_on_the_line_that_heard_them():
    heard = 'heard Ander say: "I ate bread"'
    assert laws.judge_grounded("You told me you ate bread.", speaker="Halla", listener="Ander",
                               cited=[heard], names=NAMES) is None
    got = laws.judge_grounded("You told me you ate bread.", speaker="Halla", listener="Ander",
                              cited=["Ander ate bread"], names=NAMES)
    assert got.check == "ungrounded"


def test_an_utterance_that_says_a_cited_lines_you_of_its_listener_is_refused_naming_the_words():
    shown = ["you came to live in the south wood this morning",
             'you heard Mose say this morning: "I came to live on the green this morning."']
    got = laws.judge_grounded("I remember that you came to live in the south wood this morning.",
                              speaker="Ander", listener="Mose", cited=shown, names=NAMES)
    assert (got.check, got.reason) == (
        "ungrounded", 'says "you came to live in" to Mose, and in its cited line "you" is '
                      'Ander, not Mose')
    got = laws.judge_grounded("I remember that Mose broke your cart and never paid.",
                              speaker="Halla", listener="Mose",
                              cited=["Mose broke your cart and never paid"], names=NAMES)
    assert got.reason.startswith('says "your cart and never paid" to Mose')


def test_a_you_the_listener_said_and_a_you_in_other_words_stand():
    shown = ["you came to live in the south wood this morning",
             'you heard Mose say this morning: "I came to live on the green this morning."']
    for said in ("I remember that you came to live on the green this morning.",   # Mose's own
                 "I came to live in the south wood this morning."):                # "I" for you
        assert laws.judge_grounded(said, speaker="Ander", listener="Mose", cited=shown,
                                   names=NAMES) is None
    # a thought's "you" is its speaker: the same words stand there
    assert laws.judge_grounded("You came to live in the south wood this morning.",
                               speaker="Ander", cited=shown, names=NAMES) is None


def test_the_third_check_reads_the_lines_as_the_prompt_showed_them_where_it_is_given():
    said = "I remember that you came to live in the south wood."
    assert laws.judge_grounded(said, speaker="Ander", listener="Mose",
                               cited=["came to live in the south wood"], names=NAMES) is None
    got = laws.judge_grounded(said, speaker="Ander", listener="Mose",
                              cited=["came to live in the south wood"], names=NAMES,
                              shown=["you came to live in the south wood"])
    assert got is not None and got.check == "ungrounded"


def test_words_passed_on_twice_stand_on_the_line_that_passed_them_on():
    relayed = 'heard Mose say: "I heard Ander say that Corin ate bread."'
    assert laws.judge_grounded("Mose heard Ander say that Corin ate bread.", speaker="Halla",
                               cited=[relayed], names=NAMES) is None


def test_a_quoted_i_said_as_the_speakers_own_is_refused_and_he_or_a_quote_stands():
    heard = 'heard Mose say: "I came to live in the north field this morning."'
    got = laws.judge_grounded("I heard Mose say I came to live in the north field this morning.",
                              speaker="Halla", listener="Ander", cited=[heard], names=NAMES)
    assert (got.check, got.reason) == (
        "ungrounded", 'says "I came to live in" as its own, and in its cited line "I" is Mose')
    for said in ("I heard Mose say he came to live in the north field this morning.",
                 'I heard Mose say: "I came to live in the north field this morning."'):
        assert laws.judge_grounded(said, speaker="Halla", listener="Ander", cited=[heard],
                                   names=NAMES) is None
    # a thought too: the quoted "I" was Mose there as well
    assert laws.judge_grounded("Mose said I came to live in the north field.", speaker="Halla",
                               cited=[heard], names=NAMES).check == "ungrounded"


def test_the_speakers_own_words_said_again_in_part_are_its_own():
    own = 'said to Ander: "I gathered plums in the orchard this morning."'
    assert laws.judge_grounded("I gathered plums in the orchard and walked.", speaker="Halla",
                               listener="Mose", cited=[own], names=NAMES) is None
