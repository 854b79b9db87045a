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
