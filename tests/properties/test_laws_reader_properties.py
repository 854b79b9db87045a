"""Properties of the reader's measures over generated words, texts, lines and names: which words
are real, which run words together, what a complete sentence is, what copies a cited line, which
villagers a text names and which of them are grounded, and how many answers differ. The word
list is a small one made here: the laws take any list."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from kernel.laws import minds as lm
from kernel.laws.statement import plain

LISTED = ("gift", "gave", "took", "bread", "from", "hands", "went", "sight", "out", "the",
          "said", "remember", "field", "mill", "east", "meadow", "thursday", "happy", "with",
          "me", "of", "on", "to", "you", "a", "i", "x", "q", "er", "ed", "urn", "food")
NAMES = {1: "Halla", 2: "Ander", 3: "Mose", 4: "Wren"}
PLACES = ("the mill field", "East Meadow")
KNOWN = lm.lexicon(LISTED, [*NAMES.values(), *PLACES])

listed = st.sampled_from(sorted(w for w in LISTED if len(w) > 1))
long_words = st.sampled_from(sorted(w for w in LISTED if len(w) >= lm.RUN_PIECE))
names = st.sampled_from(sorted(NAMES.values()))
known_words = st.one_of(listed, names)
garbles = st.text(alphabet="zvkjw", min_size=3, max_size=9)     # no word of the list holds these
cases = st.sampled_from([str.lower, str.upper, str.title, str.capitalize])


# --- real words --------------------------------------------------------------------------------

@given(known_words, cases)
def test_a_word_of_the_list_or_of_the_worlds_names_is_real_in_any_case(w, case):
    assert lm.real(case(w), KNOWN)


@given(known_words)
def test_a_possessive_s_is_taken_off_before_a_word_is_looked_up(w):
    assert lm.real(f"{w}'s", KNOWN) and lm.real(f"{w}’s", KNOWN)
    assert lm.folded(f"{w}'s") == lm.folded(w)


@given(st.sampled_from(sorted(PLACES)))
def test_every_word_of_a_places_name_is_real(place):
    assert all(lm.real(w, KNOWN) for w in lm.words_of(place))


@given(st.characters(whitelist_categories=("Ll", "Lu")))
def test_of_the_words_of_one_letter_only_a_and_i_are_real_whatever_the_list_holds(ch):
    assume(sum(c.isalpha() for c in lm.folded(ch)) == 1)    # a ligature folds to two ("ĳ")
    every = lm.lexicon([ch, ch.lower(), ch.upper()], [])
    assert lm.real(ch, every) == (lm.folded(ch) in lm.ONE_LETTER)


@given(garbles)
def test_a_word_in_no_list_is_not_real(w):
    assert not lm.real(w, KNOWN)


@given(st.lists(st.one_of(known_words, garbles, st.integers(0, 99).map(str)), max_size=8))
def test_digits_and_punctuation_are_no_words_and_every_run_of_letters_is_one(parts):
    text = ", ".join(parts) + "."
    assert lm.words_of(text) == tuple(p for p in parts if not p.isdigit())


# --- words run together ------------------------------------------------------------------------

@given(st.lists(long_words, min_size=2, max_size=lm.RUN_PIECES), st.data())
def test_real_words_said_without_their_spaces_run_together_and_split_back(pieces, data):
    joined = "".join(data.draw(cases)(p) for p in pieces)
    assume(not lm.real(joined, KNOWN))
    got = lm.run_together(joined, KNOWN)
    assert got is not None and "".join(got) == joined
    assert 2 <= len(got) <= len(pieces)
    assert all(lm.folded(p) in lm.SHORT_WORDS or (len(p) >= lm.RUN_PIECE and lm.real(p, KNOWN))
               for p in got)


@given(known_words)
def test_a_real_word_never_runs_words_together(w):
    assert lm.run_together(w, KNOWN) is None


@given(st.lists(long_words, min_size=1, max_size=3), garbles)
def test_words_that_end_in_a_garble_do_not_run_together(pieces, garble):
    assert lm.run_together("".join(pieces) + garble, KNOWN) is None


@given(st.lists(st.sampled_from(["er", "ed", "x", "q"]), min_size=2, max_size=4))
def test_pieces_of_one_letter_or_two_letter_abbreviations_never_make_words_run_together(pieces):
    joined = "".join(pieces)
    assume(not lm.real(joined, KNOWN))
    assert lm.run_together(joined, KNOWN) is None


@given(st.lists(long_words, min_size=lm.RUN_PIECES + 1, max_size=lm.RUN_PIECES + 3))
def test_more_words_run_together_than_the_most_is_a_garble(pieces):
    joined = "".join(pieces)
    assume(not lm.real(joined, KNOWN))
    got = lm.run_together(joined, KNOWN)
    assert got is None or len(got) <= lm.RUN_PIECES


# --- complete sentences ------------------------------------------------------------------------

sentences = st.lists(known_words, min_size=lm.SENTENCE_WORDS, max_size=8)
ends = st.sampled_from(sorted(lm.SENTENCE_ENDS))


@given(sentences, ends)
def test_real_words_opening_with_a_capital_and_closed_by_an_end_mark_are_a_sentence(ws, end):
    text = " ".join(ws)
    assert lm.sentence(text[0].upper() + text[1:] + end, KNOWN)
    assert lm.sentence(f'"{text[0].upper()}{text[1:]}{end}"', KNOWN)


@given(sentences, ends)
def test_a_sentence_that_opens_in_lower_case_or_has_no_end_mark_is_not_complete(ws, end):
    text = " ".join(ws)
    assume(text[0].isalpha())
    assert not lm.sentence(text[0].lower() + text[1:] + end, KNOWN)
    assert not lm.sentence(text[0].upper() + text[1:], KNOWN)


@given(sentences, ends, garbles, st.data())
def test_a_sentence_with_one_word_not_real_is_not_complete(ws, end, garble, data):
    at = data.draw(st.integers(1, len(ws)))
    text = " ".join([*ws[:at], garble, *ws[at:]])
    assert not lm.sentence(text[0].upper() + text[1:] + end, KNOWN)


@given(st.lists(known_words, min_size=1, max_size=lm.SENTENCE_WORDS - 1), ends)
def test_fewer_words_than_a_sentence_holds_are_not_a_complete_sentence(ws, end):
    text = " ".join(ws)
    assert not lm.sentence(text[0].upper() + text[1:] + end, KNOWN)


# --- copies of a cited line --------------------------------------------------------------------

lines = st.lists(known_words, min_size=2, max_size=6).map(" ".join)


@given(lines, st.lists(known_words, max_size=3), st.lists(known_words, max_size=3), cases)
def test_a_text_that_holds_a_cited_line_whole_in_any_case_copies_it(line, before, after, case):
    text = " ".join([*before, case(line), *after]) + "."
    assert lm.copies(text, [line])
    assert lm.copies(text, ["went out of sight", line])


@given(lines, names)
def test_saying_again_what_a_cited_line_quotes_copies_it(quote, who):
    assert lm.copies(quote.capitalize() + ".", [f'heard {who} say: "{quote}."'])


@given(st.text(alphabet="abcdef ", min_size=6, max_size=40),
       st.text(alphabet="uvwxyz ", min_size=6, max_size=40))
def test_a_text_sharing_no_letter_with_any_cited_line_copies_none(text, line):
    assume(plain(text) and plain(line))
    assert not lm.copies(text, [line])
    assert not lm.copies(text, [])


@given(lines)
def test_a_text_within_the_copy_edit_of_a_line_copies_it(line):
    assume(len(plain(line)) >= 10)
    changed = line[:-1] + ("z" if line[-1] != "z" else "y")
    assert lm.edit_share(changed, line) <= lm.COPY_EDIT
    assert lm.copies(changed, [line])


# --- villagers named and grounded --------------------------------------------------------------

@given(st.lists(st.sampled_from(sorted(NAMES)), max_size=4, unique=True), cases,
       st.lists(listed, max_size=4))
def test_a_villager_is_named_by_its_name_in_any_case_with_or_without_a_possessive(who, case,
                                                                               filler):
    text = " ".join([*filler, *(case(NAMES[v]) + ("'s" if v % 2 else "") for v in who)])
    assert lm.villagers_named(text, NAMES) == frozenset(who)


@given(st.lists(st.sampled_from(sorted(NAMES)), max_size=4, unique=True),
       st.sampled_from(sorted(NAMES)), st.none() | st.sampled_from(sorted(NAMES)),
       st.lists(st.sampled_from(sorted(NAMES)), max_size=2))
def test_a_villager_named_is_grounded_when_speaker_listener_or_named_in_a_cited_line(
        who, speaker, listener, in_lines):
    text = " ".join(NAMES[v] for v in who) + " took bread."
    cited = [f"{NAMES[v]} went out of sight" for v in in_lines]
    named, grounded = lm.grounded_names(text, speaker, listener, cited, NAMES)
    assert named == len(who)
    assert grounded == len(set(who) & ({speaker, listener} | set(in_lines)))
    assert 0 <= grounded <= named


# --- distinct answers --------------------------------------------------------------------------

@given(st.lists(lines, min_size=1, max_size=8), st.data())
def test_answers_that_differ_only_in_case_and_punctuation_are_one_answer(answers, data):
    said = [data.draw(cases)(a) + data.draw(st.sampled_from(["", ".", "!", " ,"]))
            for a in answers]
    got, total = lm.distinct(said)
    assert total == len(answers) and got == len({plain(a) for a in answers})
    assert 1 <= got <= total


# --- one text read, and the sums ---------------------------------------------------------------

texts = st.lists(st.one_of(known_words, garbles, st.sampled_from(["giftofMose", "onThursday"])),
                 min_size=1, max_size=8).map(" ".join)


@st.composite
def readings(draw) -> lm.Reading:
    text = draw(texts)
    cited = draw(st.lists(lines, max_size=3))
    return lm.read(draw(st.sampled_from(lm.READS)), draw(st.sampled_from(sorted(NAMES))), text,
                   cited, KNOWN, NAMES, listener=draw(st.none() | st.sampled_from(sorted(NAMES))))


@given(readings())
def test_a_texts_reading_counts_each_word_once_as_real_or_not(r):
    assert r.words == len(lm.words_of(r.text)) == r.real + len(r.unreal)
    assert set(r.run_together) <= set(r.unreal)
    assert 0 <= r.grounded <= r.named
    assert not r.sentence or not r.unreal


@given(st.lists(readings(), max_size=6))
def test_the_sums_of_readings_are_the_sums_of_their_parts_and_shares_of_nothing_are_none(rs):
    t = lm.read_tally(rs)
    assert (t.texts, t.words, t.real, t.sentences, t.copies, t.run_together, t.named,
            t.grounded) == (len(rs), sum(r.words for r in rs), sum(r.real for r in rs),
                            sum(r.sentence for r in rs), sum(r.copy for r in rs),
                            sum(len(r.run_together) for r in rs), sum(r.named for r in rs),
                            sum(r.grounded for r in rs))
    assert sum(n for _, n in t.unreal_words) == t.words - t.real
    assert sum(n for _, n in t.run_together_words) == t.run_together
    for share, total in ((t.real_share, t.words), (t.sentence_share, t.texts),
                         (t.copy_share, t.texts), (t.grounded_share, t.named)):
        assert (share is None) == (total == 0)
        assert share is None or 0.0 <= share <= 1.0
