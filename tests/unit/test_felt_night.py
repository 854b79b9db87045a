"""Felt memory in a run: every felt event kind produced with a scripted oracle, and the
felt projection folded from the log equal to the state the live run held."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from felt_scenario import answer, make

from kernel import engine
from kernel import events as ev
from kernel.engine import scenario as msc
from kernel.engine.felt import FeltProjection, felt_of
from kernel.log import read_ticks
from kernel.testing import ScriptedOracle


def run(tmp_path, name="felt", **kw):
    answers = kw.pop("answers", None)
    sc = msc.load(make(tmp_path / name, **kw))
    oracle = ScriptedOracle([answers or answer] * 10_000, dim=64)
    felt = felt_of(sc)
    report = engine.run(sc, oracle, tmp_path / f"{name}.log", projections=[])
    return sc, oracle, report, tmp_path / f"{name}.log", felt


def kinds(path) -> Counter:
    return Counter(e.kind for t in read_ticks(path) for e in t.events)


def fold_felt(sc, path) -> FeltProjection:
    mem = engine.MemoryProjection(sc.rules)
    felt = felt_of(sc).follow(mem)
    engine.fold(path, [mem, felt])
    return felt


@pytest.fixture(scope="module")
def three_days(tmp_path_factory):
    return run(tmp_path_factory.mktemp("felt"))


def test_a_night_falls_at_each_days_last_tick_for_each_villager_who_reflects(three_days):
    sc, oracle, report, path, _ = three_days
    assert [n.now for n in report.nights] == [199, 399, 599]
    assert all(n.villagers == (1, 2, 3) for n in report.nights)
    nights = [a for a in oracle.asked if a.purpose == "night"]
    assert {a.seed for a in nights} <= {t + v for t in (199, 399, 599) for v in (1, 2, 3)}
    assert nights and {a.temperature for a in nights} == {0.0}
    assert {a.limit for a in nights} == {192}


def test_a_weight_one_row_is_forgotten_after_a_day_and_a_thought_never(three_days):
    sc, _, report, path, _ = three_days
    got = kinds(path)
    assert got["forgotten"] > 0
    felt = fold_felt(sc, path)
    for r in felt.rows.values():
        if r.is_thought:
            assert r.forgotten_at is None and r.absorbed_into is None
        if r.forgotten_at is not None:
            assert r.forgotten_at - r.last_felt >= sc.world.ticks_per_day


def test_an_accepted_group_absorbs_its_members_into_an_anchor_at_their_combined_strength(
        three_days):
    from kernel.laws import felt as lf
    sc, _, report, path, _ = three_days
    absorbed = [e for t in read_ticks(path) for e in t.events if isinstance(e, ev.Absorbed)]
    refused = [e for t in read_ticks(path) for e in t.events
               if isinstance(e, ev.Refusal) and e.purpose == "night"]
    assert absorbed or refused
    felt = fold_felt(sc, path)
    for e in absorbed:
        for a in e.absorbed:
            assert felt.rows[a].absorbed_into == e.anchor
        assert e.stored >= e.before >= 400
    for n in report.nights:
        for p in n.plans:
            for g in p.groups:
                if g.ok:
                    assert g.stored == lf.combined([g.before, *(s for _, s in g.members)])
                    assert all(s <= g.before for _, s in g.members)


def test_folding_the_log_gives_the_felt_state_the_live_run_held(tmp_path):
    sc = msc.load(make(tmp_path / "live"))
    held = {}

    def grab(en, ts, so_far):
        held.setdefault("engine", en)
        return ()

    engine.run(sc, ScriptedOracle([answer] * 10_000, dim=64), tmp_path / "live.log",
               phases=(("grab", grab), *engine.FEATURES))
    live = held["engine"].books["felt"].snapshot()
    folded = fold_felt(sc, tmp_path / "live.log")
    assert folded.snapshot() == live
    assert fold_felt(sc, tmp_path / "live.log").snapshot() == live


def test_a_group_that_fails_a_check_is_refused_whole_and_the_others_stand(tmp_path):
    def plan(ask, ids):
        return json.dumps({"groups": [
            {"anchor": 999_999, "absorbed": ids[:1]},          # not shown
            {"anchor": ids[0], "absorbed": [ids[1], ids[1]]},  # given twice
            {"anchor": ids[0], "absorbed": ids[1:2]},
            {"anchor": ids[1], "absorbed": ids[:1]},           # claimed, where the group before stood
        ]})

    sc, _, report, path, _ = run(tmp_path, answers=lambda a: answer(a, plan=plan), days=2)
    checks = Counter(g.check for n in report.nights for p in n.plans for g in p.groups)
    assert checks["shown"] >= 1 and checks["distinct"] >= 1
    refusals = [e for t in read_ticks(path) for e in t.events
                if isinstance(e, ev.Refusal) and e.purpose == "night"]
    assert {e.check for e in refusals} <= {"shown", "distinct", "claimed", "anchor", "stronger",
                                           "living"}
    assert any("was not shown tonight" in e.reason for e in refusals)


def test_a_plan_that_is_not_the_shape_asked_for_is_refused_and_forgetting_still_runs(tmp_path):
    sc, _, report, path, _ = run(tmp_path, answers=lambda a: answer(
        a, plan=lambda ask, ids: "{\"groups\": [ {\"anchor\": 1}"), days=2)
    got = kinds(path)
    refusals = [e for t in read_ticks(path) for e in t.events
                if isinstance(e, ev.Refusal) and e.purpose == "night"]
    assert refusals and {e.check for e in refusals} == {"shaped"}
    assert got["forgotten"] > 0 and got["absorbed"] == 0


def test_no_night_block_no_night_and_no_night_call(tmp_path):
    sc, oracle, report, path, _ = run(tmp_path, night=None, days=2)
    assert report.nights == []
    assert not any(a.purpose == "night" for a in oracle.asked)
    assert not {"forgotten", "absorbed"} & set(kinds(path))


def test_a_world_run_has_no_night(tmp_path):
    sc = msc.load(make(tmp_path / "w", reflecting=()))
    report = engine.run(sc, None, tmp_path / "w.log")
    assert report.nights == []


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The small felt scenario recorded with a scripted oracle, as `make record` records one."""
    from kernel.oracle.record import RecordingOracle

    d = tmp_path_factory.mktemp("rec")
    folder = make(d / "felt-rec")
    raw = json.loads((folder / "scenario.json").read_text())
    raw["exemplars"] = str(d / "felt-rec.json")
    (folder / "scenario.json").write_text(json.dumps(raw))
    sc = msc.load(folder)
    oracle = RecordingOracle(ScriptedOracle([answer] * 10_000, dim=64), d / "felt-rec.json")
    rep = engine.run(sc, oracle, d / "rec.log")
    oracle.save()
    msc.write_digest(sc, rep.head_hex, recorded_with={"backend": "scripted", "models": {}})
    return msc.load(folder), d / "rec.log"


def test_the_night_mode_shows_each_nights_plan_checks_and_rows(recorded):
    from click.testing import CliRunner

    from kernel.cli import main
    sc, _ = recorded
    res = CliRunner().invoke(main, ["reflect", "night", str(sc.folder)])
    assert res.exit_code == 0, res.output
    assert "night of day 1, tick 199" in res.output and "rows forgotten at tick" in res.output
    assert "the whole run:" in res.output
    res = CliRunner().invoke(main, ["reflect", "night", "--who", "Ander", "--day", "2",
                                           str(sc.folder)])
    assert res.exit_code == 0 and "night of day 2" in res.output and "day 1" not in res.output
    res = CliRunner().invoke(main, ["reflect", "night", "--day", "9", str(sc.folder)])
    assert res.exit_code == 1 and "no night on day 9" in res.output


def test_the_felt_mode_shows_a_villagers_rows_with_their_strengths(recorded):
    from click.testing import CliRunner

    from kernel.cli import main
    sc, _ = recorded
    res = CliRunner().invoke(main, ["reflect", "felt", "--who", "halla", str(sc.folder)])
    assert res.exit_code == 0, res.output
    assert "Halla's" in res.output and "forgotten at" in res.output
    res = CliRunner().invoke(main, ["reflect", "felt", "--who", "Halla", "--tick", "150",
                                           str(sc.folder)])
    assert res.exit_code == 0 and "at tick 150" in res.output and "forgotten at" not in res.output
    first = sc.reflecting[0]
    res = CliRunner().invoke(main, ["reflect", "felt", str(sc.folder)])
    assert res.exit_code == 0, res.output
    assert f"{first.capitalize()}'s" in res.output and "forgotten at" in res.output


def test_the_felt_view_shows_each_rows_felt_state_in_sql(recorded, tmp_path):
    from kernel import store
    from kernel.engine.felt import felt_of

    sc, log = recorded
    felt = felt_of(sc)
    res = store.build(log, tmp_path / "i.duckdb", rules=sc.rules, valences=felt.valences,
                      ticks_per_day=sc.world.ticks_per_day)
    q = store.query(res.db_path, "SELECT count(*), count(forgotten_at), count(absorbed_into), "
                                 "min(felt_now), max(stored), sum(refelt_count) FROM felt")
    (n, forgotten, absorbed, low, high, _refelt), = q.rows
    assert n == res.memory_rows
    folded = fold_felt(sc, log)
    assert forgotten == sum(1 for r in folded.rows.values() if r.forgotten_at is not None) > 0
    assert absorbed == sum(1 for r in folded.rows.values() if r.absorbed_into is not None)
    assert 0 <= low and high <= 1
    cols = store.query(res.db_path, "SELECT * FROM felt LIMIT 1").columns
    assert list(cols) == ["villager", "id", "tick", "kind", "text", "intensity", "valence",
                          "stored", "last_felt", "felt_now", "forgotten_at", "absorbed_into",
                          "refelt_count"]


def events_of(path, cls):
    return [(t.tick, e) for t in read_ticks(path) for e in t.events if isinstance(e, cls)]


def test_a_written_thought_re_feels_the_rows_it_cites_whose_feeling_agrees(three_days):
    from kernel.laws import felt as lf
    sc, _, report, path, _ = three_days
    refelt = events_of(path, ev.Refelt)
    assert refelt
    thoughts = {e.id: (t, e) for t, e in events_of(path, ev.Thought)}
    felt = fold_felt(sc, path)
    for t, e in refelt:
        tick, th = thoughts[e.by]
        assert tick == t and e.id in th.drawn_from
        assert lf.agree(felt.rows[e.id].valence, felt.rows[th.id].valence)
        # never past what the thought is felt at, and a stronger row keeps its strength
        assert e.stored == lf.reconsolidate(e.fallen, th.weight * 100)
        assert e.stored >= e.fallen and (e.stored <= th.weight * 100 or e.stored == e.fallen)
    for _, th in thoughts.values():
        for c in th.drawn_from:
            if not lf.agree(felt.rows[c].valence, felt.rows[th.id].valence):
                assert not any(e.by == th.id and e.id == c for _, e in refelt)


def test_a_statement_said_again_recurs_as_the_earlier_thought_and_ids_stay_dense(tmp_path):
    def same(ask, ids):
        return json.dumps({"answer": "The day felt full of food", "numbers": ids[:1]})

    sc, oracle, report, path, _ = run(tmp_path, answers=lambda a: answer(a, statement=same))
    recurred = events_of(path, ev.Recurred)
    thoughts = events_of(path, ev.Thought)
    # one thought per villager, written at its first question; every later statement recurs
    assert sorted(e.villager for _, e in thoughts) == [1, 2, 3]
    accepted = sum(1 for r in report.rounds for x in r.reflections for s in x.statements
                   if s.verdict is not None and s.verdict.ok)
    assert recurred and len(recurred) == accepted - 3
    first = {e.villager: e.id for _, e in thoughts}
    assert all(e.id == first[e.villager] for _, e in recurred)
    folded = fold_felt(sc, path)
    mem = engine.memory_of(path, rules=sc.rules)
    assert [m.id for m in mem.rows] == list(range(1, len(mem.rows) + 1))
    for _, e in recurred:
        assert e.stored >= e.fallen
    for v, i in first.items():
        assert folded.rows[i].refelt == sum(1 for _, e in recurred if e.villager == v)
    # each round's accepted statements were embedded in one call, before any was written
    said = [texts for _, texts in oracle.embedded
            if texts and set(texts) == {"The day felt full of food"}]
    assert sum(len(t) for t in said) == accepted and len(said) <= 3


def test_a_statement_saying_a_shown_thought_again_is_that_thought_recurring_not_a_restatement(
        tmp_path):
    def same(ask, ids):
        return json.dumps({"answer": "The day felt full of food", "numbers": ids[:1]})

    sc, oracle, report, path, _ = run(tmp_path, answers=lambda a: answer(a, statement=same))
    shown = [s for r in report.rounds for x in r.reflections for s in x.statements
             if b"] The day felt full of food\n" in s.prompt.bytes[s.prompt.opening:]]
    assert shown, "the test needs a statement whose prompt showed the thought"
    assert all(s.refused is None and s.recurred is not None for s in shown)
    assert not [e for _, e in events_of(path, ev.Refusal) if e.check == "restates"]


def test_a_citation_of_a_forgotten_or_absorbed_row_is_refused_with_when(tmp_path):
    sc, _, report, path, _ = run(tmp_path / "first")
    forgotten = {e.id: (t, e.villager) for t, e in events_of(path, ev.Forgotten) if t == 399}
    absorbed = {a: (t, e.anchor, e.villager) for t, e in events_of(path, ev.Absorbed)
                if t == 399 for a in e.absorbed}
    halla_f = min(i for i, (_, v) in forgotten.items() if v == 1)
    halla_a = min(i for i, (_, _, v) in absorbed.items() if v == 1)

    def cite_gone(ask, ids):
        if ask.seed == 599 + 1:   # Halla's third day: one statement each way
            gone = halla_f if b"What mattered" in ask.prompt else halla_a
            return json.dumps({"answer": "I remember what I lost", "numbers": [gone]})
        return answer(ask)

    sc2, _, _, path2, _ = run(tmp_path / "second", answers=lambda a: answer(
        a, statement=lambda ask, ids: cite_gone(ask, ids)))
    reasons = [e.reason for t, e in events_of(path2, ev.Refusal)
               if e.purpose == "statement" and e.villager == 1 and t == 599]
    assert f"memory {halla_f} was forgotten at tick 399" in reasons
    assert (f"memory {halla_a} was absorbed into memory {absorbed[halla_a][1]} at tick 399"
            in reasons)


def test_a_row_that_left_memory_is_in_no_window_and_no_ranking(three_days):
    sc, _, report, path, _ = three_days
    felt = fold_felt(sc, path)
    for rnd in report.rounds:
        for r in rnd.reflections:
            shown = [m.id for m in r.window] + [x.memory.id for s in r.statements
                                                 for x in s.ranked]
            for i in shown:
                row = felt.rows[i]
                assert row.forgotten_at is None or row.forgotten_at >= rnd.now
                assert row.absorbed_at is None or row.absorbed_at >= rnd.now


def test_the_index_and_sql_commands_read_the_valences_of_the_table_they_are_given(recorded,
                                                                                  tmp_path):
    from click.testing import CliRunner

    from kernel.cli import main
    sc, log = recorded
    imp = str(sc.folder / "importance.json")
    db = tmp_path / "felt.duckdb"
    res = CliRunner().invoke(main, ["index", str(log), "--out", str(db), "--importance", imp])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["sql", str(log), "--importance", imp,
                                    "SELECT count(*) AS n, count(forgotten_at) AS f FROM felt"])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    row = lines[lines.index(next(x for x in lines if x.split()[:2] == ["n", "f"])) + 1:]
    n, f = (int(x) for x in next(x for x in row if x.split()[0].isdigit()).split())
    assert n > 0 and f > 0


# -- where the night's and the round's pieces live ----------------------------------


def test_the_round_and_the_night_build_their_asks_through_one_module(tmp_path, monkeypatch):
    import ast
    from pathlib import Path

    import kernel.mind
    from kernel.mind import calls
    for name in ("reflect.py", "night.py"):
        tree = ast.parse((Path(kernel.mind.__path__[0]) / name).read_text())
        built = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]
        assert not {"Ask", "ev.Ask", "ev.Answered", "ev.Refusal"} & set(built), name
    through: Counter = Counter()

    def counting(name):
        made = getattr(calls, name)

        def counted(*a, **kw):
            through[name] += 1
            return made(*a, **kw)
        return counted

    for name in ("ask", "answered", "refusal"):
        monkeypatch.setattr(calls, name, counting(name))
    _, oracle, report, path, _ = run(tmp_path, answers=lambda a: answer(
        a, plan=lambda ask, ids: "{\"groups\": [ {\"anchor\": 1}"), days=2)
    got = kinds(path)
    assert {a.purpose for a in oracle.asked} == {"questions", "statement", "night"}
    assert through["ask"] == len(oracle.asked) == got["answered"] == through["answered"]
    assert got["refusal"] == through["refusal"] > 0


def test_a_refusal_of_the_night_is_a_check_and_a_reason_never_a_string_split_apart(tmp_path):
    from kernel.mind.calls import Rejection

    def plan(ask, ids):
        return json.dumps({"groups": [{"anchor": 999_999, "absorbed": ids[:1]},
                                      {"anchor": ids[0], "absorbed": [ids[1], ids[1]]}]})

    _, _, report, path, _ = run(tmp_path, answers=lambda a: answer(a, plan=plan), days=2)
    refusals = [e for t in read_ticks(path) for e in t.events
                if isinstance(e, ev.Refusal) and e.purpose == "night"]
    groups = [g for n in report.nights for p in n.plans for g in p.groups]
    assert refusals and [g.refused for g in groups if not g.ok] == [
        Rejection(e.check, e.reason) for e in refusals]
    assert all((g.check, g.reason) == (g.refused.check, g.refused.reason) for g in groups
               if not g.ok)
    _, _, whole, path2, _ = run(tmp_path, name="whole", answers=lambda a: answer(
        a, plan=lambda ask, ids: "{\"groups\": [ {\"anchor\": 1}"), days=2)
    plans = [p for n in whole.nights for p in n.plans]
    shown = [e for t in read_ticks(path2) for e in t.events
             if isinstance(e, ev.Refusal) and e.purpose == "night"]
    assert [p.refused for p in plans] == [Rejection("shaped", e.reason) for e in shown]
    assert str(plans[0].refused) == f"shaped: {shown[0].reason}"


def test_the_engines_felt_projection_is_the_minds_felt_book_following_the_log():
    from kernel.mind.felt import FeltBook, FeltRow, FeltState
    assert issubclass(FeltProjection, FeltBook)
    assert {c.__module__ for c in (FeltBook, FeltRow, FeltState)} == {"kernel.mind.felt"}


def test_a_nights_plans_are_asked_as_one_round_of_many_asks_like_every_other_round(tmp_path):
    batches: list[list[str]] = []

    class Rounds(ScriptedOracle):
        def _generate_many(self, asks):
            batches.append([a.purpose for a in asks])
            return super()._generate_many(asks)

    sc = msc.load(make(tmp_path / "felt"))
    oracle = Rounds([answer] * 10_000, dim=64)
    engine.run(sc, oracle, tmp_path / "felt.log", projections=[])
    nights = [b for b in batches if "night" in b]
    asked = [a.purpose for a in oracle.asked].count("night")
    assert asked > 0 and sum(len(b) for b in nights) == asked
    assert all(set(b) == {"night"} for b in nights)          # a round of its own
    assert any(len(b) > 1 for b in nights)                   # more than one villager a night
    assert len(nights) == len({e.tick for e in _nights(tmp_path / "felt.log")})


def _nights(path):
    return [t for t in read_ticks(path) if any(e.kind == "answered" and e.purpose == "night"
                                               for e in t.events)]
