"""A round's calls on a pool of Ray workers: the same answers give the same bytes, whatever answers first."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kernel import engine
from kernel.engine import scenario as msc
from kernel.errors import OracleError
from kernel.oracle import RecordingOracle, exemplar, make
from kernel.oracle.base import Ask
from tests.common import quick_day_of_three

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def _asks(doc) -> list[Ask]:
    return [Ask(purpose=c["purpose"], model=c["model"], prompt=exemplar.prompt_bytes(c),
                schema=exemplar.schema_bytes(c), seed=c["options"]["seed"],
                temperature=c["options"]["temperature"], limit=c["options"]["limit"],
                context=c["options"]["context"])
            for c in doc["calls"] if c["kind"] == "generate"]


def _models(sc) -> tuple[str, str]:
    return sc.settings.generate_model, sc.settings.embed_model


def _without_durations(doc):
    for c in doc["calls"]:
        c.pop("took_ns", None)
        c.pop("load_ns", None)
    return doc


def test_chunks_cover_every_item_once_in_order():
    from kernel.oracle.fanout import chunks

    for n in range(0, 40):
        for parts in range(1, 9):
            runs = chunks(n, parts)
            assert [i for a, b in runs for i in range(a, b)] == list(range(n))
            assert len(runs) <= max(1, parts)


def test_a_pool_whose_workers_answer_in_shuffled_order_writes_the_bytes_of_one_process(
        ray_local, tmp_path):
    from kernel.cluster import PoolOracle
    from kernel.cluster.testing import RecalledMaker

    sc = msc.load("day-of-three")
    alone = engine.run(sc, make("replay", replay_from=sc.exemplars), tmp_path / "alone.log")
    pool = PoolOracle(RecalledMaker(sc.exemplars, jitter=0.05), 2, models=_models(sc),
                      backend="llamacpp")
    try:
        pooled = engine.run(sc, pool, tmp_path / "pooled.log")
        # the round's questions asked together, answers gathered by ask, never by arrival
        doc = exemplar.load(sc.exemplars)
        asks = _asks(doc) * 3
        said = pool.generate_many(asks)
    finally:
        pool.close()
    assert (tmp_path / "pooled.log").read_bytes() == (tmp_path / "alone.log").read_bytes()
    assert pooled.head_hex == alone.head_hex
    want = [c["answer"] for c in doc["calls"] if c["kind"] == "generate"] * 3
    assert [s.text for s in said] == want
    assert [c.purpose for c in pool.costs[-len(asks):]] == [a.purpose for a in asks]


def test_a_recording_through_the_pool_holds_the_calls_of_one_made_without_it(ray_local, tmp_path):
    from kernel.cluster import PoolOracle, RecordingPool
    from kernel.cluster.testing import Recalled, RecalledMaker

    sc = msc.load("day-of-three")
    plain = RecordingOracle(Recalled(sc.exemplars, jitter=0), tmp_path / "plain.json")
    engine.run(sc, plain, tmp_path / "plain.log")
    plain.save()
    pool = RecordingPool(PoolOracle(RecalledMaker(sc.exemplars, jitter=0.03), 2,
                                    models=_models(sc), backend=plain.backend),
                         tmp_path / "pooled.json")
    try:
        engine.run(sc, pool, tmp_path / "pooled.log")
        pool.save()
        asks = _asks(exemplar.load(sc.exemplars))
        many = pool.generate_many(asks)
    finally:
        pool.close()
    a = _without_durations(json.loads((tmp_path / "plain.json").read_bytes()))
    b = _without_durations(json.loads((tmp_path / "pooled.json").read_bytes()))
    b["calls"] = b["calls"][:len(a["calls"])]
    assert a == b
    assert (tmp_path / "plain.log").read_bytes() == (tmp_path / "pooled.log").read_bytes()
    assert pool.counters().calls == plain.counters().calls + len(asks)
    assert [r["answer"] for r in pool.records[-len(asks):]] == [s.text for s in many]


def test_an_embedding_call_cut_across_workers_is_the_matrix_of_one_call(ray_local):
    from kernel.cluster import PoolOracle
    from kernel.cluster.testing import Recalled, RecalledMaker

    sc = msc.load("day-of-three")
    doc = exemplar.load(sc.exemplars)
    rec = max((c for c in doc["calls"] if c["kind"] == "embed"), key=lambda c: len(c["texts"]))
    one = Recalled(sc.exemplars, jitter=0).embed(rec["model"], rec["texts"], purpose=rec["purpose"])
    pool = PoolOracle(RecalledMaker(sc.exemplars, jitter=0.02), 2, models=_models(sc),
                      backend="llamacpp")
    try:
        many = pool.embed(rec["model"], rec["texts"], purpose=rec["purpose"])
    finally:
        pool.close()
    assert many.dtype == np.float32 and many.tobytes() == one.tobytes()
    assert pool.counters().embeddings == len(rec["texts"]) and len(pool.costs) == 1


def test_a_pool_whose_workers_hold_different_digests_is_refused(ray_local):
    from kernel.cluster import PoolOracle
    from kernel.cluster.testing import RecalledMaker

    sc = msc.load("day-of-three")
    with pytest.raises(OracleError, match="shares one set of model digests"):
        PoolOracle(RecalledMaker(sc.exemplars, digest="d{pid}"), 2, models=_models(sc),
                   backend="llamacpp")


def test_a_worker_error_reaches_the_driver_as_the_kernel_error_it_was(ray_local):
    from kernel.cluster import PoolOracle
    from kernel.cluster.testing import RecalledMaker

    sc = msc.load("day-of-three")
    pool = PoolOracle(RecalledMaker(sc.exemplars, jitter=0), 2, models=_models(sc),
                      backend="llamacpp")
    try:
        ask = _asks(exemplar.load(sc.exemplars))[0]
        other = Ask(purpose=ask.purpose, model=ask.model, prompt=b"not the recorded prompt",
                    schema=ask.schema, seed=ask.seed, temperature=ask.temperature,
                    limit=ask.limit, context=ask.context)
        with pytest.raises(OracleError, match="holds no answer"):
            pool.generate_many([ask, other])
    finally:
        pool.close()


@pytest.mark.embedded
@pytest.mark.slow
def test_day_of_three_with_two_llamacpp_workers_is_the_bytes_of_one(ray_local, tmp_path):
    from click.testing import CliRunner

    from kernel import cluster
    from kernel.cli import main

    day = quick_day_of_three(tmp_path)    # SmolLM2's: the pool is the subject, not the words
    sc = msc.load(day)
    pool = cluster.start("llamacpp", sc.models, 1, threads=1)
    try:
        one = engine.run(sc, pool, tmp_path / "w1.log")
    finally:
        pool.close()
    # two workers share the models config's threads: one each
    r = CliRunner().invoke(main, ["run", str(day), "--oracle", "llamacpp",
                                  "--workers", "2", "--out", str(tmp_path / "w2.log")])
    assert r.exit_code == 0, r.output
    assert "on 2 Ray workers" in r.output and one.head_hex in r.output
    assert (tmp_path / "w2.log").read_bytes() == (tmp_path / "w1.log").read_bytes()


@pytest.mark.embedded
@pytest.mark.slow
def test_village_run_records_through_two_workers_what_a_plain_record_records(tmp_path):
    """--record through a pool: the same calls, prompts, answers and vectors, only durations
    differ; and the same head written to the scenario."""
    import shutil

    from click.testing import CliRunner

    from kernel.cli import main

    day = msc.load(quick_day_of_three(tmp_path / "quick"))   # SmolLM2's: quick, and the pool the subject

    def recorded(name, *args):
        sc = tmp_path / name
        shutil.copytree(day.folder, sc)
        v = json.loads((sc / "scenario.json").read_text())
        v["exemplars"] = str(sc / "recording.json")   # the home joins an absolute path as it is
        (sc / "scenario.json").write_text(json.dumps(v))
        r = CliRunner().invoke(main, ["run", str(sc), "--oracle", "llamacpp", "--record",
                                      "--out", str(tmp_path / f"{name}.log"), *args])
        assert r.exit_code == 0, r.output
        return (_without_durations(json.loads((sc / "recording.json").read_text())),
                json.loads((sc / "scenario.json").read_text()))

    plain, plain_sc = recorded("plain")
    pooled, pooled_sc = recorded("pooled", "--workers", "2")
    assert pooled == plain
    assert pooled_sc["head_sha256"] == plain_sc["head_sha256"]
    assert pooled_sc["recorded_with"] == plain_sc["recorded_with"]
    assert (tmp_path / "pooled.log").read_bytes() == (tmp_path / "plain.log").read_bytes()
