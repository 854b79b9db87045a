"""The world's config as typed, frozen integers: what `configs/world.json` says, checked.

This module owns turning a loaded (schema-checked) world config into a
`WorldConfig` of plain integers in the world's units (milligrams,
millicells, ticks, chances in 10,000) and the checks a JSON Schema cannot
state: ids and names unique, starting cells on the grid, ranges the right
way round, places on the grid with no cell in two (kernel.laws.places
states those rules; here they are a config's). It reads files only through
kernel.config and must not touch the log or the memory laws.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from kernel import config as configs
from kernel.calendar import Calendar
from kernel.errors import ConfigError
from kernel.laws import news as news_law
from kernel.laws._errors import LawError
from kernel.laws.basins import slugify
from kernel.laws.places import InWords, Place, Places

SIGHT_MOST = 64
"""How many others a villager keeps in sight at most where the config does not say
(`sight_max_villagers`): its nearest. Who sees whom is then at most this many a villager, so
a crowd on one cell costs memory in proportion to its villagers, not to their square; and no
committed world has anyone with more than 8 in sight, so none of them changes by a byte."""


@dataclass(frozen=True, slots=True)
class Temperament:
    """How a villager bends what it feels as a row is born (EmoStack row 60), in thousandths:
    a valence bias in logit space (0 neutral) and an intensity amplification (1000 neutral).
    The world never reads it; the felt laws do."""

    valence_bias: int = 0
    intensity_amplification: int = 1000

    @property
    def neutral(self) -> bool:
        return self.valence_bias == 0 and self.intensity_amplification == 1000


@dataclass(frozen=True, slots=True)
class GivenRow:
    """A row a villager is given as it is founded (EmoStack row 115): a backstory, or a piece
    of news with its name, the words that tell it, and the cell and day it names (None where
    it names none). `about` holds villager ids. The world step never reads it; the engine
    writes it as a `Given` event at the founding."""

    text: str
    about: tuple[int, ...] = ()
    news: str = ""
    words: tuple[str, ...] = ()
    cell: tuple[int, int] | None = None
    day: int | None = None

    @property
    def event(self) -> str:
        return "news" if self.news else "backstory"


@dataclass(frozen=True, slots=True)
class Person:
    """One villager as the config founds it: where it starts, and the basins
    (by label) and temperament the mind gives it. The world step reads
    neither of the last two."""

    id: int
    name: str
    founded: int
    x: int
    y: int
    basins: tuple[str, ...] = ()
    temperament: Temperament = Temperament()
    given: tuple[GivenRow, ...] = ()


@dataclass(frozen=True, slots=True)
class Policy:
    """The seeded policy's parameters, in milligrams, parcels, cells and chances in 10,000."""

    belly_start: int
    belly_full: int
    hungry_below: int
    burn: int
    mouthful: int
    parcel: int
    hands_max: int
    forage_cells: int
    wander_cells: int
    wander: int
    gather: int
    give_to_hungry: int
    give: int
    take: int
    beg: int
    visit: int
    gift_parcels: tuple[int, int]
    take_parcels: tuple[int, int]
    gather_parcels: tuple[int, int]


@dataclass(frozen=True, slots=True)
class WorldConfig:
    """A world config, typed. `digest` is kernel.config's digest of the file's value."""

    digest: str
    seed: int
    ticks_per_day: int
    ticks_per_second: int
    width: int
    height: int
    sight: int          # millicells
    reach: int          # millicells
    sight_most: int     # the most others a villager keeps in sight: its nearest
    food_start: tuple[int, int]   # milligrams, low and high
    food_max: int                 # milligrams
    regrow: int                   # milligrams per tick
    people: tuple[Person, ...]
    policy: Policy
    places: Places = field(default_factory=Places)   # none: a world not in words

    @property
    def calendar(self) -> Calendar:
        """The world's days: which day a tick is in and which ticks end one."""
        return Calendar(self.ticks_per_day)

    @property
    def in_words(self) -> InWords | None:
        """The world as a prompt tells it, where it names places; None where it names none."""
        return InWords(self.places, self.ticks_per_day) if self.places else None

    def name_of(self, villager: int) -> str:
        for p in self.people:
            if p.id == villager:
                return p.name
        raise ConfigError(f"no villager with id {villager} in this world")


def _cells(value: float | int) -> int:
    # A radius is written in cells and kept in thousandths, so distances compare as integers.
    return int(round(value * 1000))


def _thousandths(value: float | int) -> int:
    return int(round(value * 1000))


def _basins(source: str, i: int, name: str, labels: list) -> tuple[str, ...]:
    # a basin's key is its label's slug: two labels of one slug are one basin
    seen: dict[str, str] = {}
    for label in labels:
        slug = slugify(label)
        if slug in seen:
            raise ConfigError(f"{source}: villagers[{i}] ({name}) has the basins {seen[slug]!r} "
                              f"and {label!r}, which are one basin ({slug!r})")
        seen[slug] = label
    return tuple(labels)


def _temperament(v: Any) -> Temperament:
    if v is None:
        return Temperament()
    return Temperament(valence_bias=_thousandths(v["valence_bias"]),
                       intensity_amplification=_thousandths(v["intensity_amplification"]))


def _given(source: str, i: int, name: str, rows: list, ids: dict[str, int], width: int,
           height: int) -> tuple[GivenRow, ...]:
    out = []
    for k, g in enumerate(rows):
        where = f"{source}: villagers[{i}] ({name}) given[{k}]"
        about = []
        for who in g.get("about", ()):
            if who not in ids:
                raise ConfigError(f"{where} is about {who!r}, and no villager of this world is "
                                  f"named so")
            if ids[who] == ids[name]:
                raise ConfigError(f"{where} is about {who!r}, the villager it is given to: a "
                                  f"given row is about others")
            about.append(ids[who])
        n = g.get("news")
        cell = None
        if n is not None and "cell" in n:
            cell = (int(n["cell"][0]), int(n["cell"][1]))
            if not (0 <= cell[0] < width and 0 <= cell[1] < height):
                raise ConfigError(f"{where} names the cell {cell[0]},{cell[1]}, which is off "
                                  f"the {width} by {height} grid")
        out.append(GivenRow(text=str(g["text"]), about=tuple(sorted(set(about))),
                            news="" if n is None else str(n["name"]),
                            words=() if n is None else tuple(str(w) for w in n["words"]),
                            cell=cell, day=None if n is None or "day" not in n else int(n["day"])))
    return tuple(out)


def _places(source: str, rows: list, width: int, height: int) -> Places:
    ps = [Place(name=str(v["name"]), grows=str(v["grows"]),
                rects=tuple((int(c["from"][0]), int(c["from"][1]), int(c["to"][0]), int(c["to"][1]))
                            for c in v["cells"]),
                preposition=str(v.get("preposition", "in")))
          for v in rows]
    try:
        return Places.of(ps, (width, height))
    except LawError as e:
        raise ConfigError(f"{source}: {e}") from None


def _range(where: str, r: Any) -> tuple[int, int]:
    lo, hi = int(r["min"]), int(r["max"])
    if lo > hi:
        raise ConfigError(f"{where} runs from {lo} to {hi}: min must not exceed max")
    return lo, hi


def _policy(source: str, pol: Any) -> Policy:
    ch = pol["chances_in_10000"]
    return Policy(
        belly_start=int(pol["belly_start_grams"]) * 1000,
        belly_full=int(pol["belly_full_grams"]) * 1000,
        hungry_below=int(pol["hungry_below_grams"]) * 1000,
        burn=int(pol["burn_milligrams_per_tick"]),
        mouthful=int(pol["mouthful_milligrams"]),
        parcel=int(pol["parcel_milligrams"]),
        hands_max=int(pol["hands_max_parcels"]),
        forage_cells=int(pol["forage_cells"]),
        wander_cells=int(pol["wander_cells"]),
        wander=int(ch["wander"]), gather=int(ch["gather"]),
        give_to_hungry=int(ch["give_to_hungry"]), give=int(ch["give"]),
        take=int(ch["take"]), beg=int(ch["beg"]), visit=int(ch["visit"]),
        gift_parcels=_range(f"{source}: policy.gift_parcels", pol["gift_parcels"]),
        take_parcels=_range(f"{source}: policy.take_parcels", pol["take_parcels"]),
        gather_parcels=_range(f"{source}: policy.gather_parcels", pol["gather_parcels"]),
    )


def _people(source: str, rows: list, width: int, height: int) -> list[Person]:
    people: list[Person] = []
    ids: set[int] = set()
    names: set[str] = set()
    for i, v in enumerate(rows):
        p = Person(id=int(v["id"]), name=str(v["name"]), founded=int(v["founded"]),
                   x=int(v["x"]), y=int(v["y"]),
                   basins=_basins(source, i, str(v["name"]), list(v.get("basins", ()))),
                   temperament=_temperament(v.get("temperament")))
        if p.id in ids:
            raise ConfigError(f"{source}: villagers[{i}] has id {p.id}, which an earlier villager has")
        if p.name in names:
            raise ConfigError(f"{source}: villagers[{i}] is named {p.name!r}, as an earlier villager is")
        if not (0 <= p.x < width and 0 <= p.y < height):
            raise ConfigError(f"{source}: villagers[{i}] ({p.name}) starts on {p.x},{p.y}, "
                              f"which is off the {width} by {height} grid")
        ids.add(p.id)
        names.add(p.name)
        people.append(p)
    return people


def from_value(value: Any, *, digest: str, source: str = "world config") -> WorldConfig:
    """A WorldConfig from an already schema-checked value; the cross-field rules are checked here."""
    grid = value["grid"]
    width, height = int(grid["width"]), int(grid["height"])
    people = _people(source, value["villagers"], width, height)
    # given rows name villagers by name, so they are read once every villager is known
    by_name = {p.name: p.id for p in people}
    people = [replace(p, given=_given(source, i, p.name, list(v.get("given", ())), by_name,
                                      width, height)) if v.get("given") else p
              for i, (p, v) in enumerate(zip(people, value["villagers"], strict=True))]
    pieces: dict[str, list] = {}
    for p in people:
        for g in p.given:
            if g.news:
                pieces.setdefault(g.news, []).append(
                    (p.name, g.words, *(g.cell if g.cell is not None else (None, None)), g.day))
    try:
        for name, rows in pieces.items():
            news_law.one_piece(name, rows, where=source)
    except LawError as e:
        raise ConfigError(str(e)) from None
    food = value["food"]
    lo, hi = int(food["start_grams_min"]) * 1000, int(food["start_grams_max"]) * 1000
    cap = int(food["max_grams"]) * 1000
    if lo > hi:
        raise ConfigError(f"{source}: food starts between {lo // 1000} and {hi // 1000} grams: "
                          f"start_grams_min must not exceed start_grams_max")
    if hi > cap:
        raise ConfigError(f"{source}: food may start at {hi // 1000} grams, above max_grams "
                          f"{cap // 1000}")
    policy = _policy(source, value["policy"])
    if policy.hungry_below > policy.belly_full:
        raise ConfigError(f"{source}: hungry_below_grams {policy.hungry_below // 1000} is above "
                          f"belly_full_grams {policy.belly_full // 1000}")
    sight, reach = _cells(value["sight_cells"]), _cells(value["reach_cells"])
    if reach > sight:
        raise ConfigError(f"{source}: reach_cells {value['reach_cells']} is beyond sight_cells "
                          f"{value['sight_cells']}: a villager only deals with those it can see")
    return WorldConfig(
        digest=digest, seed=int(value["seed"]), ticks_per_day=int(value["ticks_per_day"]),
        ticks_per_second=int(value["ticks_per_second"]), width=width, height=height,
        sight=sight, reach=reach,
        sight_most=int(value.get("sight_max_villagers", SIGHT_MOST)), food_start=(lo, hi), food_max=cap,
        regrow=int(food["regrow_milligrams_per_tick"]), people=tuple(people), policy=policy,
        places=_places(source, list(value.get("places", ())), width, height),
    )


def load(name_or_path: str | os.PathLike = "world") -> WorldConfig:
    """Load and check a world config by name (`world`) or path; the schema is always world.json."""
    c = configs.load(name_or_path, schema="world")
    return from_value(c.value, digest=c.digest, source=str(c.path))
