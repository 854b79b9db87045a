"""Files: one way to open a file to read it, to check a path before a write, and to write atomically."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from kernel import files
from kernel.errors import ConfigError, VillageError

KERNEL = Path(__file__).resolve().parents[2] / "kernel"
WORDS = files.Words("toy file", ConfigError)


def test_an_atomic_write_leaves_the_old_file_or_the_new_one_never_half(tmp_path, monkeypatch):
    p = tmp_path / "a.json"
    p.write_bytes(b"old")

    def crash(*_a, **_k):
        raise OSError(5, "Input/output error")

    with monkeypatch.context() as m:
        m.setattr(os, "replace", crash)
        with pytest.raises(OSError):
            files.write_atomic(p, b"new")
    assert p.read_bytes() == b"old"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.json"], "no temporary file is left"
    files.write_atomic(p, b"new")
    assert p.read_bytes() == b"new"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.json"]


def test_an_atomic_write_fsyncs_the_file_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    order = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (order.append(
        "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"), real_fsync(fd)))
    monkeypatch.setattr(os, "replace", lambda a, b: (order.append("rename"), real_replace(a, b)))
    files.write_atomic(tmp_path / "a.json", b"x")
    assert order == ["file", "rename", "folder"]


def test_an_atomically_written_file_is_readable_by_all(tmp_path):
    p = files.write_atomic(tmp_path / "a.json", b"x")
    assert stat.S_IMODE(p.stat().st_mode) == 0o644


def test_a_commit_puts_a_file_built_in_place_at_its_path_whole(tmp_path):
    tmp = tmp_path / ".t.tmp"
    tmp.write_bytes(b"built")
    (tmp_path / "t").write_bytes(b"old")
    files.commit(tmp, tmp_path / "t")
    assert (tmp_path / "t").read_bytes() == b"built" and not tmp.exists()


def test_a_fifo_is_refused_at_once_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)
    done = []
    t = threading.Thread(target=lambda: done.append(pytest.raises(ConfigError, files.open_regular,
                                                                  fifo, WORDS)), daemon=True)
    t.start()
    t.join(5)
    assert done, "opening a FIFO waited for a writer"
    assert str(done[0].value) == f"{fifo} is not a regular file (it is a FIFO); a toy file is one"


def test_a_folder_a_missing_file_and_a_nul_byte_are_each_one_line_in_the_callers_words(tmp_path):
    cases = ((tmp_path, f"{tmp_path} is a folder, not a toy file"),
             (tmp_path / "no", f"no toy file at {tmp_path / 'no'}"),
             ("a\0b", "'a\\x00b' is not a path: it holds a NUL byte"))
    for path, says in cases:
        with pytest.raises(ConfigError) as e:
            files.open_regular(path, WORDS)
        assert str(e.value) == says


def test_a_regular_file_opens_blocking_and_reads_whole(tmp_path):
    p = tmp_path / "a"
    p.write_bytes(b"x" * 3000)
    fd = files.open_regular(p, WORDS)
    try:
        assert os.get_blocking(fd)
    finally:
        os.close(fd)
    assert files.read_regular(p, WORDS, max_bytes=3000) == b"x" * 3000
    with pytest.raises(ConfigError, match=r"is 3,000 bytes; a toy file is at most 2,999"):
        files.read_regular(p, WORDS, max_bytes=2999)


def test_the_head_of_anything_but_a_readable_regular_file_is_none(tmp_path):
    (tmp_path / "a").write_bytes(b"VLOGxyz")
    os.mkfifo(tmp_path / "f")
    assert files.head(tmp_path / "a", 4) == b"VLOG"
    assert files.head(tmp_path / "f", 4) is None
    assert files.head(tmp_path, 4) is None
    assert files.head(tmp_path / "none", 4) is None
    assert files.head("a\0b", 4) is None


def test_an_output_path_must_be_in_a_folder_that_exists_and_not_be_a_folder_or_a_fifo(tmp_path):
    out = files.Words("report")
    assert files.check_output(tmp_path / "r.html", out) == tmp_path / "r.html"
    os.mkfifo(tmp_path / "f")
    (tmp_path / "file").write_bytes(b"")
    cases = ((tmp_path / "no" / "r.html", f"cannot write {tmp_path / 'no' / 'r.html'}: "
                                          f"the folder {tmp_path / 'no'} does not exist"),
             (tmp_path / "file" / "r.html", f"cannot write {tmp_path / 'file' / 'r.html'}: "
                                            f"the folder {tmp_path / 'file'} does not exist"),
             (tmp_path, f"{tmp_path} is a folder: the report is written to a file"),
             (tmp_path / "f", f"{tmp_path / 'f'} is a FIFO: the report is written to a regular file"),
             ("r\0.html", "'r\\x00.html' is not a path: it holds a NUL byte"))
    for path, says in cases:
        with pytest.raises(VillageError) as e:
            files.check_output(path, out)
        assert str(e.value) == says


# -- the output guard ------------------------------------------------------------

OUT = files.Words("page")
DUCKDB = b"\x00" * 8 + b"DUCK" + b"\x00" * 20
KINDS = {  # what a file holds -> its bytes
    "log": b"VLOG\x00\x01\r\nrest of a log",
    "database": DUCKDB,
    "png": b"\x89PNG\r\n\x1a\nrest",
    "html": b"\n  <!DOCTYPE html>\n<html></html>",
    "recording": b'{"backend": "x", "calls": [], "format": 2}',
    "config": b'{"ticks_per_day": 2000}',
    "text": b"notes\n",
}
# the writer's kind -> what it may replace, beside a missing or empty file
MAY = {files.INDEX: {"database"}, files.PNG: {"png"}, files.HTML: {"html"},
       files.RECORDING: {"recording"}, files.PINNED: {"png", "html", "recording", "config", "text"},
       None: set()}


def test_the_log_kind_is_told_by_the_magic_every_log_starts_with():
    from kernel.log import MAGIC

    assert files.LOG.signature == MAGIC and files.LOG.at == 0


@pytest.mark.parametrize("kind", list(MAY), ids=lambda k: k.name if k else "a new file")
def test_a_writer_replaces_only_a_file_of_its_own_kind_or_an_empty_one_and_never_a_log(tmp_path,
                                                                                     kind):
    (tmp_path / "empty").write_bytes(b"")
    assert files.check_output(tmp_path / "empty", OUT, kind=kind) == tmp_path / "empty"
    for held, data in KINDS.items():
        p = tmp_path / held
        p.write_bytes(data)
        if held in MAY[kind]:
            assert files.check_output(p, OUT, kind=kind) == p
            continue
        with pytest.raises(VillageError) as e:
            files.check_output(p, OUT, kind=kind)
        line = str(e.value)
        assert line.startswith(f"{p} holds ") or line.startswith(f"{p} already exists"), line
        assert "\n" not in line
        if held == "log":
            assert line == f"{p} holds a village log: no page replaces a log (pick another path)"


def test_an_output_that_is_an_input_by_name_link_or_hard_link_is_refused_naming_how(tmp_path,
                                                                                   monkeypatch):
    log = tmp_path / "run.log"
    log.write_bytes(b"<!doctype html>")   # even a file the writer could replace
    (tmp_path / "link.html").symlink_to(log)
    os.link(log, tmp_path / "hard.html")
    monkeypatch.chdir(tmp_path)
    cases = {"run.log": "run.log is this command's input",
             str(log): f"{log} is this command's input",
             "link.html": "link.html is the same file, through a symbolic link, as this command's input",
             "hard.html": "hard.html is the same file, by a hard link (one device and inode), as"}
    for out, says in cases.items():
        with pytest.raises(VillageError) as e:
            files.check_output(out, OUT, kind=files.HTML, inputs=(None, "run.log"))
        assert str(e.value).startswith(says), str(e.value)
    assert files.check_output("new.html", OUT, kind=files.HTML, inputs=("run.log",))


def test_a_name_over_name_max_or_a_path_over_path_max_is_one_line_before_the_system_sees_it(
        tmp_path):
    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    path_max = os.pathconf(tmp_path, "PC_PATH_MAX")
    long_name = tmp_path / ("x" * (name_max + 1))
    with pytest.raises(VillageError, match=f"is {name_max + 1} bytes, and its file system allows "
                                           f"{name_max}$"):
        files.check_output(long_name, OUT)
    deep = tmp_path / "/".join(["d" * 100] * (path_max // 100 + 1))
    with pytest.raises(VillageError, match=f"the path is .* bytes, and the system allows "
                                           f"{path_max - 1}$"):
        files.check_output(deep, OUT)
    with pytest.raises(VillageError, match="holds a NUL byte"):
        files.check_new_file("a\0b", OUT)


def test_a_name_at_name_max_is_written_through_a_temporary_name_that_fits_beside_it(tmp_path):
    p = tmp_path / ("y" * os.pathconf(tmp_path, "PC_NAME_MAX"))
    files.Output(p, OUT, kind=files.HTML).write(b"<!doctype html>")
    assert p.read_bytes() == b"<!doctype html>" and [x.name for x in tmp_path.iterdir()] == [p.name]


@pytest.mark.parametrize("fault", [OSError(27, "File too large"), KeyboardInterrupt()],
                         ids=["a full disk", "an interrupt"])
def test_a_write_that_fails_leaves_the_old_file_byte_for_byte_and_no_temporary_file(tmp_path,
                                                                                   fault):
    p = tmp_path / "page.html"
    p.write_bytes(b"<!doctype html>old")
    out = files.Output(p, OUT, kind=files.HTML)
    with pytest.raises(VillageError if isinstance(fault, OSError) else KeyboardInterrupt) as e:
        with out.replacing() as tmp:
            tmp.write_bytes(b"<!doctype html>half")
            raise fault
    if isinstance(fault, OSError):
        assert str(e.value) == f"cannot write {p}: File too large"
    assert p.read_bytes() == b"<!doctype html>old"
    assert [x.name for x in tmp_path.iterdir()] == ["page.html"]


def test_a_fresh_temporary_path_holds_no_file_and_its_leftovers_go_with_it(tmp_path):
    out = files.Output(tmp_path / "i.duckdb", OUT, kind=files.INDEX)
    with pytest.raises(VillageError, match="cannot write"):
        with out.replacing(fresh=True, leftovers=(".wal",)) as tmp:
            assert not tmp.exists()
            tmp.write_bytes(DUCKDB)
            tmp.with_name(tmp.name + ".wal").write_bytes(b"wal")
            raise OSError(28, "No space left on device")
    assert list(tmp_path.iterdir()) == []


def test_a_new_file_is_refused_if_anything_at_all_is_there(tmp_path):
    os.mkfifo(tmp_path / "f")
    (tmp_path / "d").mkdir()
    (tmp_path / "l").symlink_to("nowhere")
    (tmp_path / "e").write_bytes(b"")
    says = {"f": "is a FIFO", "d": "is a folder", "l": "already exists", "e": "already exists"}
    for name, rule in says.items():
        with pytest.raises(VillageError, match=rule):
            files.check_new_file(tmp_path / name, OUT)
    with pytest.raises(VillageError, match="the folder .* does not exist"):
        files.check_new_file(tmp_path / "no" / "x", OUT)
    assert files.check_new_file(tmp_path / "x", OUT) == tmp_path / "x"


def test_a_new_folder_is_put_in_place_whole_or_leaves_nothing_not_even_its_parents(tmp_path):
    dest = tmp_path / "a" / "b" / "p"
    with pytest.raises(VillageError, match=f"^cannot write {dest}: No space left on device$"):
        with files.new_folder(dest, OUT) as into:
            assert into != dest and into.parent == dest.parent
            (into / "one").write_bytes(b"1")
            raise OSError(28, "No space left on device")
    assert list(tmp_path.iterdir()) == []
    with files.new_folder(dest, OUT) as into:
        (into / "one").write_bytes(b"1")
    assert [x.name for x in dest.parent.iterdir()] == ["p"] and (dest / "one").read_bytes() == b"1"


def test_a_new_folder_in_an_empty_folder_is_filled_in_place_and_emptied_again_on_an_error(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with files.new_folder(tmp_path, OUT) as into:
            assert into == tmp_path
            (into / "sub").mkdir()
            (into / "sub" / "one").write_bytes(b"1")
            raise KeyboardInterrupt
    assert tmp_path.is_dir() and list(tmp_path.iterdir()) == []
    (tmp_path / "x").write_bytes(b"")
    with pytest.raises(VillageError, match="is a folder that is not empty"):
        with files.new_folder(tmp_path, OUT):
            pass


def _sources():
    for p in sorted(KERNEL.rglob("*.py")):
        yield p.relative_to(KERNEL).as_posix(), p.read_text(encoding="utf-8")


def test_only_the_files_module_opens_without_blocking_or_writes_through_a_temporary_name():
    # The one rename elsewhere is a sweep's old run stepping aside before its new one is committed.
    steps_aside = {"sweep/runner.py": 1}
    for rel, text in _sources():
        if rel == "files.py":
            continue
        assert "O_NONBLOCK" not in text, rel
        assert "mkstemp" not in text, rel
        assert text.count("os.replace(") == steps_aside.get(rel, 0), rel
