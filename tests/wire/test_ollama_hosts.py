"""A pool of Ollama hosts: the same answers give the same bytes for one host or many, and a
host whose digest differs is refused before tick 0.

Every host is a fake Ollama server (this folder's conftest) answering as the
model that recorded day-of-three answered, reached through the real `ollama`
client. The recorded digests are served, so a run through the hosts is the
committed day, byte for byte.
"""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner
from fake_ollama import serve_recording

from kernel import config
from kernel.cli import main
from kernel.engine import scenario as msc
from kernel.errors import OracleError
from kernel.mind import settings as msettings
from kernel.oracle import make
from kernel.oracle.ollama import OllamaHosts, OllamaOracle

EMBED = "all-minilm:l6-v2"


@pytest.fixture
def day():
    return msc.load("day-of-three")


def _hosts(fakes, day, n, **kw):
    return [serve_recording(f, day.exemplars, **kw) for f in fakes(n)]


def _run(args, monkeypatch, hosts):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    monkeypatch.setenv("OLLAMA_HOSTS", ",".join(h.host for h in hosts))
    return CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "ollama",
                                     "--accept-digest", *args])


def test_two_ollama_hosts_with_one_digest_write_the_bytes_of_one_host(fakes, day, tmp_path,
                                                                      monkeypatch):
    one = _run(["--out", str(tmp_path / "one.log")], monkeypatch, _hosts(fakes, day, 1))
    assert one.exit_code == 0, one.output
    hosts = _hosts(fakes, day, 2)
    two = _run(["--out", str(tmp_path / "two.log")], monkeypatch, hosts)
    assert two.exit_code == 0, two.output
    assert "on 2 Ollama hosts" in two.output
    assert (tmp_path / "two.log").read_bytes() == (tmp_path / "one.log").read_bytes()
    assert f"head {day.head_sha256}" in two.output, "the committed day, byte for byte"
    # both hosts were asked for their digests before tick 0, and both answered calls
    for h in hosts:
        assert h.bodies("/api/tags") and (h.bodies("/api/generate") or h.bodies("/api/embed"))


def test_a_run_asks_each_host_for_its_models_once_however_many_ask_for_a_digest(
        fakes, day, tmp_path, monkeypatch):
    # the run's pre-flight proves every digest; the engine's and each call's are answered from it
    for n in (1, 2):
        hosts = _hosts(fakes, day, n)
        r = _run(["--out", str(tmp_path / f"{n}.log")], monkeypatch, hosts)
        assert r.exit_code == 0, r.output
        assert [len(h.bodies("/api/tags")) for h in hosts] == [1] * n


def test_many_asks_through_a_pool_of_hosts_are_counted_once_as_one_by_one(fakes, day,
                                                                          monkeypatch):
    from kernel.oracle import Oracle, exemplar
    from kernel.oracle.base import Ask

    doc = exemplar.load(day.exemplars)
    asks = [Ask(c["purpose"], c["model"], exemplar.prompt_bytes(c), exemplar.schema_bytes(c),
                c["options"]["seed"], c["options"]["temperature"], c["options"]["limit"],
                c["options"]["context"]) for c in doc["calls"] if c["kind"] == "generate"][:4]
    cfg = config.thaw(config.load("models").value)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    made = []
    for n in (1, 2):
        monkeypatch.setenv("OLLAMA_HOSTS", ",".join(h.host for h in _hosts(fakes, day, n)))
        made.append(make("ollama", cfg, accept_digest=True))
    alone, pool = made
    try:
        assert isinstance(pool, OllamaHosts) and pool.together and not alone.together
        one_by_one = [alone.generate(a) for a in asks]
        assert [s.text for s in pool.generate_many(asks)] == [s.text for s in one_by_one]
        assert pool.counters() == alone.counters()
        assert [c.purpose for c in pool.costs] == [c.purpose for c in alone.costs]
        assert type(pool).generate_many is Oracle.generate_many
    finally:
        for o in made:
            o.close()


def test_a_host_whose_digest_differs_is_refused_before_tick_0_naming_host_model_and_digests(
        fakes, day, tmp_path, monkeypatch):
    good = _hosts(fakes, day, 1)[0]
    bad = _hosts(fakes, day, 1, digests={EMBED: "ee" * 32})[0]
    r = _run(["--out", str(tmp_path / "run.log")], monkeypatch, [good, bad])
    assert r.exit_code == 1
    assert r.output.startswith("Error: ") and r.output.count("\n") == 1, r.output
    recorded = json.loads(day.exemplars.read_text())["models"][EMBED]["digest"]
    assert bad.host in r.output and good.host in r.output and EMBED in r.output
    assert "ee" * 8 in r.output and recorded[:16] in r.output
    assert not (tmp_path / "run.log").exists(), "refused before tick 0: no log at all"
    assert not bad.bodies("/api/generate") and not good.bodies("/api/generate")


def test_a_recording_through_two_hosts_holds_the_calls_of_one_made_through_one(
        fakes, day, tmp_path, monkeypatch):
    def recorded(n, name):
        sc = tmp_path / name
        shutil.copytree(day.folder, sc)
        v = json.loads((sc / "scenario.json").read_text())
        v["exemplars"] = str(sc / "recording.json")   # the home joins an absolute path as it is
        (sc / "scenario.json").write_text(json.dumps(v))
        monkeypatch.delenv("OLLAMA_HOST", raising=False)
        monkeypatch.setenv("OLLAMA_HOSTS", ",".join(h.host for h in _hosts(fakes, day, n)))
        r = CliRunner().invoke(main, ["run", str(sc), "--oracle", "ollama", "--accept-digest",
                                      "--record", "--out", str(tmp_path / f"{name}.log")])
        assert r.exit_code == 0, r.output
        doc = json.loads((sc / "recording.json").read_text())
        for c in doc["calls"]:
            c.pop("took_ns"), c.pop("load_ns", None)
        return doc, json.loads((sc / "scenario.json").read_text())

    one, one_sc = recorded(1, "one")
    two, two_sc = recorded(2, "two")
    assert two == one
    assert two_sc["head_sha256"] == one_sc["head_sha256"] == day.head_sha256
    assert two_sc["recorded_with"] == one_sc["recorded_with"]


def test_the_hosts_come_from_OLLAMA_HOSTS_then_OLLAMA_HOST_then_the_configs_hosts(monkeypatch):
    cfg = config.thaw(config.load("models").value)
    cfg["ollama"]["hosts"] = ["http://10.0.0.1:11434", "http://10.0.0.2:11434"]
    monkeypatch.delenv("OLLAMA_HOSTS", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    pool = make("ollama", cfg)
    assert isinstance(pool, OllamaHosts)
    assert [h.host for h in pool.hosts] == cfg["ollama"]["hosts"]
    monkeypatch.setenv("OLLAMA_HOST", "http://10.0.0.9:11434")
    alone = make("ollama", cfg)
    assert isinstance(alone, OllamaOracle) and alone.host == "http://10.0.0.9:11434"
    monkeypatch.setenv("OLLAMA_HOSTS", "http://10.0.0.3:11434, http://10.0.0.4:11434")
    pool = make("ollama", cfg)
    assert [h.host for h in pool.hosts] == ["http://10.0.0.3:11434", "http://10.0.0.4:11434"]
    for o in (pool, alone):
        o.close()


def test_a_recording_made_through_a_pool_of_hosts_asks_the_pool_together(monkeypatch,
                                                                           tmp_path):
    # what make() gives a sweep's run: the hosts' pool, recorded in the asks' order
    from kernel.oracle import RecordingOracle, RecordingPool

    cfg = config.thaw(config.load("models").value)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    monkeypatch.setenv("OLLAMA_HOSTS", "http://10.0.0.1:11434,http://10.0.0.2:11434")
    pooled = make("ollama", cfg, record_to=tmp_path / "r.json")
    assert isinstance(pooled, RecordingPool) and isinstance(pooled.inner, OllamaHosts)
    monkeypatch.setenv("OLLAMA_HOSTS", "http://10.0.0.1:11434")
    alone = make("ollama", cfg, record_to=tmp_path / "r.json")
    assert type(alone) is RecordingOracle and not alone.together
    for o in (pooled, alone):
        o.close()


@pytest.mark.parametrize("value, why", [("http://a:1,,http://b:1", "none empty"),
                                        ("http://a:1,http://a:1", "twice")])
def test_an_OLLAMA_HOSTS_with_an_empty_or_repeated_host_is_one_line(monkeypatch, value, why):
    monkeypatch.setenv("OLLAMA_HOSTS", value)
    with pytest.raises(OracleError, match=why):
        make("ollama")
    r = CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "ollama"])
    assert r.exit_code == 1 and r.output.startswith("Error: ") and r.output.count("\n") == 1


def test_the_ollama_hosts_are_not_in_the_config_digest():
    cfg = config.thaw(config.load("models").value)
    before = config.digest(msettings.without(cfg, msettings.MODELS_ASIDE))
    cfg["ollama"]["hosts"] = ["http://10.0.0.1:11434", "http://10.0.0.2:11434"]
    config.validate("models", cfg)
    assert config.digest(msettings.without(cfg, msettings.MODELS_ASIDE)) == before
