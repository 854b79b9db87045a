"""`village model`, through click's CliRunner: the embedded backend's models, their files and pins,
installed in place and checked, and one line for every mistake."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import config
from kernel.cli import main

DATA = [b"GGUF" + b"x" * 900, b"y" * 400]


def _models(tmp_path: Path, sha: str | None = None) -> Path:
    v = config.thaw(config.load("models").value)
    q = v["llamacpp"]["models"][v["generate"]]["weights"]
    q.update(gguf="tiny.gguf", sha256=sha or hashlib.sha256(b"".join(DATA)).hexdigest(), bytes=1300,
             parts={"package": "tiny-part{n}", "version": "0.1.0",
                    "member": "tiny_part{n}/data/part{nn}.bin", "count": 2})
    p = tmp_path / "models.json"
    p.write_text(json.dumps(v))
    return p


def _wheels(tmp_path: Path) -> Path:
    d = tmp_path / "wheels"
    d.mkdir()
    for n, data in enumerate(DATA, start=1):
        with zipfile.ZipFile(d / f"tiny_part{n}-0.1.0-py3-none-any.whl", "w") as z:
            z.writestr(f"tiny_part{n}/data/part{n:02d}.bin", data)
    return d


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGE_MODELS", str(tmp_path / "store"))


def test_install_joins_the_parts_checks_the_pin_and_path_then_prints_where_the_file_is(tmp_path):
    models, wheels = _models(tmp_path), _wheels(tmp_path)
    r = CliRunner().invoke(main, ["model", "--install", "--wheels", str(wheels), "--models",
                                  str(models)])
    assert r.exit_code == 0, r.output
    assert "assembled" in r.output and r.output.endswith("the embedded backend's models are ready\n")
    r = CliRunner().invoke(main, ["model", "--path", "qwen2.5-coder:1.5b-instruct", "--models",
                                  str(models)])
    assert r.exit_code == 0 and Path(r.output.strip()).read_bytes() == b"".join(DATA)
    again = CliRunner().invoke(main, ["model", "--install", "--wheels", str(wheels), "--models",
                                      str(models)])
    assert again.exit_code == 0 and "stored" in again.output


def test_parts_of_other_bytes_are_one_line_with_both_digests_and_no_file(tmp_path):
    models, wheels = _models(tmp_path, sha="ab" * 32), _wheels(tmp_path)
    r = CliRunner().invoke(main, ["model", "--install", "--wheels", str(wheels), "--models",
                                  str(models)])
    have = hashlib.sha256(b"".join(DATA)).hexdigest()
    assert r.exit_code == 1 and f"sha256 {have}, and configs/models.json pins {'ab' * 32}" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not list((tmp_path / "store").rglob("*.gguf"))


def test_the_listing_only_reads_and_says_what_is_missing(tmp_path):
    models = _models(tmp_path)
    r = CliRunner().invoke(main, ["model", "--models", str(models)])
    assert r.exit_code == 0 and "not here" in r.output and "village model --install" in r.output
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("args, says", [
    (["--wheels", "."], "--wheels goes with --install"),
    (["--install", "--path", "x"], "--path and --install are two commands"),
    (["--path", "all-minilm:l6-v2"], "runs no model 'all-minilm:l6-v2' with llama.cpp"),
    (["--path", "nope"], "runs no model 'nope' with llama.cpp"),
])
def test_a_mistaken_call_is_one_line(args, says):
    r = CliRunner().invoke(main, ["model", *args])
    assert r.exit_code in (1, 2) and says in r.output, r.output
