"""Interviews of a scripted run: asked at a tick from the log folded to it, judged by the seam,
scored by the log's own answers, recorded and replayed byte for byte, and stopped at the first
prompt that differs."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
from interview_scenario import battery, interview_answer, oracle, run

from kernel import laws
from kernel.engine.projection import memory_of
from kernel.errors import ConfigError, ReplayMismatch, VillageError
from kernel.interview import battery as ib
from kernel.interview import session as isn
from kernel.laws.memory import Memory
from kernel.mind import interview as mi
from kernel.mind.settings import load
from kernel.oracle import exemplar
from kernel.oracle.record import RecordingOracle
from kernel.oracle.replay import ReplayOracle
from kernel.seam import Rendered, TemplateFile, template_file
from kernel.seam.interview import INTERVIEW
from kernel.testing import ScriptedOracle


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    return run(tmp_path_factory.mktemp("iv") / "felt", days=2)


def test_an_interview_folds_the_log_to_its_tick_and_no_further(ran):
    sc, _, path = ran
    a = isn.at(path, sc, 250)
    assert a.tick == 250 and max(m.tick for m in a.rows) <= 250
    assert a.rows == memory_of(path, rules=sc.rules, until=250).rows


def test_every_villager_is_asked_every_question_under_every_variant_the_run_has(ran):
    sc, _, path = ran
    s = isn.ask(isn.at(path, sc, None), battery(), oracle(),
                variants=("full", "no-reflection", "no-relevance", "no-talk"))
    assert s.variants == ("full", "no-reflection", "no-relevance") and s.skipped == ("no-talk",)
    assert len(s.asked) == 3 * len(s.who) * 4
    assert all(x.interview.accepted for x in s.asked)


def test_a_memory_question_the_log_knows_is_scored_by_code_and_a_reflection_is_not(ran):
    sc, _, path = ran
    s = isn.ask(isn.at(path, sc, None), battery(), oracle())
    for x in s.asked:
        if x.question.id == "ate":
            assert x.truth is not None and x.truth.known and x.correct is not None
            assert 0 < x.truth.chance <= 1
        if x.category in ("reflection", "self"):
            assert x.truth is None and x.correct is None


def test_the_no_reflection_variant_shows_no_thought(ran):
    sc, _, path = ran
    s = isn.ask(isn.at(path, sc, None), battery(), oracle(), variants=("no-reflection",))
    assert all(m.kind != "thought" for x in s.asked for m in x.interview.shown)
    full = isn.ask(isn.at(path, sc, None), battery(), oracle())
    assert any(m.kind == "thought" for x in full.asked for m in x.interview.shown)


def test_a_question_names_its_villager_and_the_one_it_knows_best(ran):
    sc, _, path = ran
    s = isn.ask(isn.at(path, sc, None), battery(), oracle())
    texts = {(x.interview.name, x.question.id): x.text for x in s.asked}
    assert texts[("Halla", "self")] == "Who are you, Halla?"
    assert texts[("Halla", "other")].startswith("What do you think of ")


def test_a_recorded_battery_replays_to_the_same_transcript_byte_for_byte(ran, tmp_path):
    sc, _, path = ran
    a = isn.at(path, sc, None)
    rec = RecordingOracle(oracle())
    s = isn.ask(a, battery(), rec, variants=("full", "no-relevance"))
    doc = {**rec.document(), "interview": s.meta()}
    f = tmp_path / "iv.json"
    exemplar.write_atomic(f, exemplar.dumps(doc))
    rp = ReplayOracle(f)
    again = isn.ask(isn.at(path, sc, None), battery(), rp, variants=("full", "no-relevance"))
    assert again.transcript() == s.transcript() and rp.unread == 0


def test_a_one_byte_change_to_the_interview_template_stops_the_replay_naming_both_digests(
        ran, tmp_path):
    sc, _, path = ran
    a = isn.at(path, sc, None)
    rec = RecordingOracle(oracle())
    s = isn.ask(a, battery(), rec)
    f = tmp_path / "iv.json"
    exemplar.write_atomic(f, exemplar.dumps({**rec.document(), "interview": s.meta()}))
    tf = template_file(INTERVIEW)
    changed = tf.bytes.replace(b"village", b"villagE", 1)
    import hashlib
    other = TemplateFile(name=tf.name, path=tf.path, bytes=changed,
                         sha256=hashlib.sha256(changed).hexdigest())
    with pytest.raises(ReplayMismatch) as e:
        isn.ask(a, battery(), ReplayOracle(f), template=other)
    first = next(x for x in s.asked if x.interview.prompt is not None).interview.prompt.sha256
    assert first in str(e.value) and e.value.here != e.value.recorded
    assert len(e.value.here) == 64 and len(e.value.recorded) == 64


def test_an_answer_that_cites_a_row_it_was_never_shown_is_refused_by_the_seam(ran):
    sc, _, path = ran

    def liar(ask):
        if ask.purpose != "interview":
            return interview_answer(ask)
        return json.dumps({"numbers": [987654], "answer": "Ander gave me food"})

    s = isn.ask(isn.at(path, sc, None), battery(), oracle(liar))
    assert all(not x.interview.accepted and x.interview.refused.check for x in s.asked)
    assert all(x.correct in (None, False) for x in s.asked)


def test_a_battery_question_may_name_only_day_other_and_name():
    with pytest.raises(ConfigError, match=r"names \{enemy\}"):
        ib.of({"questions": [{"id": "a", "category": "self", "text": "Who is {enemy}?"}]})


def test_a_battery_gives_each_question_id_once():
    q = {"id": "a", "category": "self", "text": "Who?"}
    with pytest.raises(ConfigError, match="given twice"):
        ib.of({"questions": [q, q]})


def test_an_interview_past_the_logs_last_tick_is_one_line(ran):
    sc, _, path = ran
    with pytest.raises(VillageError, match="no later than the log's last tick"):
        isn.at(path, sc, 10_000_000)


def test_the_shipped_battery_loads_with_at_least_two_questions_in_each_category():
    b = ib.load("interview")
    for c in ib.CATEGORIES:
        assert sum(1 for q in b.questions if q.category == c) >= 2
    for q in b.questions:
        if q.answer is not None:
            assert q.query(3) is not None


def test_one_question_is_put_to_one_villager_with_its_braces_as_written(ran):
    sc, _, path = ran
    s = isn.one(isn.at(path, sc, 300), "Ander", "Who is {other} to you?", oracle(),
                battery=battery())
    (x,) = s.asked
    assert x.text == "Who is {other} to you?" and x.interview.name == "Ander"
    assert x.interview.now == 300 and x.interview.accepted and x.truth is None


def _interviewed(text: str, grounded: bool):
    """One interview answer through the seam, as `asked` judges it: Halla's rows are a meal and
    Ander handing her 2 parcels; the answer cites the gift."""
    rows = (Memory(id=1, villager=1, tick=5, kind="did", event="meal", text="ate 3 mouthfuls",
                   weight=1, about=()),
            Memory(id=2, villager=1, tick=6, kind="saw", event="gift",
                   text="Ander handed Halla 2 parcels, 1.0 grams", weight=3, about=(1, 2)))
    mind = mi.Mind(villager=1, name="Halla", now=10, day=0, mine=rows, gone={}, live=rows,
                   felt=None, basins="", village=frozenset({"Halla", "Ander", "Mose"}))
    prompt = Rendered(b"asked", hashlib.sha256(b"asked").hexdigest(), "interview", "")
    iv = mi.Interview(villager=1, name="Halla", now=10, question="Who gave you food?", seed=1,
                      ranked=tuple(laws.Ranked(m, 0.0, 0.0, 0.0, 0.0) for m in rows),
                      prompt=prompt, schema=b"{}")
    st = dataclasses.replace(load(), grounded=grounded)
    said = json.dumps({"numbers": [2], "answer": text})
    mi.asked([iv], [mind], st, ScriptedOracle([said]), 64, 120)
    return iv


def test_under_grounded_settings_an_answer_naming_or_claiming_what_its_cited_rows_do_not_is_refused():
    assert _interviewed("Ander gave me food", True).refused is None
    assert str(_interviewed("Mose gave me food", True).refused) == (
        "ungrounded: Mose is named, and is not the speaker nor named in a cited line")
    assert str(_interviewed("I gave Ander food", True).refused) == (
        "ungrounded: says Halla gave to Ander, and no cited line has Halla giving to Ander")
    assert _interviewed("I gave Ander food", False).refused is None
