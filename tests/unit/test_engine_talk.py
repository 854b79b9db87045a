"""Words at a meeting in a run: said only where two villagers come into sight of each other,
within the talk block's budget, heard by a listener in sight, cited from the speaker's own
rows; rows given at a founding; and none of it where the settings say none."""

from __future__ import annotations

import json

import pytest
from felt_scenario import GIVEN, TALK, answer, make, shown_ids

from kernel import engine
from kernel import events as ev
from kernel.engine import scenario as msc
from kernel.errors import ConfigError
from kernel.laws.perception import perceive, start
from kernel.log import read_ticks
from kernel.testing import ScriptedOracle


def run(tmp_path, name, script=answer, **kw):
    sc = msc.load(make(tmp_path / name, **kw))
    oracle = ScriptedOracle([script] * 10_000, dim=64)
    path = tmp_path / f"{name}.log"
    report = engine.run(sc, oracle, path, projections=[])
    return sc, oracle, report, path


def frames(path):
    return [(t.tick, t.events) for t in read_ticks(path)]


@pytest.fixture(scope="module")
def talked(tmp_path_factory):
    return run(tmp_path_factory.mktemp("talk"), "talked", talk=dict(TALK, starts=2, answers=1),
               given=GIVEN)


def rows_of(sc, path):
    """Every row of the log, by tick, and the sight each frame left."""
    state = start(sc.rules)
    out = []
    for tick, events in frames(path):
        before = state
        state, rows = perceive(state, tick, events)
        out.append((tick, events, rows, before, state))
    return out


def test_an_utterance_is_said_only_at_a_tick_where_the_speaker_saw_the_listener_come_into_sight(
        talked):
    sc, oracle, report, path = talked
    spoke = 0
    for _tick, events in frames(path):
        came = {(e.viewer, e.seen) for e in events if isinstance(e, ev.CameIntoSight)}
        starts = [e for e in events if isinstance(e, ev.Spoke) and not e.reply]
        for e in starts:
            spoke += 1
            assert (e.speaker, e.listener) in came
        for e in events:
            if isinstance(e, ev.Spoke) and e.reply:
                assert any(s.speaker == e.listener and s.listener == e.speaker for s in starts)
    assert spoke > 0


def test_a_villager_starts_at_most_its_budget_a_day_and_never_twice_to_one_villager(talked):
    sc, oracle, report, path = talked
    tpd = sc.world.ticks_per_day
    starts: dict[tuple[int, int], int] = {}
    answers: dict[tuple[int, int], int] = {}
    pairs: set[tuple[int, int, int]] = set()
    for tick, events in frames(path):
        for e in events:
            if isinstance(e, ev.Spoke):
                day = tick // tpd
                used = answers if e.reply else starts
                used[(day, e.speaker)] = used.get((day, e.speaker), 0) + 1
                assert (day, e.speaker, e.listener) not in pairs
                pairs.add((day, e.speaker, e.listener))
    assert starts and max(starts.values()) <= 2
    assert max(answers.values(), default=0) <= 1


def test_a_days_talk_calls_are_at_most_the_budget_said_or_refused_and_one_a_pair(tmp_path):
    def half(ask):
        # every other utterance says a shown line back, and is refused
        if ask.purpose in ("talk", "answer") and ask.seed % 2:
            line = next(x for x in ask.prompt.decode().split("\n") if x.startswith("["))
            return json.dumps({"numbers": shown_ids(ask.prompt[ask.opening:])[:1],
                               "answer": line.split("] ", 1)[1]})
        return answer(ask)

    block = dict(TALK, starts=2, answers=1)
    sc, oracle, report, path = run(tmp_path, "half", script=half, talk=block)
    tpd = sc.world.ticks_per_day
    calls: dict[tuple[int, int, str], int] = {}
    pairs: set[tuple[int, int, int, str]] = set()
    for tick, events in frames(path):
        for e in events:
            if isinstance(e, ev.Answered) and e.purpose in ("talk", "answer"):
                key = (tick // tpd, e.villager, e.purpose)
                calls[key] = calls.get(key, 0) + 1
                assert (tick // tpd, e.villager, e.index, e.purpose) not in pairs
                pairs.add((tick // tpd, e.villager, e.index, e.purpose))
    assert [e for _, es in frames(path) for e in es
            if isinstance(e, ev.Refusal) and e.purpose == "talk"]
    assert all(n <= (block["starts"] if p == "talk" else block["answers"])
               for (_, _, p), n in calls.items())
    days = sc.ticks // tpd
    assert sum(calls.values()) <= days * len(sc.reflecting) * (block["starts"] + block["answers"])


def test_the_listener_hears_the_words_as_a_row_about_the_speaker_and_the_speaker_keeps_a_did_row(
        talked):
    sc, oracle, report, path = talked
    heard = 0
    for _tick, events, rows, _before, after in rows_of(sc, path):
        for e in events:
            if not isinstance(e, ev.Spoke):
                continue
            mine = [r for r in rows if r.villager == e.listener and r.kind == "heard"
                    and e.speaker in r.about and e.text in r.text]
            assert len(mine) == 1 and after.sees(e.listener, e.speaker)
            did = [r for r in rows if r.villager == e.speaker and r.kind == "did"
                   and r.event == "talk" and e.text in r.text and r.about == (e.listener,)]
            assert len(did) == 1
            heard += 1
    assert heard


def test_every_citation_of_an_utterance_is_a_row_of_the_speaker_no_later_than_now(talked):
    sc, oracle, report, path = talked
    owner: dict[int, tuple[int, int]] = {}
    for tick, events, rows, _before, _after in rows_of(sc, path):
        # the rows of this tick before the talk's own are the ones an utterance may cite
        for r in rows:
            owner[r.id] = (r.villager, r.tick)
        for e in events:
            if isinstance(e, ev.Spoke):
                assert e.drawn_from
                for i in e.drawn_from:
                    assert owner[i][0] == e.speaker and owner[i][1] <= tick


def test_each_talk_call_has_its_answer_in_the_log_and_its_refusal_or_its_words(talked):
    sc, oracle, report, path = talked
    asked = [a for a in oracle.asked if a.purpose in ("talk", "answer")]
    logged = [e for _, es in frames(path) for e in es
              if isinstance(e, ev.Answered) and e.purpose in ("talk", "answer")]
    assert len(asked) == len(logged) == sum(t.calls for t in report.talks)
    spoken = [e for _, es in frames(path) for e in es if isinstance(e, ev.Spoke)]
    assert len(spoken) == sum(t.counts["accepted"] for t in report.talks)


def test_given_rows_are_written_at_the_founding_and_are_rows_of_their_own_kind(talked):
    sc, oracle, report, path = talked
    got = [(t, e) for t, es in frames(path) for e in es if isinstance(e, ev.Given)]
    halla = next(p for p in sc.world.people if p.name == "Halla")
    assert [(e.villager, e.event, e.news, e.words, (e.x, e.y), e.day) for _, e in got
            if e.villager == halla.id] == [(halla.id, "news", "feast", ("feast",), (3, 3), 1)]
    rows = [r for _, _, rs, _, _ in rows_of(sc, path) for r in rs if r.kind == "given"]
    assert len(rows) == len(got) == 2
    assert all(r.tick == halla.founded for r in rows)


def test_a_given_row_is_never_forgotten_nor_absorbed(talked):
    sc, oracle, report, path = talked
    given = {r.id for _, _, rs, _, _ in rows_of(sc, path) for r in rs if r.kind == "given"}
    for _, es in frames(path):
        for e in es:
            if isinstance(e, ev.Forgotten):
                assert e.id not in given
            if isinstance(e, ev.Absorbed):
                assert not set(e.absorbed) & given


def test_the_talk_prompt_shows_first_what_the_speaker_holds_about_the_listener(talked):
    sc, oracle, report, path = talked
    for t in report.talks:
        for u in t.utterances:
            about = [r for r in u.shown[:u.recalled]]
            assert all(u.listener in r.about for r in about)
            # in the order given, its lived rows and then its thoughts, each a list of its own
            assert shown_ids(u.prompt.bytes[u.prompt.opening:]) == (
                [r.id for r in u.shown if not r.is_thought] +
                [r.id for r in u.shown if r.is_thought])


def test_a_restatement_of_a_shown_line_is_refused_and_nothing_is_said(tmp_path):
    def parrot(ask):
        if ask.purpose in ("talk", "answer"):
            line = ask.prompt.decode().split("\n")
            first = next(x for x in line if x.startswith("["))
            return json.dumps({"numbers": shown_ids(ask.prompt[ask.opening:])[:1],
                               "answer": first.split("] ", 1)[1]})
        return answer(ask)

    sc, oracle, report, path = run(tmp_path, "parrot", script=parrot, talk=TALK, days=1)
    refused = [e for _, es in frames(path) for e in es
               if isinstance(e, ev.Refusal) and e.purpose == "talk"]
    assert refused and {e.check for e in refused} == {"restates"}
    assert not [e for _, es in frames(path) for e in es if isinstance(e, ev.Spoke)]


def test_a_citation_of_a_row_the_speaker_does_not_have_is_refused(tmp_path):
    def stranger(ask):
        if ask.purpose in ("talk", "answer"):
            return json.dumps({"numbers": [999_999], "answer": "I remember the old days well"})
        return answer(ask)

    sc, oracle, report, path = run(tmp_path, "stranger", script=stranger, talk=TALK, days=1)
    refused = [e for _, es in frames(path) for e in es
               if isinstance(e, ev.Refusal) and e.purpose == "talk"]
    assert refused and all(e.check == "cites" for e in refused)
    assert "999999 is not one this villager has" in refused[0].reason


def test_a_run_without_a_talk_block_asks_nothing_of_talk_and_says_nothing(tmp_path):
    sc, oracle, report, path = run(tmp_path, "quiet", days=1, words=True)
    assert not report.talks
    assert not [a for a in oracle.asked if a.purpose in ("talk", "answer")]
    assert not [e for _, es in frames(path) for e in es if isinstance(e, ev.Spoke)]
    # and the talk template is not in its digests: its header is a run's that never talked
    assert "talk" not in dict(sc.settings.digests)


def test_a_talk_block_puts_the_talk_template_in_the_runs_digests(tmp_path):
    sc = msc.load(make(tmp_path / "t", talk=TALK))
    assert "talk" in dict(sc.settings.digests)


def test_a_scenario_that_talks_needs_its_importance_table_to_weigh_words(tmp_path):
    with pytest.raises(ConfigError, match=r"talk block.*base weight for a did talk row"):
        msc.load(make(tmp_path / "t", talk=TALK, words=False))


def test_a_scenario_that_gives_rows_needs_its_importance_table_to_weigh_them(tmp_path):
    with pytest.raises(ConfigError, match=r"Halla's given news.*given news row"):
        msc.load(make(tmp_path / "g", given=GIVEN, words=False))


def test_a_given_row_about_a_villager_the_world_lacks_is_one_line(tmp_path):
    bad = {"Halla": [{"text": "Gorm is your friend", "about": ["Gorm"]}]}
    with pytest.raises(ConfigError, match=r"given\[0\] is about 'Gorm', and no villager"):
        msc.load(make(tmp_path / "b", given=bad))


def test_an_utterance_that_says_a_sentence_of_its_own_prompt_back_is_refused(tmp_path):
    def echo(ask):
        if ask.purpose in ("talk", "answer"):
            first = ask.prompt.decode().split("\n")[0].split(". ")[0]
            return json.dumps({"numbers": shown_ids(ask.prompt[ask.opening:])[:1], "answer": first})
        return answer(ask)

    sc, oracle, report, path = run(tmp_path, "echo", script=echo, talk=TALK, days=1)
    refused = [e for _, es in frames(path) for e in es
               if isinstance(e, ev.Refusal) and e.purpose == "talk"]
    assert refused and {e.reason for e in refused} == {
        "a sentence of its prompt said back, not an utterance"}


def _gossip(ask):
    if ask.purpose in ("talk", "answer"):
        return json.dumps({"numbers": shown_ids(ask.prompt[ask.opening:])[:1],
                           "answer": "Halla, Ander and Mose ate together"})
    return answer(ask)


def _run_grounded(tmp_path, name, grounded):
    """A day of talk under the shipped thought file with `grounded` set (None: left out)."""
    folder = make(tmp_path / name, talk=TALK, days=1)
    thought = json.loads((folder / "thought.json").read_text())
    thought.pop("grounded", None)
    if grounded is not None:
        thought["grounded"] = grounded
    (folder / "thought.json").write_text(json.dumps(thought))
    sc = msc.load(folder)
    engine.run(sc, ScriptedOracle([_gossip] * 10_000, dim=64), tmp_path / f"{name}.log",
               projections=[])
    return sc, [e for _, es in frames(tmp_path / f"{name}.log") for e in es]


def test_under_grounded_settings_an_utterance_naming_a_villager_no_cited_row_names_is_refused(
        tmp_path):
    sc, events = _run_grounded(tmp_path, "gossip", True)
    assert sc.settings.grounded
    refused = [e for e in events if isinstance(e, ev.Refusal) and e.purpose in ("talk", "answer")]
    assert refused and {e.check for e in refused} == {"ungrounded"}
    for e in refused:
        third = e.reason.split(" ", 1)[0]
        assert third in ("Halla", "Ander", "Mose")
        assert e.reason == (f"{third} is named, and is not the speaker, nor the listener, nor "
                            f"named in a cited line")
    # where the settings leave the key out, the same words are said
    sc, events = _run_grounded(tmp_path, "loose", None)
    assert not sc.settings.grounded
    assert not [e for e in events if isinstance(e, ev.Refusal) and e.purpose == "talk"]
    assert [e for e in events if isinstance(e, ev.Spoke)]
