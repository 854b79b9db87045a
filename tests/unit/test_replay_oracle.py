"""Replay: a recording answers the code it is a recording of, and stops at the first call it is not."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from kernel.errors import OracleError, ReplayMismatch
from kernel.oracle import Ask, RecordingOracle, ReplayOracle, make
from kernel.oracle import exemplar as ex
from kernel.seam import DRAWN_SCHEMA, asked_schema, render, shaped
from kernel.testing import ScriptedOracle

MODEL, EMBED = "smollm2:135m-instruct", "smollm2:135m-instruct/mean"
HALLA = [{"id": 1, "text": "Ander came into sight, 0.8 cells off"},
         {"id": 11, "text": "Ander took 40 parcels out of Halla's hands, 20.0 grams"}]
QUESTIONS = '{"questions": ["What did Ander do?", "Why did Halla give?"]}'
STATEMENT = '{"answer": "Halla gave and Ander took", "numbers": [1, 11]}'


def questions_ask(name="Halla") -> Ask:
    p = render("reflect-questions", name=name, memories=HALLA, lived=HALLA, count=2,
               interests="").bytes
    return Ask("questions", MODEL, p, asked_schema(2), 2901, 0.0, 128, 2048)


def statement_ask(question="What did Ander do?") -> Ask:
    p = render("reflect-statement", name="Halla", memories=HALLA, lived=HALLA, interests="",
               question=question).bytes
    return Ask("statement", MODEL, p, DRAWN_SCHEMA, 2901, 0.0, 128, 2048)


def run(o) -> tuple:
    """One small reflection's calls: questions, their embedding, one statement."""
    q = o.generate(questions_ask())
    v = o.embed(EMBED, shaped(q, asked_schema(2))["questions"], purpose="questions embedded")
    s = o.generate(statement_ask())
    return q, v, s


@pytest.fixture
def recording(tmp_path):
    rec = RecordingOracle(ScriptedOracle([QUESTIONS, STATEMENT], dim=16, digest="f" * 64))
    live = run(rec)
    path = rec.save(tmp_path / "exemplars" / "halla.json")
    return path, live


def test_a_recording_replays_the_same_answers_tokens_durations_and_vectors(recording):
    path, (q, v, s) = recording
    o = ReplayOracle(path)
    rq, rv, rs = run(o)
    assert (rq, rs) == (q, s), "the Said is the recorded one, tokens and durations included"
    assert rv.dtype == np.float32 and rv.tobytes() == v.tobytes(), "vectors to the bit"
    assert (o.read, o.matched, o.unread, o.calls, o.embeddings) == (3, 3, 0, 2, 2)


def test_the_file_is_labelled_readable_and_written_with_sorted_keys(recording):
    path, _ = recording
    raw = path.read_text(encoding="utf-8")
    doc = json.loads(raw)
    assert doc["format"] == 2 and doc["backend"] == "scripted"
    assert doc["models"] == {MODEL: {"digest": "f" * 64, "backend": "scripted"},
                             EMBED: {"digest": "f" * 64, "backend": "scripted"}}
    assert raw == json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    first = doc["calls"][0]
    assert "[11] Ander took 40 parcels out of Halla's hands, 20.0 grams" in first["prompt"]
    assert first["options"] == {"seed": 2901, "temperature": 0.0, "limit": 128, "context": 2048,
                                "repeat_penalty": 1.0, "repeat_last_n": 64, "top_k": 40,
                                "top_p": 0.95, "min_p": 0.05}
    assert first["schema"] == asked_schema(2).decode()
    assert [c["kind"] for c in doc["calls"]] == ["generate", "embed", "generate"]
    assert not list(path.parent.glob(".*.tmp")), "no temporary file is left behind"


def test_a_one_byte_change_to_a_prompt_is_refused_with_both_full_digests_and_lengths(recording):
    path, _ = recording
    o = ReplayOracle(path)
    changed = questions_ask(name="Hallb")
    recorded = questions_ask()
    with pytest.raises(ReplayMismatch) as e:
        o.generate(changed)
    msg = str(e.value)
    assert msg == (f"replay stopped at call 1 (questions): the prompt rendered here is "
                   f"{len(changed.prompt)} bytes, sha256 {changed.prompt_sha256}, and the "
                   f"recording's is {len(recorded.prompt)} bytes, sha256 "
                   f"{recorded.prompt_sha256}: the recording is not a recording of this code")
    assert (e.value.here, e.value.recorded) == (changed.prompt_sha256, recorded.prompt_sha256)
    assert (o.read, o.matched) == (1, 0)


def test_nothing_is_answered_after_a_mismatch(recording):
    path, _ = recording
    o = ReplayOracle(path)
    with pytest.raises(ReplayMismatch):
        o.generate(questions_ask(name="Mose"))
    with pytest.raises(ReplayMismatch, match="call 1 "):
        o.generate(questions_ask())
    assert o.calls == 0


def test_running_past_the_end_of_the_recording_is_a_mismatch(recording):
    path, _ = recording
    o = ReplayOracle(path)
    run(o)
    with pytest.raises(ReplayMismatch, match=r"^replay stopped at call 4 \(statement\): the "
                                             r"recording holds 3 calls and this code asks for another"):
        o.generate(statement_ask())


def test_a_call_of_another_kind_or_purpose_is_a_mismatch(recording):
    path, _ = recording
    o = ReplayOracle(path)
    with pytest.raises(ReplayMismatch, match=r"call 1 \(questions embedded\): this code asks to "
                                             r"embed, and the recording's call 1 is to generate"):
        o.embed(EMBED, ["What did Ander do?"], purpose="questions embedded")
    o = ReplayOracle(path)
    a = questions_ask()
    wrong = Ask("statement", a.model, a.prompt, a.schema, a.seed, a.temperature, a.limit, a.context)
    with pytest.raises(ReplayMismatch, match="asks for 'statement'.*is for 'questions'"):
        o.generate(wrong)


def test_other_texts_to_embed_are_a_mismatch_naming_both_digests(recording):
    path, _ = recording
    o = ReplayOracle(path)
    o.generate(questions_ask())
    with pytest.raises(ReplayMismatch, match=r"call 2 \(questions embedded\): the 2 texts embedded "
                                             r"here are \d+ bytes, sha256 [0-9a-f]{64}, and the "
                                             r"recording's 2 are \d+ bytes, sha256 [0-9a-f]{64}:"):
        o.embed(EMBED, ["What did Ander do?", "Why?"], purpose="questions embedded")


@pytest.mark.parametrize("field,value", [("seed", 2902), ("limit", 64), ("context", 4096),
                                         ("temperature", 0.5), ("model", "qwen2.5:0.5b")])
def test_the_same_prompt_under_other_options_is_a_mismatch(recording, field, value):
    path, _ = recording
    a = questions_ask()
    d = {f: getattr(a, f) for f in ("purpose", "model", "prompt", "schema", "seed",
                                    "temperature", "limit", "context")}
    d[field] = value
    with pytest.raises(ReplayMismatch, match=f"the {field} here is"):
        ReplayOracle(path).generate(Ask(**d))


def test_a_hand_edited_prompt_is_found_when_the_file_is_read(recording):
    path, _ = recording
    doc = json.loads(path.read_text())
    lines = doc["calls"][0]["prompt"]
    at = next(i for i, ln in enumerate(lines) if "Ander" in ln)
    lines[at] = lines[at].replace("Ander", "Andor")
    path.write_text(json.dumps(doc))
    with pytest.raises(OracleError, match="call 1 \\(questions\\).*the file was edited by hand"):
        ReplayOracle(path)


def test_a_file_that_is_not_an_exemplar_file_is_refused_with_its_path(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": 2, "calls": []}')
    with pytest.raises(OracleError, match="does not match configs/schema/exemplar.json"):
        ReplayOracle(p)
    with pytest.raises(OracleError, match="no recording at"):
        ReplayOracle(tmp_path / "missing.json")


def test_vectors_are_stored_exactly_as_float32_little_endian():
    v = np.array([[1.0, -0.1, 3.4028235e38], [np.float32(1e-45), 0.0, -0.0]], dtype=np.float32)
    rec = ex.embed_record(purpose="p", model="m", digest="d", backend="b", texts=["a", "b"],
                          vectors=v, took_ns=0, tokens_in=0)
    assert rec["dim"] == 3
    assert ex.vectors(rec).tobytes() == v.astype("<f4").tobytes()


def test_every_embedding_call_carries_the_sha256_of_its_vectors_bytes(recording):
    path, (_, v, _) = recording
    doc = json.loads(path.read_text())
    (rec,) = [c for c in doc["calls"] if c["kind"] == "embed"]
    assert rec["vectors_sha256"] == hashlib.sha256(v.astype("<f4").tobytes()).hexdigest()


def _flip_one_base64_character(doc: dict) -> None:
    rec = [c for c in doc["calls"] if c["kind"] == "embed"][0]
    b64 = rec["vectors"]
    i = 8  # inside the first vector, well clear of the padding
    rec["vectors"] = b64[:i] + ("B" if b64[i] != "B" else "C") + b64[i + 1:]


def test_a_vector_changed_by_one_base64_character_is_found_when_the_file_is_read(recording):
    path, _ = recording
    doc = json.loads(path.read_text())
    _flip_one_base64_character(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(OracleError, match=r"call 2 \(questions embedded\): an embed record's "
                                          r"vectors have sha256 [0-9a-f]{64}, but are labelled "
                                          r"[0-9a-f]{64}: the vectors were changed"):
        ReplayOracle(path)


def test_a_format_2_file_without_a_vectors_sha256_is_refused(recording):
    path, _ = recording
    doc = json.loads(path.read_text())
    for c in doc["calls"]:
        c.pop("vectors_sha256", None)
    path.write_text(json.dumps(doc))
    with pytest.raises(OracleError, match="'vectors_sha256' is a required property"):
        ReplayOracle(path)


def test_a_format_1_file_is_still_read_with_a_one_line_notice(recording, monkeypatch):
    path, (q, v, s) = recording
    doc = json.loads(path.read_text())
    doc["format"] = 1
    for c in doc["calls"]:
        c.pop("vectors_sha256", None)
    path.write_text(json.dumps(doc))
    said: list[str] = []
    monkeypatch.setattr(ex, "notice", said.append)
    rq, rv, rs = run(ReplayOracle(path))
    assert (rq, rs) == (q, s) and rv.tobytes() == v.tobytes()
    assert len(said) == 1 and "\n" not in said[0]
    assert said[0].startswith(f"{path} is a format 1 recording")


def test_a_format_1_notice_is_one_line_on_stderr_once_per_recording(recording, capsys):
    path, _ = recording
    doc = json.loads(path.read_text())
    doc["format"] = 1
    path.write_text(json.dumps(doc))
    ReplayOracle(path)
    ReplayOracle(path)
    err = capsys.readouterr().err
    assert err == f"village: note: {path} is a format 1 recording: its vectors carry no sha256 " \
                  f"and are read unchecked; a re-recording writes format 2\n"


def test_a_format_1_notice_can_be_a_warning(recording, monkeypatch):
    path, _ = recording
    doc = json.loads(path.read_text())
    doc["format"] = 1
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(ex, "notice", ex.as_warning)
    with pytest.warns(ex.FormatNotice, match="is a format 1 recording"):
        ReplayOracle(path)


def test_a_recording_with_a_key_twice_is_refused_not_read_last_one_wins(recording):
    path, _ = recording
    raw = path.read_text()
    path.write_text(raw.replace('"format": 2,', '"format": 2, "format": 2,', 1))
    with pytest.raises(OracleError, match="the key 'format' appears twice"):
        ReplayOracle(path)


def test_make_replay_needs_a_recording_and_makes_none(recording):
    path, _ = recording
    assert isinstance(make("replay", replay_from=path), ReplayOracle)
    with pytest.raises(OracleError, match="needs a recording"):
        make("replay")
    with pytest.raises(OracleError, match="makes none"):
        make("replay", replay_from=path, record_to=path)
