"""Worked cases of the basins' current rules and of the proposed single rule."""

from __future__ import annotations

import math

import pytest

from kernel import laws
from kernel.laws import BasinsUpdate, BasinUpdate, LawError, NewBasin


def seeded():
    return laws.seed_basins(["Systems", "Music", "Cooking"])


def test_seeded_basins_start_level_at_one_half():
    s = seeded()
    assert [b.slug for b in s.basins] == ["systems", "music", "cooking"]
    assert s.weights == (0.5, 0.5, 0.5)
    assert laws.entropy(s) == 1.0


def test_a_touched_basin_moves_by_its_delta_clamped_to_three_tenths_and_untouched_ones_relax():
    s = laws.update_basins(seeded(), BasinsUpdate(basins=(BasinUpdate("systems", 0.9),)))
    assert s.basin("systems").weight == pytest.approx(0.8)
    assert s.basin("music").weight == pytest.approx(0.5 + (0.3 - 0.5) * 0.05)
    assert s.basin("systems").conversations == 1
    assert s.basin("systems").last_active == 1


def test_a_basin_listed_with_a_zero_or_negative_delta_does_not_relax_and_is_not_counted_as_used():
    s = laws.update_basins(
        seeded(), BasinsUpdate(basins=(BasinUpdate("music", 0.0), BasinUpdate("cooking", -0.1)))
    )
    assert s.basin("music").weight == 0.5
    assert s.basin("cooking").weight == pytest.approx(0.4)
    assert s.basin("music").conversations == 0 and s.basin("music").last_active is None


def test_a_weight_never_leaves_five_hundredths_to_one():
    s = seeded()
    for _ in range(10):
        s = laws.update_basins(
            s, BasinsUpdate(basins=(BasinUpdate("systems", 0.3), BasinUpdate("music", -0.3)))
        )
    assert s.basin("systems").weight == 1.0
    assert s.basin("music").weight == 0.05


def test_the_untouched_gap_halves_in_about_13_5_updates():
    s = seeded()
    gaps = []
    for _ in range(20):
        s = laws.update_basins(s, BasinsUpdate())
        gaps.append(s.basin("music").weight - 0.3)
    first_half = next(n for n, g in enumerate(gaps, 1) if g <= 0.1)
    assert first_half == 14
    assert gaps[12] > 0.1
    assert math.log(0.5) / math.log(0.95) == pytest.approx(13.5, abs=0.02)


def test_a_new_basin_joins_at_four_tenths_and_an_existing_slug_is_not_added_again():
    s = laws.update_basins(
        seeded(), BasinsUpdate(new_basins=(NewBasin("Tide Pools", ("sand",)), NewBasin("MUSIC")))
    )
    assert [b.slug for b in s.basins] == ["systems", "music", "cooking", "tide-pools"]
    b = s.basin("tide-pools")
    assert (b.weight, b.conversations, b.keywords) == (0.4, 1, ("sand",))


def test_connections_are_symmetric_and_only_ever_added():
    s = laws.update_basins(seeded(), BasinsUpdate(connections=(("systems", "music"),)))
    assert s.basin("systems").connections == ("music",)
    assert s.basin("music").connections == ("systems",)
    s = laws.update_basins(s, BasinsUpdate(connections=(("cooking", "music"),)))
    assert s.basin("music").connections == ("cooking", "systems")


def test_keywords_are_deduplicated_ignoring_case_and_capped_at_ten_counting_each_hit():
    s = seeded()
    words = tuple(f"w{i}" for i in range(8))
    s = laws.update_basins(
        s, BasinsUpdate(basins=(BasinUpdate("music", 0.1, add_keywords=(*words, "W1")),))
    )
    assert s.basin("music").keywords == words
    s = laws.update_basins(
        s, BasinsUpdate(basins=(BasinUpdate("music", 0.1, add_keywords=("a", "b", "c")),))
    )
    assert s.basin("music").keywords == (*words[1:], "a", "b", "c")
    assert s.basin("music").cap_hits == 1
    assert not laws.consolidation_due(s.basin("music"))
    s = laws.update_basins(
        s,
        BasinsUpdate(
            basins=(BasinUpdate("music", 0.1, add_keywords=("d",), remove_keywords=("A",)),)
        ),
    )
    assert "a" not in s.basin("music").keywords and s.basin("music").cap_hits == 1
    s = laws.update_basins(
        s, BasinsUpdate(basins=(BasinUpdate("music", 0.1, add_keywords=("e", "f")),))
    )
    assert s.basin("music").cap_hits == 2
    assert laws.consolidation_due(s.basin("music"))


def test_a_phase_shift_counts_and_at_most_five_emerging_patterns_are_carried():
    s = laws.update_basins(
        seeded(), BasinsUpdate(phase_shift=True, emerging_patterns=tuple("abcdefg"))
    )
    assert s.phase == 1
    assert s.emerging == tuple("abcde")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_delta_that_is_not_a_finite_number_is_refused_not_turned_into_nan(bad):
    with pytest.raises(LawError, match="delta"):
        laws.update_basins(seeded(), BasinsUpdate(basins=(BasinUpdate("music", bad),)))


def test_an_update_naming_a_basin_the_state_does_not_have_is_refused():
    with pytest.raises(LawError, match="slug='poetry'"):
        laws.update_basins(seeded(), BasinsUpdate(basins=(BasinUpdate("poetry", 0.1),)))
    with pytest.raises(LawError, match="slug='poetry'"):
        laws.update_basins(seeded(), BasinsUpdate(connections=(("music", "poetry"),)))


def test_under_the_single_rule_a_basin_left_out_and_one_given_zero_are_the_same():
    a = laws.update_basins_single(seeded(), BasinsUpdate())
    b = laws.update_basins_single(seeded(), BasinsUpdate(basins=(BasinUpdate("music", 0.0),)))
    assert a == b
    c = laws.update_basins_single(seeded(), BasinsUpdate(basins=(BasinUpdate("music", 0.2),)))
    assert c.basin("music").weight == pytest.approx(0.5 + (0.3 - 0.5) * 0.05 + 0.2)


def test_entropy_edge_cases_are_the_seed_s():
    assert laws.entropy([]) == 1.0
    assert laws.entropy([0.0, 0.0]) == 1.0
    assert laws.entropy([0.7]) == 0.0
    assert laws.entropy([1.0, 0.0]) == 0.0
    assert laws.entropy([0.2, 0.2, 0.2, 0.2]) == pytest.approx(1.0)
    assert laws.entropy([1.0, 0.5, 0.5]) == pytest.approx(1.5 / math.log2(3))
    with pytest.raises(LawError, match="weight"):
        laws.entropy([0.5, -0.1])


def _state(*steps):
    """A state of one basin a step, each (weight before, weight after), named b0, b1, ..."""
    return laws.BasinsState(
        basins=tuple(
            laws.Basin(f"b{i}", f"b{i}", after, trajectory=(before, after))
            for i, (before, after) in enumerate(steps)
        )
    )


def test_the_four_trajectories_are_checked_in_order():
    assert laws.trajectory(_state((0.5, 0.58), (0.5, 0.44))) == laws.CONVERGING
    assert laws.trajectory(_state((0.5, 0.3), (0.5, 0.7))) == laws.RESTRUCTURING
    assert laws.trajectory(_state((0.8, 0.7), (0.5, 0.6), (0.5, 0.5))) == laws.DIVERGING
    assert laws.trajectory(_state((0.52, 0.51), (0.5, 0.49))) == laws.STABLE
    assert laws.trajectory(seeded()) == laws.STABLE


def test_the_law_clamps_a_delta_it_is_handed_directly_so_a_caller_that_skips_the_parse_moves_a_weight_at_most_three_tenths():
    # the document's applyUpdate trusts its caller; this law does not
    for rule in (laws.update_basins, laws.update_basins_single):
        s = rule(seeded(), BasinsUpdate(basins=(BasinUpdate("systems", 5.0),
                                                   BasinUpdate("music", -5.0))))
        relaxed = 0.5 + (0.3 - 0.5) * 0.05 if rule is laws.update_basins_single else 0.5
        assert s.basin("systems").weight == pytest.approx(relaxed + 0.3)
        assert s.basin("music").weight == pytest.approx(relaxed - 0.3)


def test_a_basin_at_the_floor_is_kept_and_comes_back_on_a_positive_delta_or_by_drifting():
    s = seeded()
    for _ in range(3):
        s = laws.update_basins(s, BasinsUpdate(basins=(BasinUpdate("cooking", -0.3),)))
    assert s.basin("cooking").weight == 0.05
    assert [b.slug for b in s.basins] == ["systems", "music", "cooking"]
    back = laws.update_basins(s, BasinsUpdate(basins=(BasinUpdate("cooking", 0.2),)))
    assert back.basin("cooking").weight == pytest.approx(0.25)
    assert back.basin("cooking").conversations == 1
    drifted = laws.update_basins(s, BasinsUpdate())
    assert drifted.basin("cooking").weight == pytest.approx(0.05 + (0.3 - 0.05) * 0.05)


def test_a_new_basin_counts_as_used_in_the_update_it_joins_and_two_of_one_slug_join_once():
    s = laws.update_basins(
        seeded(), BasinsUpdate(new_basins=(NewBasin("Tide pools"), NewBasin("tide-Pools!")))
    )
    assert [b.slug for b in s.basins] == ["systems", "music", "cooking", "tide-pools"]
    b = s.basin("tide-pools")
    assert (b.label, b.weight, b.conversations, b.last_active) == ("Tide pools", 0.4, 1, 1)
    again = laws.update_basins(s, BasinsUpdate(new_basins=(NewBasin("Tide Pools"),)))
    assert [b.slug for b in again.basins] == [b.slug for b in s.basins]
    assert again.basin("tide-pools").weight == pytest.approx(0.4 + (0.3 - 0.4) * 0.05)


def test_a_new_basin_with_more_than_ten_keywords_keeps_its_newest_ten_and_counts_one_cap_hit():
    words = tuple(f"k{i}" for i in range(12))
    s = laws.update_basins(seeded(), BasinsUpdate(new_basins=(NewBasin("Rope", words),)))
    assert s.basin("rope").keywords == words[2:]
    assert s.basin("rope").cap_hits == 1


def test_the_emerging_patterns_are_the_last_update_s_not_an_accumulation():
    s = laws.update_basins(seeded(), BasinsUpdate(emerging_patterns=("salt", "knots")))
    s = laws.update_basins(s, BasinsUpdate(emerging_patterns=("gulls",)))
    assert s.emerging == ("gulls",)
    s = laws.update_basins(s, BasinsUpdate())
    assert s.emerging == () and s.phase == 0


def test_converging_needs_the_top_basin_to_have_grown_and_restructuring_is_checked_before_diverging():
    # mean step 0.0625 with the top basin (0.75) grown: converging
    assert laws.trajectory(_state((0.625, 0.75), (0.5, 0.5))) == laws.CONVERGING
    # the same mean with the top basin shrunk: diverging
    assert laws.trajectory(_state((0.875, 0.75), (0.5, 0.5))) == laws.DIVERGING
    # mean 0.125 with the top basin grown: too much movement to converge, diverging
    assert laws.trajectory(_state((0.5, 0.75), (0.5, 0.5))) == laws.DIVERGING
    # mean 0.25, above both 0.15 and 0.05: restructuring, checked first
    assert laws.trajectory(_state((0.25, 0.75), (0.5, 0.5))) == laws.RESTRUCTURING
    # a basin with one weight (just born) is not counted in the mean
    born = laws.Basin("new", "new", 0.4, trajectory=(0.4,))
    only = laws.BasinsState(basins=(*_state((0.5, 0.75), (0.5, 0.5)).basins, born))
    assert laws.trajectory(only) == laws.DIVERGING
