"""The rule that a line a prompt speaks to its villager becomes the villager's own words."""

from __future__ import annotations

import pytest

from kernel import laws
from kernel.errors import LawError


@pytest.mark.parametrize("line, own", [
    ("you came to live on the green this morning", "I came to live on the green this morning"),
    ("Dorin took dozens of parcels out of your hands this morning",
     "Dorin took dozens of parcels out of my hands this morning"),
    ("Halla handed you a parcel by the well", "Halla handed me a parcel by the well"),
    ("Mose is your brother, and owes you food", "Mose is my brother, and owes me food"),
    ("you were near Casimir and Oonagh this evening", "I was near Casimir and Oonagh this evening"),
    ('you heard Linnea say this morning: "I saw you and your cart."',
     'I heard Linnea say this morning: "I saw you and your cart."'),      # a quote is its speaker's
    ("Ailsa said there is a wedding tomorrow", "Ailsa said there is a wedding tomorrow"),
    ("Youth is young; yourselves and young", "Youth is young; yourselves and young"),   # whole words only
])
def test_a_line_spoken_to_its_villager_becomes_its_own_words(line, own):
    assert laws.first_person(line) == own


def test_a_line_that_is_no_text_is_refused_naming_it():
    with pytest.raises(LawError, match="text=3"):
        laws.first_person(3)
