"""Memory rows case by case: their wording, the importance table, and thoughts in the fold."""

from __future__ import annotations

import json

import pytest
from folded_rows import fold, lines

from kernel import config as configs
from kernel import engine, world
from kernel import events as ev
from kernel.errors import ConfigError
from kernel.laws.importance import Importance
from kernel.laws.perception import (
    Perception,
    PerceptionError,
    cells,
    grams,
    perceive,
    start,
)

RULES = engine.load_rules()
HALLA, ANDER, MOSE = 1, 2, 3


def had_first(state: Perception, villager: int, kind: str, event: str) -> bool:
    """Whether the fold has seen a row of this kind and event of `villager`'s (no first bonus due)."""
    return (kind, event) in state.firsts.get(villager, frozenset())


def thought_weight_for(state: Perception, villager: int) -> int:
    """What `villager`'s next thought weighs, by the table's thought row and the fold's firsts."""
    return state.rules.thought().weigh(not had_first(state, villager, "thought", "reflection"))


def founded() -> list[ev.Event]:
    return [ev.Founded(villager=HALLA, name="Halla", x=8, y=5),
            ev.Founded(villager=ANDER, name="Ander", x=9, y=4),
            ev.Founded(villager=MOSE, name="Mose", x=6, y=6)]


def all_see() -> list[ev.Event]:
    return [ev.CameIntoSight(viewer=a, seen=b, millicells=800)
            for a in (1, 2, 3) for b in (1, 2, 3) if a != b]


def test_grams_and_cells_have_one_decimal_from_integers():
    assert grams(25_000) == "25.0 grams" and grams(23_450) == "23.5 grams"
    assert grams(9_300) == "9.3 grams" and grams(0) == "0.0 grams"
    assert cells(800) == "0.8 cells" and cells(2_449) == "2.4 cells"


def test_a_meal_is_one_row_per_run_of_up_to_50_mouthfuls():
    frames = [(0, founded())]
    frames += [(t, [ev.Ate(villager=HALLA, x=9, y=3, mouthfuls=1, milligrams=500)])
               for t in range(1, 78)]
    frames += [(78, [])]
    _, rows = fold(frames)
    assert lines(rows, HALLA)[1:] == ["ate 50 mouthfuls on 9,3, 25.0 grams",
                                      "ate 27 mouthfuls on 9,3, 13.5 grams"]
    meal = [m for m in rows if m.event == "meal"]
    assert [m.tick for m in meal] == [50, 78]  # remembered when the run filled, and when it stopped


def test_a_journey_is_one_row_from_where_it_began_to_where_it_stopped():
    steps = [(8, 5, 9, 4), (9, 4, 9, 3)]
    frames = [(0, founded())]
    frames += [(t + 1, [ev.Walked(villager=HALLA, from_x=a, from_y=b, to_x=c, to_y=d)])
               for t, (a, b, c, d) in enumerate(steps)]
    frames += [(3, [])]
    _, rows = fold(frames)
    assert lines(rows, HALLA)[1:] == ["went from 8,5 to 9,3"]


def test_gifts_and_takes_read_as_the_giver_the_receiver_and_a_witness_would_say_them():
    frames = [(0, founded() + all_see()),
              (1, [ev.Gave(giver=HALLA, receiver=ANDER, parcels=50, milligrams=25_000)]),
              (2, [ev.Took(taker=ANDER, owner=HALLA, parcels=40, milligrams=20_000)])]
    _, rows = fold(frames)
    assert lines(rows, HALLA)[-2:] == ["handed Ander 50 parcels, 25.0 grams",
                                       "Ander took 40 parcels out of Halla's hands, 20.0 grams"]
    assert lines(rows, ANDER)[-2:] == ["Halla handed Ander 50 parcels, 25.0 grams",
                                       "took 40 parcels out of Halla's hands, 20.0 grams"]
    assert lines(rows, MOSE)[-2:] == ["Halla handed Ander 50 parcels, 25.0 grams",
                                      "Ander took 40 parcels out of Halla's hands, 20.0 grams"]
    taken = [m for m in rows if m.villager == HALLA and m.event == "take"][0]
    assert (taken.kind, taken.about) == ("saw", (HALLA, ANDER))
    gift = [m for m in rows if m.villager == HALLA and m.event == "gift"][0]
    assert (gift.kind, gift.about) == ("did", (ANDER,))


def test_sightings_partings_and_pleas_are_about_the_one_seen_or_heard():
    frames = [(0, founded() + all_see()),
              (1, [ev.Begged(villager=MOSE, x=6, y=6)]),
              (2, [ev.WentOutOfSight(viewer=HALLA, seen=MOSE)])]
    _, rows = fold(frames)
    halla = [(m.kind, m.event, m.text, m.about) for m in rows if m.villager == HALLA]
    assert halla[1:] == [
        ("saw", "sighting", "Ander came into sight, 0.8 cells off", (ANDER,)),
        ("saw", "sighting", "Mose came into sight, 0.8 cells off", (MOSE,)),
        ("heard", "plea", "heard Mose ask for food", (MOSE,)),
        ("saw", "parting", "Mose went out of sight", (MOSE,)),
    ]
    assert lines(rows, MOSE)[-1] == "asked for food on 6,6"


def test_nobody_hears_or_sees_what_happens_out_of_their_sight():
    frames = [(0, founded() + [ev.CameIntoSight(viewer=ANDER, seen=MOSE, millicells=900)]),
              (1, [ev.Begged(villager=MOSE, x=6, y=6),
                   ev.Gave(giver=ANDER, receiver=MOSE, parcels=5, milligrams=2_500)])]
    _, rows = fold(frames)
    assert [m.text for m in rows if m.villager == HALLA] == ["came to live on 8,5"]


def test_the_shipped_table_weighs_rows_as_the_seed_does():
    # a first gift of 25 g weighs 3 + 2 + 2; a later one of 8.5 g weighs 3 + 1
    assert RULES.weigh("did", "gift", first=True, milligrams=25_000) == 7
    assert RULES.weigh("did", "gift", first=False, milligrams=8_500) == 4
    assert RULES.weigh("did", "meal", first=False, milligrams=25_000) == 3
    assert RULES.weigh("did", "meal", first=False, milligrams=4_000) == 1
    assert RULES.weigh("saw", "sighting", first=True) == 4
    assert RULES.weigh("saw", "sighting", first=False) == 2
    assert RULES.base_of("did", "walk") == 1 and RULES.base_of("saw", "take") == 4


def test_a_thought_weighs_4_and_a_lifes_first_weighs_6():
    assert RULES.thought().weigh(True) == 6 and RULES.thought().weigh(False) == 4
    t = RULES.thought()
    assert (t.base, t.first_bonus) == (4, 2)


def test_weights_clamp_at_10():
    table = Importance.from_value({**configs.thaw(configs.load("importance").value),
                                   "first_bonus": 9})
    assert table.weigh("saw", "take", first=True, milligrams=10**6) == 10


def test_a_thought_event_becomes_a_thought_row_with_the_next_id():
    state, rows = fold([(0, founded() + all_see())])
    n = state.next_id
    assert thought_weight_for(state, HALLA) == 6
    t = ev.Thought(id=n, villager=HALLA, text="Ander is close by.", weight=6, depth=1,
                   about=(ANDER,), drawn_from=(4, 5))
    state, got = perceive(state, 1999, [t])
    (m,) = got
    assert (m.id, m.villager, m.tick, m.kind, m.event, m.text, m.weight, m.about, m.drawn_from) == (
        n, HALLA, 1999, "thought", "reflection", "Ander is close by.", 6, (ANDER,), (4, 5))
    assert had_first(state, HALLA, "thought", "reflection")
    assert thought_weight_for(state, HALLA) == 4 and thought_weight_for(state, ANDER) == 6
    assert state.next_id == n + 1


def test_a_thought_with_the_wrong_id_is_refused_naming_both():
    state, _ = fold([(0, founded())])
    n = state.next_id
    bad = ev.Thought(id=n + 5, villager=HALLA, text="x", weight=4, depth=1, about=(), drawn_from=(1,))
    with pytest.raises(PerceptionError, match=fr"thought {n + 5} .* the next memory id is {n}"):
        perceive(state, 5, [bad])


def test_frames_must_come_in_tick_order():
    state, _ = fold([(3, founded())])
    with pytest.raises(PerceptionError, match="tick 3 follows tick 3"):
        perceive(state, 3, [])


def test_an_importance_table_missing_a_row_is_refused_by_its_schema(tmp_path):
    value = configs.thaw(configs.load("importance").value)
    del value["base"]["did"]["meal"]
    p = tmp_path / "importance.json"
    p.write_text(json.dumps(value))
    with pytest.raises(ConfigError, match=r"\$\.base\.did: 'meal' is a required property"):
        engine.load_rules(p)


def test_a_day_gives_each_villager_between_20_and_60_rows():
    cfg = world.load()
    state = start(RULES)
    counts = {p.id: 0 for p in cfg.people}
    for fr in engine.world_frames(cfg, cfg.ticks_per_day):
        state, rows = perceive(state, fr.tick, fr.events)
        for m in rows:
            counts[m.villager] += 1
    assert all(20 <= n <= 60 for n in counts.values()), counts
