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


def test_strengths_say_in_one_line_that_felt_memory_is_not_built(tmp_path):
    r = CliRunner().invoke(main, ["plot", "day-of-three", "--what", "strengths", "--out",
                                  str(tmp_path / "s.png")])
    assert r.exit_code == 1
    assert r.output.count("\n") == 1 and "felt memory is not built" in r.output
