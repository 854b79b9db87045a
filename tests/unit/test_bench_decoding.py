"""The pure parts of the live side by side (bench/bench_decoding.py): the schema loosened as it
was before issue 22, the calls picked, and the table built from results. No model is asked."""

from __future__ import annotations

import json

from bench import bench_decoding as bd


def _schema(**props) -> bytes:
    return json.dumps({"type": "object", "properties": props, "required": sorted(props),
                       "additionalProperties": False}, separators=(",", ":")).encode()


STATEMENT = _schema(
    saying={"type": "string", "minLength": 5, "maxLength": 120,
            "pattern": "^[A-Z][a-z]+( [a-z]+)*[.]$"},
    ids={"type": "array", "items": {"type": "integer", "enum": [3, 7, 9]},
         "minItems": 1, "maxItems": 3})
NIGHT = _schema(groups={"type": "array", "maxItems": 3, "items": {
    "type": "object", "properties": {
        "anchor": {"type": "integer", "enum": [3, 7]},
        "taken": {"type": "array", "items": {"type": "integer", "enum": [3, 7, 9]},
                  "minItems": 1, "maxItems": 3, "uniqueItems": True}},
    "required": ["anchor", "taken"], "additionalProperties": False}})


def _words(node) -> set[str]:
    """Every key of a schema that is a schema's word, the answer's own keys left out."""
    if isinstance(node, list):
        return set().union(*map(_words, node)) if node else set()
    if not isinstance(node, dict):
        return set()
    out = set(node) - {"properties"}
    for k, v in node.items():
        out |= (set().union(*map(_words, v.values())) if k == "properties" else _words(v))
    return out


def test_a_loosened_schema_asks_for_no_enum_and_no_pattern_whatever_its_keys_are_named():
    for schema, purpose in ((STATEMENT, "statement"), (NIGHT, "night")):
        words = _words(json.loads(bd.loosened(schema, purpose)))
        assert "enum" not in words and "pattern" not in words


def test_a_loosened_statement_is_240_characters_drawn_from_at_most_16_ids():
    doc = json.loads(bd.loosened(STATEMENT, "statement"))
    assert doc["properties"]["saying"] == {"type": "string", "minLength": 5, "maxLength": 240}
    assert doc["properties"]["ids"] == {"type": "array", "items": {"type": "integer"},
                                        "minItems": 1, "maxItems": 16}
    assert doc["required"] == ["ids", "saying"] and doc["additionalProperties"] is False


def test_a_loosened_question_is_160_characters_and_the_count_of_questions_stays():
    asked = _schema(qs={"type": "array", "items": {"type": "string", "minLength": 1,
                                                   "maxLength": 100, "pattern": "^[A-Z].*[?]$"},
                        "minItems": 2, "maxItems": 2, "uniqueItems": True})
    doc = json.loads(bd.loosened(asked, "questions"))
    assert doc["properties"]["qs"] == {"type": "array", "items": {
        "type": "string", "minLength": 1, "maxLength": 160}, "minItems": 2, "maxItems": 2,
        "uniqueItems": True}


def test_a_loosened_night_plan_is_6_groups_of_at_most_6_rows_of_any_id():
    doc = json.loads(bd.loosened(NIGHT, "night"))
    groups = doc["properties"]["groups"]
    assert groups["maxItems"] == 6
    assert groups["items"]["properties"]["anchor"] == {"type": "integer"}
    assert groups["items"]["properties"]["taken"]["maxItems"] == 6


def test_loosening_never_narrows_a_bound_nor_drops_an_answer_key_named_like_a_schema_word():
    odd = _schema(pattern={"type": "string", "maxLength": 500},
                  enum={"type": "array", "items": {"type": "integer"}, "maxItems": 40})
    doc = json.loads(bd.loosened(odd, "statement"))
    assert doc["properties"] == {"pattern": {"type": "string", "maxLength": 500},
                                 "enum": {"type": "array", "items": {"type": "integer"},
                                          "maxItems": 40}}


def test_loosening_a_purpose_with_no_old_bound_keeps_its_bounds_and_drops_its_enums():
    doc = json.loads(bd.loosened(STATEMENT, "somethingelse"))
    assert doc["properties"]["saying"]["maxLength"] == 120
    assert doc["properties"]["ids"]["maxItems"] == 3
    assert "enum" not in doc["properties"]["ids"]["items"]


def test_a_few_calls_are_picked_in_turn_from_each_purpose_in_the_recordings_order():
    calls = [{"purpose": p, "n": i} for i, p in enumerate(
        ["questions", "statement", "statement", "questions", "statement", "night", "night"])]
    got = bd.pick(calls, 5)
    assert [(c["purpose"], c["n"]) for c in got] == [
        ("questions", 0), ("statement", 1), ("night", 5), ("questions", 3), ("statement", 2)]
    assert bd.pick(calls, None) == bd.pick(calls, 100) and len(bd.pick(calls, None)) == 7


def _r(setting, purpose, tokens_out, *, done="stop", text='{"a": "Orla ate."}', seconds=1.0):
    return bd.Result(setting, purpose, text, done, 128, 400, tokens_out, seconds)


def _row(lines, purpose, figure):
    """The cells of one row of the table, found by its purpose's block and its figure."""
    block = None
    for line in lines[1:]:
        head = line[2:12].strip()
        block = head or block
        if block == purpose and line[13:].startswith(figure):
            return line[13 + len(figure):].split()
    raise AssertionError(f"no row {figure!r} for {purpose!r} in the table")


def test_the_table_puts_the_two_settings_side_by_side_per_purpose_and_over_all():
    results = [_r(bd.BEFORE, "statement", 60, seconds=3.0), _r(bd.RECORDED, "statement", 20),
               _r(bd.BEFORE, "questions", 40), _r(bd.RECORDED, "questions", 30, seconds=2.0)]
    lines = bd.table(results)
    assert lines[0].split() == ["before", "22", "recorded"]
    assert [line[2:12].strip() for line in lines[1:] if line[2:12].strip()] == [
        "questions", "statement", "all"]
    assert _row(lines, "statement", "calls") == ["1", "1"]
    assert _row(lines, "statement", "tokens out (mean)") == ["60", "20"]
    assert _row(lines, "questions", "seconds (mean)") == ["1.0", "2.0"]
    assert _row(lines, "all", "calls") == ["2", "2"]
    assert _row(lines, "all", "tokens in (mean)") == ["400", "400"]
    assert _row(lines, "all", "tokens out (mean)") == ["50", "25"]
    assert _row(lines, "all", "seconds (mean)") == ["2.0", "1.5"]


def test_an_answer_is_counted_degenerate_by_the_measure_of_the_minds_own_test():
    looping = '{"a": "ate 5 ate 5 ate 5 ate 5 ate 5 ate 5"}'
    results = [_r(bd.BEFORE, "statement", 128, done="length"),
               _r(bd.BEFORE, "statement", 30, text=looping),
               _r(bd.RECORDED, "statement", 20), _r(bd.RECORDED, "statement", 20)]
    lines = bd.table(results)
    assert _row(lines, "statement", "answers that degenerate") == ["2/2", "100%", "0/2", "0%"]


def test_a_setting_with_no_answer_for_a_purpose_shows_a_dash_not_a_number():
    lines = bd.table([_r(bd.BEFORE, "night", 10)])
    assert _row(lines, "night", "calls") == ["1", "0"]
    assert _row(lines, "night", "tokens out (mean)") == ["10", "-"]


def test_without_the_live_recording_the_bench_says_in_one_line_how_to_make_it():
    lines = bd.run(world="no-such-world")
    assert len(lines) == 1
    assert "make bench-minds BENCH_WORLD=no-such-world" in lines[0]
    assert "skipped" in lines[0]


def test_a_bench_calls_that_is_not_a_count_is_one_line_naming_it(monkeypatch):
    monkeypatch.setenv("BENCH_CALLS", "eight")
    lines = bd.run(world="no-such-world")
    assert lines == ["decoding  BENCH_CALLS must be a whole number of calls >= 1 but is 'eight'; "
                     "the live side by side is skipped"]


def test_the_table_says_why_answers_degenerate_in_the_measures_own_order_of_reasons():
    looping = '{"a": "55 and 55 and 55 and 55 and 55 and 55"}'    # a loop, and half digits
    results = [_r(bd.BEFORE, "statement", 128, done="length"),
               _r(bd.BEFORE, "statement", 30, text=looping), _r(bd.RECORDED, "statement", 20)]
    lines = bd.table(results)
    assert _row(lines, "statement", "  by limit/loop/digits") == ["1/1/1", "0/0/0"]


def test_an_answer_is_the_recordings_only_when_it_is_the_same_text_byte_for_byte():
    results = [_r(bd.RECORDED, "night", 10, text='{"g": []}') for _ in range(2)]
    results = [bd.Result(**{**{f: getattr(r, f) for f in r.__slots__}, "recorded": rec})
               for r, rec in zip(results, ('{"g": []}', '{"g":[]}'), strict=True)]
    lines = bd.table(results)
    assert _row(lines, "night", "the recording's answer, byte for byte") == [
        "-", "1/2", "50%"]


def test_each_setting_quotes_its_first_answer_that_degenerates_and_why():
    results = [_r(bd.BEFORE, "statement", 20), _r(bd.BEFORE, "questions", 128, done="length",
                                                  text='{"qs": ["What ' + "x" * 200 + '"]}'),
               _r(bd.RECORDED, "statement", 20)]
    lines = bd.examples(results, n=30)
    assert lines == ['  before 22, a questions answer (limit): {"qs": ["What ' + "x" * 13 + "..."]


def test_the_recorded_setting_asks_with_the_calls_own_decoding_fill_included():
    from kernel.oracle import exemplar
    from kernel.oracle.base import Ask, Decoding, Said
    filled = Decoding(repeat_penalty=1.2, repeat_last_n=32, fill=True)
    ask = Ask("statement", "m", b"Why?", _schema(answer={"type": "string"}), 7, 0.0, 64, 2048,
              filled)
    said = Said(text="{}", done_reason="stop", tokens_in=1, tokens_out=1, took_ns=1, load_ns=0,
                model="m", digest="d")
    asks = bd._asks(exemplar.generate_record(ask, said, "llamacpp"))
    assert asks[bd.RECORDED].decoding == filled and asks[bd.BEFORE].decoding == Decoding()


def test_a_tied_statement_request_loosens_to_the_one_shape_it_had_before():
    from kernel.seam import drawn_schema
    tied = drawn_schema([4, 7, 9], lines={4: "Suvi left", 7: "ate 2 mouthfuls", 9: "Orla came"})
    got = json.loads(bd.loosened(tied, "statement"))
    assert "anyOf" not in got and not _words(got) & {"enum", "pattern", "const", "prefixItems"}
    assert got["properties"]["numbers"] == {"type": "array", "items": {"type": "integer"},
                                            "minItems": 1, "maxItems": 16}
    assert got["properties"]["answer"]["maxLength"] == 240
