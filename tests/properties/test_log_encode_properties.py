"""The log's fast encoder writes the codec's bytes: for random events of every kind, with
fields of their declared types and of any other, a frame's payload is
`events.pack([tick, [events.to_map(e), ...]])` byte for byte, or the same refusal."""

from __future__ import annotations

import dataclasses
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import events as ev
from kernel.log import encode
from tests.strategies import examples

MANY = settings(max_examples=examples(300), deadline=None)

ints = st.one_of(st.integers(-(2**63), 2**64 - 1), st.integers(-300, 300))
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
odd = st.one_of(st.booleans(), st.none(), st.floats(allow_nan=False), st.just((1, 2)),
                st.just([3, True]), st.binary(max_size=3), st.just(2**70), st.just("\ud800"),
                st.just({"a": 1}))


def _field(t) -> st.SearchStrategy:
    if t is int:
        return ints
    if t is str:
        return texts
    return st.lists(st.one_of(st.integers(0, 10_000), ints), max_size=5).map(tuple)


@st.composite
def events(draw, hostile: bool = False):
    cls = draw(st.sampled_from(sorted(ev.KINDS.values(), key=lambda c: c.kind)))
    hints = typing.get_type_hints(cls)
    e = object.__new__(cls)
    for f in dataclasses.fields(cls):
        value = draw(odd if hostile and draw(st.integers(0, 5)) == 0 else _field(hints[f.name]))
        object.__setattr__(e, f.name, value)
    return e


def _old(tick, es):
    return ev.pack([tick, [ev.to_map(e) for e in es]])


def _same(tick, es):
    try:
        want = _old(tick, es)
    except Exception as e:  # the codec's refusal, which the encoder must give too
        with pytest.raises(type(e)) as got:
            encode.payload(tick, es)
        assert str(got.value) == str(e)
        return
    assert encode.payload(tick, es) == want


@MANY
@given(st.integers(0, 2**40), st.lists(events(), max_size=8))
def test_a_frame_of_events_of_their_declared_types_is_the_codecs_bytes(tick, es):
    _same(tick, es)


@MANY
@given(st.integers(0, 2**40), st.lists(events(hostile=True), max_size=6))
def test_a_frame_with_fields_of_any_type_is_the_codecs_bytes_or_its_refusal(tick, es):
    _same(tick, es)


def test_every_kind_of_the_codec_has_a_fast_layout():
    assert set(encode.PLAIN) == set(ev.KINDS.values())
    assert all(p is not None for p in encode.PLAIN.values())


def test_an_event_of_no_known_kind_is_refused_as_the_codec_refuses_it():
    @dataclasses.dataclass(frozen=True)
    class Stray(ev.Founded):
        pass

    _same(3, [ev.Founded(villager=1, name="A", x=1, y=2), Stray(villager=1, name="A", x=1, y=2)])
    _same(True, [ev.Founded(villager=1, name="A", x=1, y=2)])


@MANY
@given(st.integers(0, 2**40), st.lists(events(), max_size=8))
def test_the_index_writes_each_events_fields_as_the_json_of_the_codecs_map(tick, es):
    import json

    from kernel.store.index import IndexProjection

    idx = IndexProjection()
    idx.apply(tick, es)
    for e, kind, who, other, mg, fields in zip(es, idx.kind, idx.who, idx.other, idx.mg,
                                               idx.fields, strict=True):
        m = ev.to_map(e)
        assert kind == m.pop("kind")
        assert fields == json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        want_who, want_other = type(e).concerns
        assert (who, other, mg) == (m.get(want_who) if want_who else None,
                                    m.get(want_other) if want_other else None,
                                    m.get("milligrams"))
