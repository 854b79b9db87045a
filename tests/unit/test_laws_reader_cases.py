"""The reader's measures case by case, read against Debian's word list as `village minds` reads
them: the words the committed recordings say (run together, garbled, real), the sentences, the
copies and the names of the issue's examples; and the list itself, loaded once, and missing
said in one line."""

from __future__ import annotations

import pytest

from kernel.errors import VillageError
from kernel.laws import minds as lm
from kernel.report import words as rw

pytestmark = pytest.mark.words

NAMES = {1: "Halla", 2: "Ander", 3: "Mose", 4: "Tove", 5: "Odhran", 6: "Brisca", 7: "Corin",
         8: "Maelis"}


@pytest.fixture(scope="module")
def known() -> frozenset[str]:
    return lm.lexicon(rw.load().words, NAMES.values())


@pytest.mark.parametrize(("word", "pieces"), [
    ("giftofMose", ("gift", "of", "Mose")), ("onThursday", ("on", "Thursday")),
    ("ofsight", ("of", "sight")), ("happywithme", ("happy", "with", "me")),
    ("toAnder", ("to", "Ander")), ("outof", ("out", "of"))])
def test_words_said_without_their_spaces_run_together(known, word, pieces):
    assert not lm.real(word, known)
    assert lm.run_together(word, known) == pieces


@pytest.mark.parametrize("word", ["youdrewoned", "urned", "ermen", "Ader", "giftofMoseH",
                                  "iniectioea", "xtra"])
def test_a_garble_is_a_word_not_real_and_not_words_run_together(known, word):
    assert not lm.real(word, known)
    assert lm.run_together(word, known) is None


def test_the_worlds_names_and_a_possessive_are_real_and_a_lone_letter_is_not(known):
    assert all(lm.real(w, known) for w in ("Mose's", "MOSE", "Tove", "didn't", "a", "I"))
    assert not any(lm.real(w, known) for w in ("s", "t", "Knud", "Orment"))
    assert lm.real("Hvalsey", lm.lexicon(rw.load().words, ["Hvalsey Fjord"]))
    assert not lm.real("Hvalsey", known)


def test_the_issues_examples_read_as_a_reader_reads_them(known):
    garbled = lm.read("thought", 3, "Mose ipsum accidit iniectioea Mose", [], known, NAMES)
    assert (garbled.words, garbled.real, garbled.sentence) == (5, 2, False)
    fluent = lm.read("thought", 8, "Corin gave Brisca seven parcels of tobacco.",
                     ["Odhran took 7 parcels out of Brisca's hands"], known, NAMES)
    assert fluent.sentence and fluent.real == fluent.words == 7
    assert (fluent.named, fluent.grounded) == (2, 1)        # Brisca is cited; Corin is not
    assert not lm.sentence("You remember the number of lines youdrewoned.", known)
    assert lm.sentence("Odhran took 7 parcels from Brisca.", known)


def test_saying_again_what_was_heard_copies_the_line_that_heard_it(known):
    heard = 'heard Sigrid say: "You remember the number of lines you drew on your."'
    said = lm.read("utterance", 8, "You remember the number of lines you drew on.", [heard],
                   known, NAMES, listener=5)
    assert said.copy
    assert not lm.copies("You owe me food.", [heard])


def test_the_list_is_read_once_folded_and_says_what_it_is():
    got = rw.load()
    assert got is rw.load()
    assert {"mose", "thursday", "didn't"} - got.words == {"mose"}
    assert got.what.startswith(f"{rw.LIST} (Debian's {rw.PACKAGE}, ")


def test_a_missing_word_list_is_one_line_naming_the_file_and_the_package(tmp_path):
    gone = tmp_path / "american-english"
    with pytest.raises(VillageError) as e:
        rw.load(gone)
    line = str(e.value)
    assert "\n" not in line and str(gone) in line and f"apt-get install {rw.PACKAGE}" in line
    assert rw.listed(gone) == (None, line)
