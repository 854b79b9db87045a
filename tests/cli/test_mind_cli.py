"""`village run`, `village replay` and `village reflect`, through click's CliRunner, with no model."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from kernel import log as vlog
from kernel.cli import main
from kernel.cli.reflect_cmd import MODES
from kernel.engine import scenario as msc


def invoke(*args):
    return CliRunner().invoke(main, list(args))


def test_every_command_answers_dash_h():
    for args in (["run", "-h"], ["replay", "-h"], ["reflect", "-h"], ["world", "-h"],
                 ["index", "-h"], ["sql", "-h"], *(["reflect", m, "-h"] for m in MODES)):
        res = invoke(*args)
        assert res.exit_code == 0 and "Usage:" in res.output, args


def test_run_with_the_replay_oracle_reaches_the_committed_head_and_prints_each_round(tmp_path):
    sc = msc.load("day-of-three")
    res = invoke("run", "day-of-three", "--oracle", "replay", "--out", str(tmp_path / "r.log"))
    assert res.exit_code == 0, res.output
    assert f"head {sc.head_sha256}" in res.output
    for p in sc.world.people:
        assert f"{p.name}" in res.output and "round at tick   1999" in res.output
    assert "calls," in res.output and "thoughts written" in res.output
    assert vlog.verify(tmp_path / "r.log").head_hex == sc.head_sha256


def test_recording_needs_a_live_oracle():
    res = invoke("run", "day-of-three", "--oracle", "replay", "--record")
    assert res.exit_code == 2 and "needs a live oracle" in res.output


def test_an_unknown_scenario_is_one_line_naming_the_committed_ones():
    res = invoke("run", "no-such-day")
    assert res.exit_code == 1 and "no scenario 'no-such-day'" in res.output
    assert "day-of-three" in res.output


def test_a_live_run_without_an_ollama_server_fails_before_tick_0_and_writes_no_log(tmp_path,
                                                                                  monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    started = time.monotonic()
    res = invoke("run", "day-of-three", "--oracle", "ollama", "--out", str(tmp_path / "r.log"))
    took = time.monotonic() - started
    assert res.exit_code == 1
    err = [x for x in res.output.splitlines() if x.startswith("Error:")]
    assert len(err) == 1 and "no Ollama server at http://127.0.0.1:9" in err[0] and "ollama serve" in err[0]
    # The pre-flight asked before tick 0: no world was simulated and no log was made.
    assert not (tmp_path / "r.log").exists()
    assert took < 10, f"the pre-flight took {took:.1f}s"


def test_settings_prints_every_number_and_both_templates_with_size_and_sha256():
    res = invoke("reflect", "settings")
    assert res.exit_code == 0, res.output
    for want in ("every 2000 ticks", "2, asked about the newest 24", "the depth cap  2",
                 "half-life 250, weights 1.00 1.00 3.00, k 8", "at most 128 tokens",
                 "configs/reflect-questions.tmpl,",
                 "configs/reflect-statement.tmpl,",
                 "thought  reflection     4", "plus 2 for the first thought"):
        assert want in res.output, want


def test_prompt_shows_the_window_and_its_sha256_against_the_recording():
    res = invoke("reflect", "prompt", "--who", "Halla")
    assert res.exit_code == 0, res.output
    assert "the same bytes; the recording is a recording of this template and this stream" in res.output
    assert "Halla's newest 24 rows at ticks up to 1999" in res.output


def test_reflect_shows_the_ranking_the_statement_and_the_verdict_per_question():
    # Mose: in day-of-three Halla's and Ander's questions each ask one question twice, refused
    res = invoke("reflect", "reflect", "--who", "Mose")
    assert res.exit_code == 0, res.output
    assert "rank    id   tick weight  recency" in res.output
    assert "the seam" in res.output and "the row appended" in res.output
    assert "requests rendered here and every one the recorded bytes" in res.output


def test_refuse_refuses_all_three_broken_copies_whole_and_writes_nothing():
    # day-of-three accepted no statement; day-of-twenty-four did
    res = invoke("reflect", "refuse", "day-of-twenty-four")
    assert res.exit_code == 0, res.output
    assert res.output.count("refused by cites") == 3
    assert "is not one this villager has" in res.output and "which is after tick" in res.output
    assert "3 statements refused whole, 0 rows written" in res.output


def test_chain_replays_the_five_days_under_the_cap():
    res = invoke("reflect", "chain")
    assert res.exit_code == 0, res.output
    assert "replayed here under cap 2" in res.output and "steps replayed" in res.output


def test_chain_under_a_cap_the_recording_never_reached_replays_it_whole():
    # SmolLM2's deepest thought in five-days-of-halla stands at depth 3 (tick 9999), with the
    # cap off; a cap of 3 never cuts it
    res = invoke("reflect", "chain", "--cap", "3")
    assert res.exit_code == 0, res.output
    assert "the cap never cut the chain" in res.output and "0 refused for depth" in res.output


def test_chain_under_a_cap_at_the_models_deepest_thought_never_cuts_it():
    # five-days-of-halla, recorded with the cap off, holds no thought deeper than 1: cap 1 is
    # never reached, and every call is the recorded one
    res = invoke("reflect", "chain", "--cap", "1")
    assert res.exit_code == 0, res.output
    assert "replayed here under cap 1" in res.output
    assert ("the cap never cut the chain: the model's deepest thought in this recording stands "
            "at depth 1, within the cap of 1") in res.output
    assert "5 steps replayed, 7 thoughts written, 0 refused for depth" in res.output


def test_a_recording_made_under_cap_2_whose_thoughts_cite_no_thought_is_never_cut_by_cap_1():
    # week-of-three, recorded with the cap at 2: since its statements are asked for one
    # sentence that says only what its lines say, none cites a thought of its own
    res = invoke("reflect", "chain", "week-of-three", "--cap", "1")
    assert res.exit_code == 0, res.output
    assert "replayed here under cap 1" in res.output and "stands at depth 1" in res.output
    assert "7 steps replayed, 25 thoughts written, 0 refused for depth" in res.output


def test_a_replay_stopped_by_the_cap_says_it_stopped_at_the_cut_naming_the_thought_and_counts_depth_refusals_only_in_rounds_replayed():
    # No committed recording holds a thought of depth 2 now, so the ending is rendered from
    # the chain a replay stopped at the cut would give (report.chain's own test holds when)
    from kernel.cli.reflect_cmd import _chain_end
    from kernel.report.views import Chain, Cut
    cut = Cut(5999, "Halla", 2, 2, 1, "I was near Ander this evening.", (161, 233))
    ch = Chain(recorded_cap=2, cap=1, steps=(), rounds=2, thoughts=6, refused_depth=0,
               stopped_at=5999, stopped="the prompt differs", left=3, deepest=2, cuts=(cut,))
    out = "\n".join(_chain_end(ch, 1))
    assert "the replay stopped at tick 5999, where the cap cut the chain" in out
    assert "the recording, made with the cap at 2, let stand what cap 1 refuses" in out
    assert "Halla's statement 2" in out and "(citing 161, 233)" in out
    assert "a thought of depth 2, over the cap of 1" in out
    assert ("2 steps replayed whole before the stop, 6 thoughts written, 0 refused for depth "
            "in them; the cut (1 statement refused for depth) is in the round the replay "
            "stopped in, not among them") in out


def test_a_replay_the_cap_never_cuts_counts_its_rounds_as_before():
    res = invoke("reflect", "chain", "--cap", "0")
    assert res.exit_code == 0, res.output
    assert "5 steps replayed, 7 thoughts written, 0 refused for depth" in res.output
    assert "cut the chain" not in res.output and "stopped" not in res.output


def test_a_cap_that_refused_for_depth_where_no_later_call_reads_it_says_the_replay_ran_to_its_end():
    # No committed recording has such a cut now (a refusal changes the round's embedding of
    # its statements), so the ending is rendered from the chain a replay would give.
    from kernel.cli.reflect_cmd import _chain_end
    from kernel.report.views import Chain
    ch = Chain(recorded_cap=0, cap=1, steps=(), rounds=5, thoughts=6, refused_depth=1,
               stopped_at=None, stopped=None, left=0, deepest=2)
    assert _chain_end(ch, 1) == [
        "  the cap refused 1 statement(s) for depth, and every call after was still the "
        "recorded one, so the replay ran to its end",
        "  5 steps replayed, 6 thoughts written, 1 refused for depth"]


def test_an_unknown_villager_is_one_line():
    res = invoke("reflect", "prompt", "--who", "Nobody")
    assert res.exit_code == 1 and "no villager named 'Nobody'" in res.output


@pytest.mark.parametrize("mode", ["prompt", "reflect", "refuse", "chain"])
def test_a_scenario_without_a_recording_is_refused_in_one_line(mode):
    res = invoke("reflect", mode, "village-day")
    assert res.exit_code == 1 and "has no recording to replay" in res.output


# Which options each subcommand reads; every other option of the old `--mode` is refused.
READS = {"settings": set(), "prompt": {"--who"}, "reflect": {"--who"}, "refuse": {"--who"},
         "chain": {"--cap"}, "night": {"--who", "--day"}, "felt": {"--who", "--tick"}}
OPTION_VALUE = {"--who": "Halla", "--cap": "1", "--day": "1", "--tick": "5"}


@pytest.mark.parametrize("mode", sorted(READS))
def test_each_subcommand_takes_only_the_options_it_reads(mode):
    assert set(READS) == set(MODES)
    shown = invoke("reflect", mode, "-h")
    assert shown.exit_code == 0, shown.output
    for opt, value in OPTION_VALUE.items():
        if opt in READS[mode]:
            assert opt in shown.output, (mode, opt)
            continue
        assert opt not in shown.output, (mode, opt)
        res = invoke("reflect", mode, opt, value)
        assert res.exit_code == 2 and "No such option" in res.output and opt in res.output, (mode, opt)


@pytest.mark.parametrize("args", [["settings"], ["prompt", "--who", "Halla"], ["refuse"],
                                  ["chain", "--cap", "1"]])
def test_the_mode_alias_prints_the_subcommands_bytes_and_one_line_saying_it_is_deprecated(args):
    mode, *rest = args
    new = invoke("reflect", mode, *rest)
    old = invoke("reflect", "--mode", mode, *rest)
    assert new.exit_code == old.exit_code == 0, old.output
    assert old.stdout_bytes == new.stdout_bytes and new.stderr == ""
    (note,) = old.stderr.splitlines()
    assert "--mode" in note and "deprecated" in note and f"use `village reflect {mode}`" in note


def test_the_mode_alias_still_takes_every_old_option_and_ignores_those_its_mode_never_read():
    new = invoke("reflect", "settings", "day-of-three")
    old = invoke("reflect", "--who", "Nobody", "--mode=settings", "--cap", "3", "--day", "2",
                 "--tick", "9", "day-of-three")
    assert old.exit_code == 0, old.output
    assert old.stdout_bytes == new.stdout_bytes
    assert invoke("reflect", "--mode", "bogus").exit_code == 2
    assert invoke("reflect", "--mode", "chain", "--cap", "-1").exit_code == 2


def test_felt_without_a_villager_shows_the_first_who_reflects_as_its_help_says():
    res = invoke("reflect", "felt", "day-of-three")
    named = invoke("reflect", "felt", "--who", "Halla", "day-of-three")
    assert res.exit_code == 0 and named.exit_code == 0, res.output
    assert res.stdout_bytes == named.stdout_bytes


def test_a_recording_that_does_not_replay_is_one_line_that_says_so(monkeypatch):
    from kernel import report
    from kernel.errors import ReplayMismatch

    def stopped(sc):
        raise ReplayMismatch("replay stopped at call 1 (questions):\nthe prompt differs")
    monkeypatch.setattr(report, "settings_view", stopped)
    res = invoke("reflect", "settings")
    assert res.exit_code == 1 and res.stderr.splitlines() == [
        "Error: the recording does not replay: replay stopped at call 1 (questions): the prompt differs"]


def test_settings_show_the_sentence_embedders_own_pin_felt_retrieval_and_the_night():
    import json
    from pathlib import Path

    configs = Path(__file__).resolve().parents[2] / "configs"
    onnx = json.loads((configs / "embedder.json").read_text())["minilm"]["files"]["model"]["sha256"]
    gguf = json.loads((configs / "models.json").read_text())["llamacpp"]["sha256"]
    # reflect settings reads day-of-three, which runs under the home's thought file
    night = json.loads((configs / "thought.json").read_text())["night"]
    res = invoke("reflect", "settings")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    (model,) = [x for x in lines if x.startswith("  the model ")]
    (embedding,) = [x for x in lines if x.startswith("  the embedding ")]
    assert model.endswith(f"pinned at {gguf[:16]}")
    assert f"pinned at {onnx[:16]}" in embedding and gguf[:16] not in embedding
    assert "its importance term is a row's felt strength now, off the importance table's valences" in lines[6]
    for want in ("the night      at every day's last tick", f"showing the newest {night['shown']} of them",
                 f"at most {night['groups']} groups, each absorbing at most {night['members']} rows",
                 f"at most {night['limit']} tokens", "configs/night-plan.tmpl,"):
        assert want in res.output, want


def test_settings_without_felt_retrieval_or_a_night_say_so(tmp_path):
    import json
    import shutil
    from pathlib import Path

    from kernel import config

    repo = Path(__file__).resolve().parents[2]
    home = tmp_path / "home"
    shutil.copytree(repo / "configs", home / "configs")
    shutil.copytree(repo / "fixtures" / "day-of-three", home / "fixtures" / "day-of-three")
    own = home / "configs" / "thought.json"   # the thought file day-of-three reads
    t = json.loads(own.read_text())
    del t["night"]
    t["retrieval"]["importance"] = "weight"
    own.write_text(json.dumps(t))
    try:
        res = invoke("--home", str(home), "reflect", "settings")
    finally:
        config.set_home(None)
    assert res.exit_code == 0, res.output
    assert "its importance term is a row's weight / 10" in res.output
    assert "the night      none: the thought settings have no night block" in res.output
    assert "night-plan.tmpl" not in res.output
