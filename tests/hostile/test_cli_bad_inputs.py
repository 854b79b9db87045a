"""Every bad input the hardening issue lists, through the real command line, one row each.

Each row is an input a hostile (or careless) user gives `village`, the exit
code it must get, and the words its one error line must start with (after
the CLI's own prefix). Every row is also held to three rules that do not
change from row to row:

- no traceback: whatever goes wrong is a kernel error the CLI maps to a line;
- nothing the user did not ask to change is changed, and no file is left
  behind that the user did not ask for;
- every village log in the row's folder still verifies, deep, afterwards.

Rows that only fail because the CLI still prints a kernel error its own way
are marked `needs the CLI's one error mapping`; everything else must pass.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kernel import config as kconfig
from kernel import log as vlog
from kernel.cli import main
from kernel.log import MAGIC

from .conftest import FakeOllama, record

REPO = Path(__file__).resolve().parents[2]
WORLD = json.loads((REPO / "configs" / "world.json").read_text(encoding="utf-8"))
WORLD_TEXT = (REPO / "configs" / "world.json").read_text(encoding="utf-8")
MODEL = "smollm2:135m-instruct"
PREFIXES = ("village: ", "Error: ")
CLI_MAPPING = "needs the CLI's one error mapping"


@dataclass
class Case:
    """One input: the arguments, what must come back, and which files the user asked to change."""

    args: list[str]
    code: int
    says: str = ""                                     # regex the error line must match from its start
    env: dict[str, str] | None = None
    may_change: set[Path] = field(default_factory=set)
    may_create: set[Path] = field(default_factory=set)
    damaged: set[Path] = field(default_factory=set)    # logs broken on purpose: unchanged, not verified
    check: Callable[[Result], None] | None = None      # what a correct result holds
    patch: Callable[[pytest.MonkeyPatch], None] | None = None
    lines: int = 1                                     # error lines allowed (a damaged log adds where)


class Where:
    """A row's own folder, holding a copy of a small world log, and what to close after it."""

    def __init__(self, folder: Path, log: Path):
        self.dir = folder
        self.log = folder / "run.log"
        shutil.copyfile(log, self.log)
        self.db = self.log.with_suffix(".duckdb")
        self.closers: list[Callable[[], None]] = []

    def file(self, name: str, data: str | bytes) -> Path:
        p = self.dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return p

    def fifo(self, name: str) -> Path:
        p = self.dir / name
        os.mkfifo(p)
        return p

    def world(self, name: str = "w.json", **changes) -> Path:
        v = json.loads(WORLD_TEXT)
        v.update(changes)
        return self.file(name, json.dumps(v))

    def fake(self, text: str, **kw) -> FakeOllama:
        f = FakeOllama(text, **kw)
        self.closers.append(f.close)
        return f


def _world_run(w: Where, config: Path | str, out: Path | str | None = None, ticks: int = 5) -> list[str]:
    return ["world", "run", "--config", str(config), "--ticks", str(ticks),
            "--out", str(out if out is not None else w.dir / "r.log")]


def _forge(w: Where, event) -> Path:
    """A copy of the row's log with one more tick frame holding `event`, chained as a forger would."""
    import msgpack

    from kernel.log.frame import frame_bytes

    p = w.dir / "forged.log"
    shutil.copyfile(w.log, p)
    with vlog.LogWriter.open(p) as wr:
        data, chain = frame_bytes(wr.head, msgpack.packb([wr.last_tick + 1, [event]], use_bin_type=True))
        os.write(wr._fd, data)
        wr.head = chain
    return p


def _full_disk_after(frames: int):
    """A patch under which the log's `frames`-th write gets half its bytes down, then ENOSPC."""
    def patch(mp: pytest.MonkeyPatch) -> None:
        from kernel.log import log as log_module

        real = log_module._write_all
        count = {"n": 0}

        def write(fd, data):
            count["n"] += 1
            if count["n"] >= frames:
                os.write(fd, data[: len(data) // 2])
                raise OSError(errno.ENOSPC, "No space left on device")
            real(fd, data)
        mp.setattr(log_module, "_write_all", write)
    return patch


def _unwritable_folder(w: Where) -> Path:
    if os.geteuid() == 0:
        return Path("/sys")          # root may write anywhere but here
    d = w.dir / "ro"
    d.mkdir()
    d.chmod(0o555)
    w.closers.append(lambda: d.chmod(0o755))
    return d


def _many_villagers(w: Where, n: int) -> Path:
    def name(i: int) -> str:
        return "V" + "".join(chr(ord("a") + int(d)) for d in str(i))
    v = json.loads(WORLD_TEXT)
    v["grid"] = {"width": 1000, "height": 1000}
    v["villagers"] = [{"id": 10_000 + i, "name": name(i), "founded": 0, "x": i % 1000,
                       "y": (i // 1000) * 150} for i in range(n)]
    return w.file("many.json", json.dumps(v))


def _events(path: Path) -> list:
    return [e for _, e in vlog.read_events(path)]


def _home_copy(w: Where) -> Path:
    """A project home holding a copy of the day-of-three scenario and its recording."""
    home = w.dir / "home"
    shutil.copytree(REPO / "configs", home / "configs")
    shutil.copytree(REPO / "fixtures" / "day-of-three", home / "fixtures" / "day-of-three")
    (home / "exemplars").mkdir()
    shutil.copyfile(REPO / "exemplars" / "day-of-three.json", home / "exemplars" / "day-of-three.json")
    return home


def _exemplar_format_2_with_one_vector_changed(w: Where) -> Path:
    from kernel.oracle import exemplar as ex

    home = _home_copy(w)
    p = home / "exemplars" / "day-of-three.json"
    doc = json.loads(p.read_text(encoding="utf-8"))
    doc["format"] = 2
    for c in doc["calls"]:
        if c["kind"] == "embed":
            c["vectors_sha256"] = ex.hashlib.sha256(ex.base64.b64decode(c["vectors"])).hexdigest()
    first = next(c for c in doc["calls"] if c["kind"] == "embed")
    b64 = first["vectors"]
    first["vectors"] = b64[:8] + ("B" if b64[8] != "B" else "C") + b64[9:]
    p.write_bytes(ex.dumps(doc))
    return home


# -- the rows -------------------------------------------------------------------------

Row = tuple[str, Callable[[Where], Case]]

ROWS: list[Row] = [
    # Data loss.
    ("sql cannot write over the log it indexes", lambda w: Case(
        ["sql", str(w.log), f"COPY (SELECT 'gone' AS x) TO '{w.log}' (FORMAT csv)"], 1,
        r"the query was refused: SQL over a run reads its index and nothing else", may_create={w.db})),
    ("sql cannot read any file outside its index", lambda w: Case(
        ["sql", str(w.log), "SELECT * FROM read_text('/etc/hostname')"], 1,
        r"the query was refused: SQL over a run reads its index and nothing else", may_create={w.db})),
    ("sql cannot attach another database", lambda w: Case(
        ["sql", str(w.log), f"ATTACH '{w.dir / 'other.db'}'"], 1,
        r"the query was refused", may_create={w.db})),
    ("sql cannot turn external access back on", lambda w: Case(
        ["sql", str(w.log), "SET enable_external_access = true"], 1,
        r"the query did not run: .*the configuration has been locked", may_create={w.db})),
    ("an index never replaces its own log", lambda w: Case(
        ["index", str(w.log), "--out", str(w.log)], 1, r"the index path .*run\.log is the log itself")),
    ("an index never replaces another village log", lambda w: (
        shutil.copyfile(w.log, w.dir / "other.log"),
        Case(["index", str(w.log), "--out", str(w.dir / "other.log")], 1,
             r".*other\.log holds a village log: an index never replaces a log"))[1]),
    ("a log whose name ends in duckdb is refused at creation", lambda w: Case(
        _world_run(w, "world", w.dir / "day1.duckdb"), 1, r".*day1\.duckdb ends in \.duckdb")),
    ("indexing a log named duckdb never replaces it", lambda w: (
        shutil.copyfile(w.log, w.dir / "day1.duckdb"),
        Case(["index", str(w.dir / "day1.duckdb")], 1, r"the index path .*day1\.duckdb is the log itself"))[1]),
    ("sql over a log named duckdb never replaces it", lambda w: (
        shutil.copyfile(w.log, w.dir / "day1.duckdb"),
        Case(["sql", str(w.dir / "day1.duckdb"), "SELECT 1"], 1,
             r"the index path .*day1\.duckdb is the log itself"))[1]),
    ("a config error leaves no log behind", lambda w: Case(
        _world_run(w, w.world(villagers=[dict(WORLD["villagers"][0], id=10 ** 30)])), 1,
        r".*w\.json does not match configs/schema/world\.json \(1 error\): at \$\.villagers\[0\]\.id: "
        r"10{30} is greater than the maximum of 1000000000$")),

    # Paths.
    ("out in a missing folder is one line", lambda w: Case(
        _world_run(w, "world", w.dir / "no" / "such" / "r.log"), 1,
        r"cannot create .*r\.log: the folder .*such does not exist$")),
    ("out in an unwritable folder is one line", lambda w: Case(
        _world_run(w, "world", _unwritable_folder(w) / "village-hostile.log"), 1,
        r"cannot create .*village-hostile\.log: the folder .* is not writable")),
    ("a disk that fills during a run is one line and the log keeps every whole tick", lambda w: Case(
        _world_run(w, "world", w.dir / "r.log", ticks=40), 1,
        r"the disk is full: tick 19 could not be written to .*r\.log; the log keeps every tick up to "
        r"its last whole one \(tick 18\)$", may_create={w.dir / "r.log"}, patch=_full_disk_after(21),
        check=lambda r: (vlog.verify(w.dir / "r.log").last_tick == 18) or _fail("not cut back"))),
    ("repairing a read-only log is refused and changes nothing", lambda w: (
        w.file("ro.log", w.log.read_bytes() + b"\x07\x00").chmod(0o444),
        w.closers.append(lambda: (w.dir / "ro.log").chmod(0o644)),
        Case(["log", "repair", str(w.dir / "ro.log")], 1, r".*ro\.log is read-only \(mode 0444\)",
             damaged={w.dir / "ro.log"}))[-1]),
    ("verifying proc self mem is one line", lambda w: Case(
        ["log", "verify", "/proc/self/mem"], 1, r"cannot read /proc/self/mem: ")),
    ("a world config at proc self mem is one line", lambda w: Case(
        _world_run(w, "/proc/self/mem"), 1, r"cannot read the config file /proc/self/mem: ")),
    ("verifying a fifo is refused without waiting", lambda w: Case(
        ["log", "verify", str(w.fifo("f.log"))], 1, r".*f\.log is a FIFO, not a log")),
    ("showing a fifo is refused without waiting", lambda w: Case(
        ["log", "show", str(w.fifo("f.log"))], 1, r".*f\.log is a FIFO, not a log")),
    ("repairing a fifo is refused without waiting", lambda w: Case(
        ["log", "repair", str(w.fifo("f.log"))], 1, r".*f\.log is a FIFO, not a log")),
    ("indexing a fifo is refused without waiting", lambda w: Case(
        ["index", str(w.fifo("f.log"))], 1, r".*f\.log is a FIFO, not a log")),
    ("a fifo as a world config is refused without waiting", lambda w: Case(
        _world_run(w, w.fifo("f.json")), 1, r".*f\.json is not a regular file \(it is a FIFO\)")),
    ("a folder as a world config is refused as a folder", lambda w: Case(
        _world_run(w, str(w.dir) + os.sep), 1, r".* is a folder, not a config file$")),
    ("verifying a folder is a usage error", lambda w: Case(
        ["log", "verify", str(w.dir)], 2, r"Invalid value for 'PATH': .* is a directory")),

    ("an index in a missing folder is one line", lambda w: Case(
        ["index", str(w.log), "--out", str(w.dir / "no" / "x.duckdb")], 1,
        r"cannot write the index .*x\.duckdb: the folder .*no does not exist$")),
    ("a scenario run into a missing folder is one line", lambda w: Case(
        ["run", "day-of-three", "--out", str(w.dir / "no" / "r.log")], 1,
        r"cannot create .*r\.log: the folder .*no does not exist$")),
    ("repairing a damaged log is refused and changes nothing", lambda w: (
        p := w.file("bad.log", _flip(w.log.read_bytes(), 200)),
        Case(["log", "repair", str(p)], 1, r".*bad\.log: frame \d+ at byte \d+: ", damaged={p}, lines=2))[-1]),
    ("showing a file that is not a log is one line", lambda w: Case(
        ["log", "show", str(w.file("notes.txt", "hello, not a log\n"))], 1, r".*not a village log")),
    ("a query that does not parse is one line", lambda w: Case(
        ["sql", str(w.log), "SELEKT 1"], 1, r"the query did not run: Parser Error", may_create={w.db})),

    # Configs.
    ("nan in sight cells is refused", lambda w: Case(
        _world_run(w, w.file("w.json", WORLD_TEXT.replace('"sight_cells": 3,', '"sight_cells": NaN,'))), 1,
        r".*w\.json is not strict JSON: NaN is not a number JSON has; every number must be finite$")),
    ("infinity in reach cells is refused", lambda w: Case(
        _world_run(w, w.file("w.json", WORLD_TEXT.replace('"reach_cells": 1.5,', '"reach_cells": Infinity,'))),
        1, r".*w\.json is not strict JSON: Infinity is not a number JSON has")),
    ("a number too large to be finite is refused", lambda w: Case(
        _world_run(w, w.file("w.json", WORLD_TEXT.replace('"sight_cells": 3,', '"sight_cells": 1e999,'))), 1,
        r".*w\.json is not strict JSON: the number 1e999 is too large to be a finite number$")),
    ("an integer past its bound is refused", lambda w: Case(
        _world_run(w, w.world(ticks_per_day=10 ** 12)), 1,
        r".*w\.json does not match configs/schema/world\.json \(1 error\): at \$\.ticks_per_day: "
        r"1000000000000 is greater than the maximum of 1000000000$")),
    ("six thousand one hundred and forty four villagers are admitted", lambda w: Case(
        _world_run(w, _many_villagers(w, 6144), w.dir / "r.log", ticks=1), 0,
        may_create={w.dir / "r.log"},
        check=lambda r: (sum(1 for e in _events(w.dir / "r.log") if e.kind == "founded") == 6144)
        or _fail("not every villager was founded"))),
    ("bytes that are not utf8 are refused", lambda w: Case(
        _world_run(w, w.file("w.json", WORLD_TEXT.encode().replace(b"Three", b"Thr\xe9e"))), 1,
        r".*w\.json is not UTF-8: byte 0xe9 at offset \d+ does not decode$")),
    ("a five thousand digit literal is refused", lambda w: Case(
        _world_run(w, w.file("w.json", WORLD_TEXT.replace('"seed": 20240611,', '"seed": 1' + "0" * 5000 + ","))),
        1, r".*w\.json is not strict JSON: an integer of 5001 digits")),
    ("nesting a hundred thousand deep is refused", lambda w: Case(
        _world_run(w, w.file("w.json", "[" * 100_000 + "]" * 100_000)), 1,
        r".*w\.json nests objects and arrays 100000 deep; at most 64 are read$")),
    ("a key given twice is refused", lambda w: Case(
        _world_run(w, w.file("w.json", WORLD_TEXT.replace('"seed": 20240611,', '"seed": 1, "seed": 2,'))), 1,
        r".*w\.json is not strict JSON: the key 'seed' appears twice in one object")),
    ("a float where an integer is meant is refused", lambda w: Case(
        _world_run(w, w.file("w.json", WORLD_TEXT.replace('"ticks_per_day": 2000,', '"ticks_per_day": 2000.0,'))),
        1, r".*w\.json does not match .*: at \$\.ticks_per_day: 2000\.0 is not of type 'integer'$")),
    ("a config with hundreds of errors names ten and counts the rest", lambda w: Case(
        _world_run(w, w.world(villagers=[{"id": 0, "name": "x", "founded": -1, "x": -1, "y": 0.5, "z": 1}
                                         for _ in range(64)])), 1,
        r".*w\.json does not match configs/schema/world\.json \(384 errors\): (at [^;]*; ){10}and 374 more$")),

    # Answers: shaped, and where answers arrive.
    ("an answer nested hundreds deep is refused and the run goes on", lambda w: Case(
        ["run", "day-of-three", "--oracle", "ollama", "--accept-digest", "--out", str(w.dir / "r.log")], 0,
        env={"OLLAMA_HOST": w.fake('{"questions": ' + "[" * 400 + "]" * 400 + "}").host},
        may_create={w.dir / "r.log"},
        # each villager's questions call, then each one's night plan, gets the same answer
        check=lambda r: ([(e.purpose, e.reason) for e in _events(w.dir / "r.log")
                          if e.kind == "refusal"]
                         == [(p, f"{MODEL} answered with objects and arrays nested more than 32 "
                                 f"deep, deeper than any shape a call asks for")
                             for p in ("questions",) * 3 + ("night",) * 3]) or _fail("refusals"))),
    ("an answer over 64 kib stops the run before its tick is written", lambda w: Case(
        ["run", "day-of-three", "--oracle", "ollama", "--accept-digest", "--out", str(w.dir / "r.log")], 1,
        r"smollm2:135m-instruct answered the questions call with 70,\d{3} bytes, more than the 65,536",
        env={"OLLAMA_HOST": w.fake('{"questions": ["' + "a" * 70_000 + '"]}').host},
        may_create={w.dir / "r.log"},
        check=lambda r: (vlog.verify(w.dir / "r.log").last_tick == 1998) or _fail("the tick was written"))),

    # Forged frames.
    ("a forged event whose kind is a list is refused as damage", lambda w: (
        p := _forge(w, {"kind": ["ate"], "villager": 1}),
        Case(["log", "verify", str(p)], 1, r".*frame 61 at byte \d+ \(tick 60\): unknown event kind \['ate'\]",
             damaged={p}, lines=2))[-1]),
    ("a forged ate whose villager is text fails the deep verify", lambda w: (
        p := _forge(w, {"kind": "ate", "villager": "Halla", "x": 1, "y": 1, "mouthfuls": 1, "milligrams": 5}),
        Case(["log", "verify", str(p)], 1, r".*ate\.villager must be an integer, not str 'Halla'",
             damaged={p}, lines=2))[-1]),
    ("show refuses the forged ate as verify does", lambda w: (
        p := _forge(w, {"kind": "ate", "villager": "Halla", "x": 1, "y": 1, "mouthfuls": 1, "milligrams": 5}),
        Case(["log", "show", str(p)], 1, r".*ate\.villager must be an integer, not str 'Halla'",
             damaged={p}))[-1]),
    ("index refuses the forged ate as verify does", lambda w: (
        p := _forge(w, {"kind": "ate", "villager": "Halla", "x": 1, "y": 1, "mouthfuls": 1, "milligrams": 5}),
        Case(["index", str(p)], 1, r".*ate\.villager must be an integer, not str 'Halla'", damaged={p}))[-1]),

    # SQL.
    ("an empty query is one line", lambda w: Case(
        ["sql", str(w.log), ""], 1, r"the query is empty", may_create={w.db})),
    ("a query of one semicolon is one line", lambda w: Case(
        ["sql", str(w.log), ";"], 1, r"the query is empty", may_create={w.db})),
    ("a query of only a comment is one line", lambda w: Case(
        ["sql", str(w.log), "/* nothing here */"], 1, r"the query holds no SQL statement", may_create={w.db})),
    ("sql when the index path is a folder is one line", lambda w: (
        w.db.mkdir(),
        Case(["sql", str(w.log), "SELECT 1"], 1, r"the index path .*run\.duckdb is a folder"))[-1]),
    ("index when the index path is a folder is one line", lambda w: (
        w.db.mkdir(),
        Case(["index", str(w.log)], 1, r"the index path .*run\.duckdb is a folder"))[-1]),

    # Ollama.
    ("an ollama host with port 99999 is one line", lambda w: Case(
        ["run", "day-of-three", "--oracle", "ollama", "--accept-digest", "--out", str(w.dir / "r.log")], 1,
        r"OLLAMA_HOST 'http://127\.0\.0\.1:99999' is not a URL this client can reach",
        env={"OLLAMA_HOST": "http://127.0.0.1:99999"})),
    ("an ollama host with an unclosed bracket is one line", lambda w: Case(
        ["run", "day-of-three", "--oracle", "ollama", "--accept-digest", "--out", str(w.dir / "r.log")], 1,
        r"OLLAMA_HOST 'http://\[::1' is not a URL this client can reach", env={"OLLAMA_HOST": "http://[::1"})),
    ("run help names OLLAMA_HOST", lambda w: Case(
        ["run", "-h"], 0, check=lambda r: ("OLLAMA_HOST" in r.output) or _fail("no OLLAMA_HOST"))),
    ("a listed model with no digest is said to have none", lambda w: Case(
        ["run", "day-of-three", "--oracle", "ollama", "--accept-digest", "--out", str(w.dir / "r.log")], 1,
        r"http://127\.0\.0\.1:\d+ lists model \S+ with no digest",
        env={"OLLAMA_HOST": w.fake("{}", digest=None).host})),

    # village reflect: bad input on each subcommand, and on the --mode alias, is one line.
    ("reflect settings on a world where nobody reflects is one line", lambda w: Case(
        ["reflect", "settings", "village-day"], 1,
        r"scenario village-day has no recording to replay: nobody in it reflects$")),
    ("reflect prompt for a villager who did not reflect is one line", lambda w: Case(
        ["reflect", "prompt", "--who", "Nobody"], 1,
        r"no villager named 'Nobody' reflected at tick 1999: those who did are Halla, Ander, Mose$")),
    ("reflect reflect of an unknown scenario is one line", lambda w: Case(
        ["reflect", "reflect", "no-such-day"], 1, r"no scenario 'no-such-day' in .*: the ones there are ")),
    ("reflect refuse with no accepted statement to break is one line", lambda w: Case(
        ["reflect", "refuse", "five-days-of-halla"], 1,
        r"no accepted statement in five-days-of-halla to break$")),
    ("reflect chain under a negative cap is a usage error", lambda w: Case(
        ["reflect", "chain", "--cap", "-1"], 2, r"Invalid value for '--cap': -1 is not in the range")),
    ("reflect night on a day with no night is one line", lambda w: Case(
        ["reflect", "night", "--day", "9", "day-of-three"], 1,
        r"scenario day-of-three has no night on day 9: its nights are on days 1$")),
    ("reflect felt without a villager is one line", lambda w: Case(
        ["reflect", "felt", "day-of-three"], 1, r"reflect felt shows one villager: give --who NAME$")),
    ("reflect with an option its subcommand does not read is a usage error", lambda w: Case(
        ["reflect", "settings", "--who", "Halla"], 2, r"No such option")),
    ("reflect mode alias with a bad villager is one line beside its note", lambda w: Case(
        ["reflect", "--mode", "prompt", "--who", "Nobody"], 1, r"no villager named 'Nobody' reflected")),

    # Say it in full.
    ("a replay mismatch names both prompts full sha256", lambda w: (
        home := _home_copy(w),
        (home / "fixtures" / "day-of-three" / "world.json").write_text(
            (home / "fixtures" / "day-of-three" / "world.json").read_text().replace("Halla", "Hella")),
        Case(["--home", str(home), "run", "day-of-three", "--out", str(w.dir / "r.log")], 1,
             r"replay stopped at call 1 \(questions\): the prompt rendered here is \d+ bytes, sha256 "
             r"[0-9a-f]{64}, and the recording's is \d+ bytes, sha256 [0-9a-f]{64}: ",
             may_create={w.dir / "r.log"}))[-1]),
    ("a recorded vector changed by one base64 character is found", lambda w: (
        home := _exemplar_format_2_with_one_vector_changed(w),
        Case(["--home", str(home), "run", "day-of-three", "--out", str(w.dir / "r.log")], 1,
             r".*day-of-three\.json call \d+ \(.*\): an embed record's vectors have sha256 [0-9a-f]{64}, "
             r"but are labelled [0-9a-f]{64}"))[-1]),
]


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


def _fail(why: str) -> bool:
    raise AssertionError(why)


# Rows that fail today only because the CLI prints a kernel error its own way (or lacks
# the command); each is an expected failure until the CLI maps every error in one place.
NEEDS_CLI: set[str] = set()


def _files(folder: Path) -> dict[Path, bytes]:
    out = {}
    for p in folder.rglob("*"):
        try:
            if stat.S_ISREG(p.lstat().st_mode):
                out[p] = p.read_bytes()
        except OSError:
            pass
    return out


def _is_log(p: Path) -> bool:
    try:
        with open(p, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def _error_lines(result: Result) -> list[str]:
    return [line for line in (result.stderr or "").splitlines()
            if line.startswith(PREFIXES) and not line.startswith("village: note: ")]


def _unprefixed(line: str) -> str:
    for p in PREFIXES:
        if line.startswith(p):
            return line[len(p):]
    return line


def outcome(case: Case, result: Result, before: dict[Path, bytes], folder: Path) -> tuple[str, str]:
    """The row's outcome (one of the tally's) and, when not clean, what went wrong."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "traceback", f"{type(result.exception).__name__}: {result.exception}"
    if "Traceback (most recent call last)" in result.output:
        return "traceback", result.output[-500:]
    for p, b in before.items():
        if p in case.may_change:
            continue
        if not p.exists() or p.read_bytes() != b:
            return "lost", f"{p} changed"
    after = _files(folder)
    for p in after:
        if _is_log(p) and p not in case.damaged:
            try:
                vlog.verify(p)
            except Exception as e:  # noqa: BLE001 - any failure here is the finding
                return "lost", f"{p} no longer verifies: {e}"
    if case.code and result.exit_code == 0:
        return "silent", "exit 0 where a refusal was due"
    extra = sorted(set(after) - set(before) - case.may_create)
    if extra:
        return "silent", f"left behind: {', '.join(map(str, extra))}"
    if case.check is not None and result.exit_code == case.code:
        try:
            case.check(result)
        except AssertionError as e:
            return "silent", f"a wrong result: {e}"
    return "clean", ""


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang("no answer within 120 s: the command hangs")


@pytest.mark.parametrize("rule,build", [
    pytest.param(rule, build, id=rule.replace(" ", "_"),
                 marks=[pytest.mark.xfail(reason=CLI_MAPPING, strict=False)] if rule in NEEDS_CLI else [])
    for rule, build in ROWS])
def test_every_bad_input_is_one_clear_line_and_loses_nothing(rule, build, small_world_log, tmp_path,
                                                              monkeypatch):
    w = Where(tmp_path, small_world_log)
    try:
        case = build(w)
        before = _files(tmp_path)
        if case.patch is not None:
            case.patch(monkeypatch)
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(120)
        try:
            result = CliRunner().invoke(main, case.args, env=case.env)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
            # `--home` holds for the rest of a process: this row's home must not be the next test's.
            kconfig.set_home(None)
        monkeypatch.undo()
        kind, why = outcome(case, result, before, tmp_path)
        record(kind)
        assert kind == "clean", f"{kind}: {why}\n{result.output}"
        assert result.exit_code == case.code, result.output
        lines = _error_lines(result)
        if case.code == 0:
            assert lines == [], result.output
            return
        assert len(lines) == 1, f"one error line, not {len(lines)}: {result.stderr!r}"
        stderr_lines = [x for x in result.stderr.splitlines()
                        if x.strip() and not x.startswith("village: note: ")]
        at = stderr_lines.index(lines[0])
        assert len(stderr_lines) - at <= case.lines, f"the error takes one line: {result.stderr!r}"
        assert re.match(case.says, _unprefixed(lines[0])), f"{case.says!r} vs {lines[0]!r}"
    finally:
        for close in w.closers:
            close()


def test_the_table_has_a_row_for_every_rule_once():
    rules = [r for r, _ in ROWS]
    assert len(rules) == len(set(rules))
    assert len(rules) >= 45
