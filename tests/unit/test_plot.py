"""`village plot`: each figure a valid PNG of the stated size, or one line saying why not."""

from __future__ import annotations

import struct
import zlib

import pytest
from click.testing import CliRunner

from kernel.cli import main
from kernel.cli.plot_cmd import DPI, SIZE

WIDTH, HEIGHT = round(SIZE[0] * DPI), round(SIZE[1] * DPI)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height off a PNG's IHDR chunk, after checking the signature and the chunk's CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    body = data[16:16 + 13]
    (crc,) = struct.unpack(">I", data[29:33])
    assert zlib.crc32(kind + body) == crc
    assert data.endswith(b"IEND\xaeB`\x82")
    return struct.unpack(">II", body[:8])


@pytest.mark.parametrize("what", ["rows", "cost", "refusals"])
def test_each_figure_is_a_valid_png_of_the_expected_size(what, tmp_path):
    out = tmp_path / f"{what}.png"
    r = CliRunner().invoke(main, ["plot", "day-of-three", "--what", what, "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert png_size(out.read_bytes()) == (WIDTH, HEIGHT)


def test_a_plot_of_a_log_reads_the_log(world_run, tmp_path):
    out = tmp_path / "rows.png"
    r = CliRunner().invoke(main, ["plot", str(world_run), "--what", "rows", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert png_size(out.read_bytes()) == (WIDTH, HEIGHT)
    r = CliRunner().invoke(main, ["plot", str(world_run), "--what", "refusals", "--out",
                                  str(tmp_path / "r.png")])
    assert r.exit_code == 0 and "0 refusals" in r.output


def test_a_cost_figure_of_a_log_needs_its_recording(world_run, tmp_path):
    r = CliRunner().invoke(main, ["plot", str(world_run), "--what", "cost", "--out",
                                  str(tmp_path / "c.png")])
    assert r.exit_code == 1 and "--exemplars" in r.output
    assert not (tmp_path / "c.png").exists()


@pytest.fixture(scope="module")
def week(replayed_log):
    """The log of week-of-three's replay: a run under felt memory, with nights."""
    from kernel import engine
    from kernel.report import plots
    sc = engine.load_scenario("week-of-three")
    return plots.OpenRun(replayed_log("week-of-three"), sc)


@pytest.mark.parametrize("who", [[], ["--who", "mose"]])
def test_a_strengths_figure_of_a_felt_run_is_a_valid_png_of_the_expected_size(who, week,
                                                                              tmp_path):
    out = tmp_path / "strengths.png"
    r = CliRunner().invoke(main, ["plot", str(week.log), "--what", "strengths", "--out",
                                  str(out), *who])
    assert r.exit_code == 0, r.output
    assert png_size(out.read_bytes()) == (WIDTH, HEIGHT)
    assert ("rows of Mose" if who else "rows of 3 villagers") in r.output


class _Check:
    """Applied after a FeltProjection: at each tick asked about, every curve through that
    tick must end the tick at what the projection says the row is felt at now."""

    def __init__(self, felt, at: dict[int, list]):
        self.felt, self.at, self.seen = felt, at, 0

    def start(self) -> None:
        pass

    def apply(self, tick: int, events) -> None:
        for c in self.at.get(tick, ()):
            after = [y for x, y in zip(c.x, c.y, strict=True) if x == tick][-1]
            assert after == self.felt.felt_now(c.id, tick), (c.id, tick)
            self.seen += 1


def test_the_strength_curves_are_the_felt_projections_felt_now_at_sampled_ticks(week):
    from kernel import engine
    from kernel.engine.felt import felt_of
    from kernel.report import plots
    got = plots.strengths(week, top=100)
    curves = [c for v in got for c in v.curves]
    assert any(c.end == "forgotten" for c in curves) and any(c.jumps for c in curves)
    at: dict[int, list] = {}
    for c in curves:
        jumps = [x for x, x2 in zip(c.x, c.x[1:], strict=False) if x == x2]
        for t in {*c.x[::7], *jumps, c.x[-1]}:
            at.setdefault(t, []).append(c)
    mem = engine.MemoryProjection(week.scenario.rules)
    felt = felt_of(week.scenario).follow(mem)
    check = _Check(felt, at)
    engine.fold(week.log, [mem, felt, check])
    assert check.seen == sum(len(v) for v in at.values())


def test_a_villagers_curves_are_its_strongest_rows_first(week):
    from kernel.report import plots
    for v in plots.strengths(week, top=20):
        keys = [(-c.felt, -c.peak, c.id) for c in v.curves]
        assert keys == sorted(keys) and len(v.curves) == min(20, v.rows)
        assert all(c.villager == v.villager and c.x[0] == c.born for c in v.curves)


def test_strengths_of_a_run_without_felt_memory_are_one_line_saying_why(world_run, tmp_path):
    for run in ("village-day", str(world_run)):
        out = tmp_path / "s.png"
        r = CliRunner().invoke(main, ["plot", run, "--what", "strengths", "--out", str(out)])
        assert r.exit_code == 1
        assert r.output.count("\n") == 1 and "nobody reflects" in r.output, r.output
        assert not out.exists()


def test_strengths_of_an_unknown_villager_are_one_line_naming_who_there_is(week, tmp_path):
    r = CliRunner().invoke(main, ["plot", str(week.log), "--what", "strengths", "--who", "Zed",
                                  "--out", str(tmp_path / "s.png")])
    assert r.exit_code == 1 and r.output.count("\n") == 1
    assert "'Zed'" in r.output and "Halla, Ander, Mose" in r.output


@pytest.mark.parametrize("top", ["0", "-1", "101"])
def test_a_number_of_rows_outside_1_to_100_is_one_line_naming_it_zero_included(week, tmp_path,
                                                                                 top):
    out = tmp_path / "s.png"
    r = CliRunner().invoke(main, ["plot", str(week.log), "--what", "strengths", "--top", top,
                                  "--out", str(out)])
    assert r.exit_code == 1 and r.output.count("\n") == 1
    assert f"not {top}" in r.output and not out.exists()


def _week_copy(tmp_path, *, thought=None, importance=None):
    """week-of-three's folder copied, with its thought or importance file changed."""
    from kernel import engine
    from kernel.testing import variant
    return engine.load_scenario(variant("week-of-three", tmp_path / "week-changed",
                                        thought=thought, importance=importance))


def test_a_run_ranked_by_weight_with_no_night_has_no_felt_strength_even_with_valences(tmp_path):
    from kernel.report.felt import why_not_felt

    def by_weight(doc):
        doc["retrieval"]["importance"] = "weight"
        del doc["night"]
    sc = _week_copy(tmp_path, thought=by_weight)
    why = why_not_felt(sc)
    assert why is not None and '"weight"' in why and "no night block" in why


def test_a_run_whose_importance_table_has_no_valences_has_no_felt_strength(tmp_path):
    from kernel.report.felt import why_not_felt
    sc = _week_copy(tmp_path, importance=lambda doc: doc.pop("valence"))
    assert "no valence table" in why_not_felt(sc)


def test_a_felt_run_has_felt_strength():
    from kernel import engine
    from kernel.report.felt import why_not_felt
    assert why_not_felt(engine.load_scenario("week-of-three")) is None
