"""The laws of what the log knows of an answer, over drawn rows: the right answers are among
the candidates, chance is a probability, the truth reads no row after the tick and none of
another villager's, saying a right answer is correct, and naming only wrong ones is not, nor
naming a wrong one beside a right one, nor citing a right row and naming none."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kernel.laws.interview import Query, correct, truth
from kernel.laws.memory import Memory

NAMES = {1: "Halla", 2: "Ander", 3: "Mose", 4: "Wren"}
TPD = 100


@st.composite
def rows(draw):
    n = draw(st.integers(min_value=0, max_value=30))
    out = []
    for i in range(n):
        v = draw(st.sampled_from(sorted(NAMES)))
        kind, event = draw(st.sampled_from([("saw", "gift"), ("saw", "take"), ("did", "meal"),
                                            ("did", "gift")]))
        about = tuple(sorted(set(draw(st.lists(st.sampled_from(sorted(NAMES)), max_size=2)))))
        x, y = draw(st.integers(0, 9)), draw(st.integers(0, 9))
        text = f"something on {x},{y}"
        out.append(Memory(i, v, draw(st.integers(0, 4 * TPD - 1)), kind, event, text, 2, about))
    return out


QUERIES = st.builds(Query, kind=st.sampled_from(["saw", "did"]),
                    event=st.sampled_from(["gift", "take", "meal"]),
                    gives=st.sampled_from(["who", "where"]),
                    target=st.sampled_from([None, True, False]),
                    day=st.sampled_from([None, 1, 2, 3, 4]), most=st.booleans())


@given(rs=rows(), q=QUERIES, v=st.sampled_from(sorted(NAMES)),
       now=st.integers(0, 4 * TPD - 1))
def test_the_truth_is_among_the_candidates_and_chance_is_a_probability(rs, q, v, now):
    t = truth(rs, v, now, q, NAMES, TPD)
    assert t.right <= t.candidates
    assert 0.0 <= t.chance <= 1.0
    assert t.known == bool(t.right) and (t.chance > 0) == t.known
    by = {m.id: m for m in rs}
    assert all(by[i].villager == v and by[i].tick <= now for i in t.rows)


@given(rs=rows(), q=QUERIES, v=st.sampled_from(sorted(NAMES)),
       now=st.integers(0, 4 * TPD - 1))
def test_saying_a_right_answer_is_correct_and_naming_only_wrong_ones_is_not(rs, q, v, now):
    t = truth(rs, v, now, q, NAMES, TPD)
    others = [n for i, n in NAMES.items() if i != v]
    if not t.known:
        assert not correct("Halla Ander Mose Wren 1,1", tuple(t.rows), t, q, others)
        return
    right = sorted(t.right)[0]
    assert correct(f"It was {right}.", (), t, q, others)
    wrong = [c for c in sorted(t.candidates - t.right) if c not in right]
    if wrong and q.gives == "who":
        assert not correct(f"It was {wrong[0]}.", (), t, q, others)


@given(rs=rows(), q=QUERIES, v=st.sampled_from(sorted(NAMES)),
       now=st.integers(0, 4 * TPD - 1))
def test_an_answer_is_right_only_when_it_names_a_right_one_and_no_wrong_one(rs, q, v, now):
    t = truth(rs, v, now, q, NAMES, TPD)
    others = [n for i, n in NAMES.items() if i != v]
    if not t.known or q.gives != "who":
        return
    right = sorted(t.right)
    # citing every row that gives a right answer says nothing
    assert not correct("It was someone.", tuple(t.rows), t, q, others)
    assert correct(" and ".join(right) + ".", (), t, q, others)
    for wrong in sorted(set(others) - t.right):
        assert not correct(f"{right[0]} and {wrong}.", tuple(t.rows), t, q, others)
