"""`village interview`, through click's CliRunner, against the committed interviews: a battery
replays byte for byte from its recording with its scores printed, a one-byte change to the
interview template stops it naming both full digests, and the command writes nothing."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import config
from kernel.cli import main

REPO = Path(__file__).resolve().parents[2]
COMMITTED = ("day-of-twenty-four", "week-of-three")


@pytest.fixture(autouse=True)
def _home_as_it_was():
    """`--home` in process sets the home for the process: each test leaves it as it found it."""
    yield
    config.set_home(None)


def _run(*args):
    return CliRunner().invoke(main, [*map(str, args)], catch_exceptions=False)


@pytest.mark.parametrize("name", COMMITTED)
def test_the_committed_interviews_replay_byte_for_byte_from_their_recording(name):
    path = REPO / "exemplars" / "interviews" / f"{name}.json"
    assert path.is_file(), f"{path} is committed"
    asked = json.loads(path.read_text())["interview"]["who"]     # whom the recording asked
    res = _run("interview", name, "--battery", REPO / "configs" / "interview.json",
               "--variant", "full", *(a for w in asked for a in ("--who", w)))
    assert res.exit_code == 0, res.output
    assert "every prompt the recorded bytes" in res.output
    assert "the variants compared" in res.output


def test_variants_the_committed_interviews_were_not_asked_under_do_not_replay_from_them():
    # the committed interviews are asked under the full battery only (Makefile: 1.5B calls)
    res = _run("interview", "week-of-three", "--battery", REPO / "configs" / "interview.json",
               "--variant", "all")
    assert res.exit_code == 1
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "does not replay" in lines[0], res.output


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(REPO / "configs", home / "configs")
    shutil.copytree(REPO / "fixtures" / "week-of-three", home / "fixtures" / "week-of-three")
    (home / "exemplars" / "interviews").mkdir(parents=True)
    shutil.copyfile(REPO / "exemplars" / "week-of-three.json", home / "exemplars" / "week-of-three.json")
    shutil.copyfile(REPO / "exemplars" / "interviews" / "week-of-three.json",
                    home / "exemplars" / "interviews" / "week-of-three.json")
    return home


def test_a_one_byte_change_to_the_interview_template_stops_the_replay_naming_both_full_digests(
        tmp_path):
    home = _home(tmp_path)
    t = home / "configs" / "interview.tmpl"   # the template week-of-three's interviews render
    t.write_bytes(t.read_bytes().replace(b"village", b"villagE", 1))
    res = CliRunner().invoke(main, ["--home", str(home), "interview", "week-of-three",
                                    "--battery", str(home / "configs" / "interview.json"),
                                    "--variant", "full"])
    assert res.exit_code == 1
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1, res.output
    digests = re.findall(r"sha256 ([0-9a-f]{64})", lines[0])
    assert len(digests) == 2 and digests[0] != digests[1], lines[0]
    assert "does not replay" in lines[0]


def test_an_interview_writes_nothing_into_the_home(tmp_path):
    home = _home(tmp_path)
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in home.rglob("*") if p.is_file()}
    res = CliRunner().invoke(main, ["--home", str(home), "interview", "week-of-three",
                                    "--battery", str(home / "configs" / "interview.json"),
                                    "--variant", "full"])
    assert res.exit_code == 0, res.output
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in home.rglob("*") if p.is_file()}
    assert after == before


ROW = {"variant", "villager", "question", "category", "question_text", "text", "said", "cites",
       "accepted", "refused", "correct", "chance", "right", "cosine"}


def test_an_interview_in_json_is_one_object_of_every_figure_and_every_answers_row():
    import json

    res = _run("interview", "week-of-three", "--battery", REPO / "configs" / "interview.json",
               "--variant", "full", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)                  # one object, and nothing else printed
    assert (doc["scenario"], doc["tick"], doc["skipped"]) == ("week-of-three", 13999, [])
    assert doc["done"].startswith("replayed from ") and doc["transcript_sha256"] in doc["done"]
    assert len(doc["answers"]) == 36 and all(set(r) == ROW for r in doc["answers"])
    assert len(doc["scores"]) == 1 * 3 * 5 and len(doc["compared"]) == 1 * 5
    full = [r for r in doc["answers"] if r["variant"] == "full"]
    known = [r for r in full if r["correct"] is not None]
    memory = next(x for x in doc["compared"] if (x["variant"], x["category"]) == ("full", "memory"))
    assert memory["correct"] == sum(r["correct"] for r in known if r["category"] == "memory")
    assert {(d["villager"], d["answers"]) for d in doc["distinct"] if d["variant"] == "full"} == \
        {("Halla", 7), ("Ander", 8), ("Mose", 10)}


def test_a_strictly_scored_answer_names_a_right_villager_and_no_wrong_one():
    import json

    res = _run("interview", "week-of-three", "--battery", REPO / "configs" / "interview.json",
               "--variant", "full", "--json")
    names = {"Halla", "Ander", "Mose"}
    for r in json.loads(res.output)["answers"]:
        # a where-question's right answers are places, named as the strict rule names them
        if r["correct"] and r["right"] and set(r["right"]) <= names:
            said = {n for n in names - {r["villager"]}
                    if re.search(rf"\b{n}\b", r["text"], flags=re.I)}
            assert said and said <= set(r["right"]), r
