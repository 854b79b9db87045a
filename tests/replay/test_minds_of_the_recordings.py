"""The measure of the minds of every committed recording, replayed with no model: the table
docs/minds.md gives, figure for figure, and the same measure read off a log on disk.

A re-recording moves these numbers, and should: the test then says which moved, and
docs/minds.md is written again from `village minds`.
"""

from __future__ import annotations

import pytest

from kernel.report import minds as rm
from kernel.report import words

# (degenerate, answers, parroting, questions, questions refused, questions calls, kept,
#  statements, plans with a group, plans, rows absorbed, grounding to 2 places, near, shown)
TABLE = {
    "day-of-three": (0, 12, 0, 6, 0, 3, 5, 6, 3, 3, 12, 0.75, 1, 5),
    "day-of-twenty-four": (1, 96, 4, 48, 0, 24, 43, 48, 23, 24, 87, 0.76, 14, 41),
    "week-of-three": (0, 126, 0, 42, 0, 21, 37, 42, 21, 21, 70, 0.72, 6, 25),
    "five-days-of-halla": (0, 17, 1, 10, 0, 5, 9, 10, 2, 2, 7, 0.86, 2, 7),
    "village-of-eight": (2, 139, 4, 24, 0, 24, 22, 24, 23, 23, 73, 0.79, 5, 21),
    # a world in no committed scenario and never tuned on, recorded live once a setting
    "bench/worlds/day-of-six": (0, 24, 0, 12, 0, 6, 12, 12, 6, 6, 14, 0.42, 0, 12),
}


def _row(t) -> tuple:
    return (t.degenerate, t.answers, t.parroting, t.questions, t.questions_refused,
            t.question_calls, t.kept, t.statements, t.plans_with_group, t.plans, t.absorbed,
            None if t.grounding is None else round(t.grounding, 2), t.near, t.shown)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_the_measure_of_each_committed_recording_is_the_table_docs_minds_gives(name):
    m = rm.minds(name)
    assert _row(m.all) == TABLE[name]
    assert m.notes == (() if m.reader is not None else (words.missing(),))
    assert m.vectors == ("the recording's" if m.thoughts else "none: no thought to measure")


# What the villagers said as a reader reads it, of each kind said: (texts, real words, words,
# complete sentences, copies of a cited line, words run together, villagers named grounded,
# villagers named); and the distinct interview answers of every villager, of the answers
READER = {
    "day-of-three": ({"thought": (5, 57, 57, 5, 1, 0, 4, 4)}, None),
    "day-of-twenty-four": ({"thought": (41, 463, 463, 41, 8, 0, 29, 29),
                            "interview": (36, 448, 448, 36, 5, 0, 32, 32)}, (27, 36)),
    "week-of-three": ({"thought": (25, 315, 315, 25, 3, 0, 20, 20),
                       "interview": (25, 300, 300, 25, 5, 0, 10, 10)}, (12, 25)),
    "five-days-of-halla": ({"thought": (7, 84, 84, 7, 2, 0, 3, 3)}, None),
    "village-of-eight": ({"thought": (21, 269, 269, 21, 0, 0, 7, 7),
                          "utterance": (34, 486, 487, 33, 12, 1, 26, 26)}, None),
    "bench/worlds/day-of-six": ({"thought": (12, 92, 95, 1, 1, 1, 14, 15)}, None),
}


@pytest.mark.words
@pytest.mark.parametrize("name", sorted(READER))
def test_what_each_committed_recording_said_reads_as_the_table_docs_minds_gives(name):
    r = rm.minds(name).reader
    assert {w: (t.texts, t.real, t.words, t.sentences, t.copies, t.run_together, t.grounded,
                t.named) for w, t in r.of} == READER[name][0]
    distinct = (sum(d for *_, d, _ in r.distinct), sum(n for *_, n in r.distinct))
    assert (distinct if r.distinct else None) == READER[name][1]
    assert (r.interviews is not None) == (READER[name][1] is not None)


@pytest.mark.words
@pytest.mark.parametrize("name", [n for n in sorted(READER) if not n.startswith("bench/")])
def test_every_villager_a_grounded_recordings_kept_words_name_is_grounded_as_the_seam_read_them(
        name):
    # every committed scenario is recorded under a grounded seam, and the reader reads each
    # text beside the lines the seam judged it against (a folded row's as its prompt showed it)
    for what, t in rm.minds(name).reader.of:
        assert t.grounded == t.named, (what, t.grounded, t.named)


def test_the_purposes_and_the_villagers_of_a_run_each_sum_to_the_whole():
    m = rm.minds("week-of-three")
    for parts in ([t for _, t in m.purposes], [t for _, _, t in m.villagers]):
        for f in ("answers", "degenerate", "questions", "parroting", "statements", "thoughts",
                  "recurred", "plans", "absorbed", "near", "costed", "tokens_out"):
            assert sum(getattr(t, f) for t in parts) == getattr(m.all, f), f
    assert [name for _, name, _ in m.villagers] == ["Halla", "Ander", "Mose"]


def test_a_thought_that_says_a_shown_line_again_in_other_words_is_found_near():
    # day-of-three's one: "you gathered berries in the east meadow this evening", said back
    m = rm.minds("day-of-three")
    near = [t for t in m.thoughts if t.nearness is not None and t.nearness.near]
    assert [t.text for t in near] == ["I gathered berries in the east meadow this evening."]


def test_a_run_none_of_whose_answers_degenerates_quotes_no_worst_answer():
    assert rm.minds("day-of-three").worst == ()
    assert rm.minds("week-of-three").worst == ()
    assert rm.minds("village-of-eight").worst != ()       # 2 of its 139 answers loop


def test_a_log_of_a_recorded_run_measures_as_its_scenario_does(tmp_path):
    from click.testing import CliRunner

    from kernel.cli import main

    log = tmp_path / "day.log"
    r = CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "replay", "--out", str(log)])
    assert r.exit_code == 0, r.output
    of_log, of_scenario = rm.minds(log), rm.minds("day-of-three")
    assert of_log.run == "day.log" and of_log.all == of_scenario.all
    assert of_log.thoughts == of_scenario.thoughts


def test_a_log_folded_alone_keeps_its_counts_and_says_what_it_cannot_measure(tmp_path):
    from kernel.engine import follow, load_scenario
    from kernel.engine.replay import replay

    sc = load_scenario("day-of-three")
    log = tmp_path / "day.log"
    replay(sc, out=log)
    g = rm.MindsGather()
    follow(log, [g], rules=sc.rules)
    m = rm.measure(g, rm.Inputs(), run="day.log")
    whole = rm.minds("day-of-three").all
    assert (m.all.answers, m.all.degenerate, m.all.kept, m.all.questions_refused) == \
        (whole.answers, whole.degenerate, whole.kept, whole.questions_refused)
    assert m.all.grounding is None and m.vectors.startswith("none") and m.all.costed == 0
    assert len(m.notes) == 2


@pytest.mark.embed
def test_a_log_folded_alone_is_grounded_by_the_runs_embedder_as_its_recording_says(tmp_path):
    from kernel.engine import follow, load_scenario
    from kernel.engine.replay import replay

    sc = load_scenario("week-of-three")
    log = tmp_path / "week.log"
    replay(sc, out=log)
    g = rm.MindsGather()
    follow(log, [g], rules=sc.rules)
    m = rm.measure(g, rm.inputs_of(sc, None, ()), run="week.log")
    whole = rm.minds("week-of-three").all
    assert m.vectors.startswith("embedded here")
    # float32 vectors embedded on another machine, or by another onnxruntime build, may differ
    # from the recording's in their last bits: the means agree to a millionth, not to the bit
    assert m.all.grounding == pytest.approx(whole.grounding, abs=1e-6)
    assert m.all.alike == pytest.approx(whole.alike, abs=1e-6)
