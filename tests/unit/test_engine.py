"""The engine: one driver, ordered phases, projections folded by one fold."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

import kernel
from kernel import config, engine
from kernel import events as ev
from kernel import log as vlog
from kernel.engine import scenario as msc
from kernel.errors import VillageError
from kernel.laws import perception
from kernel.oracle import make

KERNEL = Path(kernel.__file__).parent


def _calls(name: str) -> dict[str, int]:
    """Files of kernel/ that call a function named `name`, and how often."""
    out: dict[str, int] = {}
    for p in KERNEL.rglob("*.py"):
        tree = ast.parse(p.read_text())
        for n in ast.walk(tree):
            if isinstance(n, ast.Call):
                f = n.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if called == name:
                    key = str(p.relative_to(KERNEL))
                    out[key] = out.get(key, 0) + 1
    return out


def test_only_the_engine_calls_the_perception_fold():
    assert set(_calls("perceive")) == {"engine/projection.py"}


def test_only_the_one_fold_reads_tick_frames_to_build_state():
    assert set(_calls("read_ticks")) <= {"engine/projection.py", "log/log.py"}


def test_no_copy_of_the_tick_order_check_is_left_in_kernel():
    hits = [str(p.relative_to(KERNEL)) for p in KERNEL.rglob("*.py")
            if "frames come in tick order" in p.read_text()]
    assert hits == ["laws/perception.py"]


def test_nothing_outside_the_scenario_reads_its_raw_value():
    for p in KERNEL.rglob("*.py"):
        if p.name == "scenario.py" and p.parent.name == "engine":
            continue
        tree = ast.parse(p.read_text())
        reads = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "raw"]
        assert not reads, p


def test_every_event_kind_says_whom_it_concerns_and_what_a_villager_perceives_of_it():
    assert set(perception.PERCEIVED) == set(ev.KINDS)
    for kind, cls in ev.KINDS.items():
        fields = {f.name for f in dataclasses.fields(cls)}
        who, other = cls.concerns
        # a kind of the world's own (a place named) concerns nobody, and says so
        assert who in fields or (who, other) == (None, None), kind
        assert other is None or other in fields, kind
        how = perception.PERCEIVED[kind]
        assert how is None or callable(getattr(perception._Frame, how)), kind


def test_the_phases_are_world_given_talk_perceive_reflect_night_basins_plan_in_that_order():
    assert [f.name for f in engine.FEATURES] == ["world", "given", "talk", "perceive",
                                                   "reflect", "night", "basins", "plan"]


def test_a_world_run_is_a_scenario_whose_reflect_phase_has_nobody_due(tmp_path):
    sc = msc.load("village-day")
    assert sc.world_only and sc.settings is None
    a = engine.run(sc, None, tmp_path / "a.log")
    b = engine.run_world(sc.world, sc.ticks, tmp_path / "b.log")
    assert a.head_hex == b.head_hex == sc.head_sha256
    assert (tmp_path / "a.log").read_bytes() == (tmp_path / "b.log").read_bytes()


def test_who_is_due_follows_settings_changed_mid_run_as_a_fork_changes_them():
    sc = msc.load("day-of-three")
    en = engine.Engine(sc, make("replay", replay_from=sc.exemplars))
    every = en.settings.every
    assert en.due(100) == []  # nobody due at tick 100: the ticks up to the next due are known
    first = min(p.founded for p in en.cast.reflecting)
    soon = first + 299  # due under every=300, not under the scenario's own cadence
    assert every != 300 and soon > 100 and en.due(soon) == []
    en.settings = dataclasses.replace(en.settings, every=300)
    fresh = engine.Engine(sc, make("replay", replay_from=sc.exemplars),
                          settings=en.settings)
    assert en.due(soon) == fresh.due(soon) != []


def test_the_header_digest_formulas_are_pinned():
    # A world run's header holds the world config's digest; a run with reflection holds the
    # digest of the world's digest and each settings digest by name: the thought and
    # importance files whole, the models and embedder files without where and how fast a
    # model runs, and the seven templates' bytes (of configs/, or of the folder the scenario names). Both formulas are in committed heads.
    from kernel.mind import settings as msettings
    from kernel.seam import QUESTIONS, STATEMENT, template_file
    from kernel.seam.basins import BASINS_KEYWORDS, BASINS_UPDATE, BASINS_VIEW, PLAN
    from kernel.seam.plan import NIGHT

    day = msc.load("village-day")
    assert day.header_digest == day.world.digest == config.load(day.folder / "world.json",
                                                                schema="world").digest
    sc = msc.load("day-of-three")
    parts = dict(sc.settings.digests)
    models = config.thaw(config.load(dict(sc.files)["models"], schema="models").value)
    for k in ("timeout_s", "keep_alive"):
        del models[k]
    del models["llamacpp"]["threads"], models["llamacpp"]["sequences"]
    del models["ollama"]["host"], models["ollama"]["get"]
    del models["openai"]   # which server answers, and by which names: its pins are in its calls
    embedder = config.thaw(config.load("embedder").value)
    del embedder["minilm"]["threads"]
    assert parts == {
        "basins-keywords": template_file(BASINS_KEYWORDS).sha256,
        "basins-update": template_file(BASINS_UPDATE).sha256,
        "basins-view": template_file(BASINS_VIEW).sha256,
        "embedder": config.digest(embedder),
        "importance": config.load("importance").digest,
        "models": config.digest(models),
        "night": template_file(NIGHT).sha256,
        "plan": template_file(PLAN).sha256,
        "questions": template_file(QUESTIONS).sha256,
        "statement": template_file(STATEMENT).sha256,
        "thought": config.load("thought").digest,
    }
    assert sc.header_digest == sc.digest == config.digest({"world": sc.world.digest, **parts})
    assert sc.digest == "0577751e1cbe27b1060b0e09aaaf53c3c64daeb22a28dc24e7ba96d2e013d496"
    # where and how fast a model runs is not in it; which model answers is
    other = config.thaw(config.load(dict(sc.files)["models"], schema="models").value)
    other.update(timeout_s=5, keep_alive="1h")
    other["llamacpp"]["threads"] = 7
    other["ollama"]["host"] = "http://elsewhere:1"
    aside = config.digest(msettings.without(other, msettings.MODELS_ASIDE))
    assert aside == parts["models"]
    other["generate"] = "another:model"
    assert config.digest(msettings.without(other, msettings.MODELS_ASIDE)) != parts["models"]


def test_folding_the_log_gives_the_memory_the_live_run_held(tmp_path):
    sc = msc.load("day-of-three")
    held = engine.MemoryProjection(sc.rules)
    engine.run(sc, make("replay", replay_from=sc.exemplars), tmp_path / "r.log", projections=[held])
    folded = engine.memory_of(tmp_path / "r.log", rules=sc.rules)
    assert list(folded.rows) == held.rows
    assert folded.perception == held.state


def test_vectors_are_no_projection_of_the_log_alone(tmp_path):
    sc = msc.load("day-of-three")
    engine.run(sc, make("replay", replay_from=sc.exemplars), tmp_path / "r.log")
    mem = engine.MemoryProjection(sc.rules)
    with pytest.raises(VillageError, match="not in the log"):
        engine.fold(tmp_path / "r.log", [mem, engine.VectorsProjection()])


def test_vectors_folded_with_the_recording_are_the_vectors_the_run_held(tmp_path):
    sc = msc.load("day-of-three")
    seen: dict[int, np.ndarray] = {}
    engine.run(sc, make("replay", replay_from=sc.exemplars), tmp_path / "r.log",
               on_round=lambda r: seen.update(r.vectors))
    mem = engine.MemoryProjection(sc.rules)
    vec = engine.VectorsProjection(engine.RecordedVectors(sc.exemplars))
    engine.fold(tmp_path / "r.log", [mem, vec])
    assert seen and set(seen) <= set(vec.by_id)
    for row, v in seen.items():
        assert vec.vector(row).tobytes() == v.tobytes()


def test_an_error_in_any_phase_leaves_the_log_at_the_last_whole_tick(tmp_path):
    def broken(en, ts, so_far):
        if ts.tick == 7:
            raise VillageError("the phase broke at tick 7")
        return ()

    sc = engine.of_world("world", ticks=20)
    with pytest.raises(VillageError, match="tick 7"):
        engine.run(sc, None, tmp_path / "r.log", phases=(*engine.FEATURES, ("broken", broken)))
    s = vlog.verify(tmp_path / "r.log")
    assert s.last_tick == 6 and not s.tail.torn


def test_a_run_that_fails_before_its_first_tick_leaves_no_file(tmp_path):
    def broken(en, ts, so_far):
        raise VillageError("the phase broke at once")

    sc = engine.of_world("world", ticks=20)
    with pytest.raises(VillageError):
        engine.run(sc, None, tmp_path / "r.log", phases=(("broken", broken),))
    assert not (tmp_path / "r.log").exists()
