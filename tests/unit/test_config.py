"""Config files are checked against their schema, every error reported with its path."""

from __future__ import annotations

import json
import os

import pytest

from kernel import config, jsonstrict
from kernel.errors import ConfigError


@pytest.fixture
def home(tmp_path, monkeypatch):
    (tmp_path / "configs" / "schema").mkdir(parents=True)
    (tmp_path / "configs" / "schema" / "toy.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "additionalProperties": False,
        "required": ["name", "every", "people"],
        "properties": {
            "name": {"type": "string"},
            "every": {"type": "integer", "minimum": 1},
            "people": {"type": "array", "items": {"type": "object", "required": ["id"],
                                                   "properties": {"id": {"type": "integer"}}}},
        },
    }))
    monkeypatch.setenv("VILLAGE_HOME", str(tmp_path))
    return tmp_path


def test_a_good_config_loads_frozen_with_the_digest_of_its_canonical_bytes(home):
    (home / "configs" / "toy.json").write_text('{ "every": 2000, "name": "a", "people": [{"id": 1}] }')
    c = config.load("toy")
    assert c.value.every == 2000 and c["people"][0]["id"] == 1
    assert c.digest == config.digest({"name": "a", "every": 2000, "people": [{"id": 1}]})
    with pytest.raises(AttributeError):
        c.value.every = 3
    with pytest.raises(TypeError):
        c.value["every"] = 3  # type: ignore[index]


def test_a_bad_config_reports_every_error_with_its_path_in_one_line(home):
    (home / "configs" / "toy.json").write_text(
        '{"name": 5, "every": 0, "people": [{"id": "x"}], "extra": true}')
    with pytest.raises(ConfigError) as e:
        config.load("toy")
    msg = str(e.value)
    assert "\n" not in msg and "4 errors" in msg
    for where in ("at $.name", "at $.every", "at $.people[0].id", "at $: Additional properties"):
        assert where in msg, where


def test_a_config_that_is_not_json_is_refused_with_its_line(home):
    (home / "configs" / "toy.json").write_text('{"name": "a",\n "every": }')
    with pytest.raises(ConfigError, match="is not JSON: .* line 2"):
        config.load("toy")


def test_a_missing_config_or_schema_is_named(home):
    with pytest.raises(ConfigError, match="no config file"):
        config.load("toy")
    (home / "configs" / "other.json").write_text("{}")
    with pytest.raises(ConfigError, match="no schema for config 'other'"):
        config.load("other")


# -- strict JSON and bounds: every bad file is one ConfigError naming the rule and the value ----

WORLD = (config.shipped() / "configs" / "world.json").read_text(encoding="utf-8")


def world_file(tmp_path, text: str | bytes):
    p = tmp_path / "w.json"
    p.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return p


def world_with(**top) -> str:
    v = json.loads(WORLD)
    v.update(top)
    return json.dumps(v)


def test_a_key_given_twice_is_refused_rather_than_the_last_one_winning(tmp_path):
    p = world_file(tmp_path, WORLD.replace('"seed": 20240611,', '"seed": 20240611, "seed": 7,'))
    with pytest.raises(ConfigError, match=r"is not strict JSON: the key 'seed' appears twice"):
        config.load(p, schema="world")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])
def test_a_number_that_is_not_finite_is_refused_in_every_config(tmp_path, literal):
    p = world_file(tmp_path, WORLD.replace('"sight_cells": 3,', f'"sight_cells": {literal},'))
    with pytest.raises(ConfigError, match="is not strict JSON: .*(not a number JSON has|too large to be a finite)"):
        config.load(p, schema="world")


def test_a_value_handed_in_with_a_non_finite_number_is_refused_too():
    v = json.loads(world_with(reach_cells=float("nan")))
    with pytest.raises(ConfigError, match="holds the number nan; every number must be finite"):
        config.validate("world", v, source="w")


def test_an_integer_of_thousands_of_digits_is_refused_before_it_is_read(tmp_path):
    p = world_file(tmp_path, WORLD.replace('"seed": 20240611,', '"seed": 1' + "0" * 5000 + ","))
    with pytest.raises(ConfigError, match="an integer of 5001 digits"):
        config.load(p, schema="world")


def test_nesting_a_hundred_thousand_deep_is_refused_before_anything_recurses(tmp_path):
    p = world_file(tmp_path, "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigError, match="nests objects and arrays 100000 deep; at most 64"):
        config.load(p, schema="world")


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert jsonstrict.depth('{"a": "[[[[{{{{", "b": ["\\"]]]"]}') == 2


def test_bytes_that_are_not_utf8_are_refused_naming_the_offset(tmp_path):
    p = world_file(tmp_path, b'{"seed": 1, "description": "caf\xe9"}')
    with pytest.raises(ConfigError, match=r"is not UTF-8: byte 0xe9 at offset 31"):
        config.load(p, schema="world")


def test_a_config_path_that_is_a_folder_is_refused_as_a_folder(tmp_path):
    with pytest.raises(ConfigError, match=f"^{tmp_path} is a folder, not a config file$"):
        config.load(tmp_path, schema="world")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "w.json"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match=r"is not a regular file \(it is a FIFO\)"):
        config.load(fifo, schema="world")


def test_a_file_that_fails_to_read_is_one_line():
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("no /proc here")
    with pytest.raises(ConfigError, match="^cannot read the config file /proc/self/mem: "):
        config.load("/proc/self/mem", schema="world")


def test_a_float_where_an_integer_is_meant_is_refused(tmp_path):
    p = world_file(tmp_path, WORLD.replace('"ticks_per_day": 2000,', '"ticks_per_day": 2000.0,'))
    with pytest.raises(ConfigError, match=r"at \$\.ticks_per_day: 2000\.0 is not of type 'integer'"):
        config.load(p, schema="world")


def test_a_villager_id_past_the_schema_bound_is_refused_before_anything_overflows(tmp_path):
    v = json.loads(WORLD)
    v["villagers"][0]["id"] = 10 ** 30
    p = world_file(tmp_path, json.dumps(v))
    with pytest.raises(ConfigError, match=r"at \$\.villagers\[0\]\.id: 10{30} is greater than the "
                                          r"maximum of 1000000000"):
        config.load(p, schema="world")


def test_every_integer_in_the_bounded_schemas_has_a_maximum():
    def integers(node, where):
        if isinstance(node, dict):
            if node.get("type") == "integer":
                yield where, node
            for k, x in node.items():
                yield from integers(x, f"{where}/{k}")
        elif isinstance(node, list):
            for i, x in enumerate(node):
                yield from integers(x, f"{where}/{i}")
    for name in ("world", "importance", "thought", "scenario"):
        schema = json.loads((config.shipped() / "configs" / "schema" / f"{name}.json").read_text())
        unbounded = [w for w, n in integers(schema, name) if "maximum" not in n]
        assert unbounded == [], unbounded


def test_the_world_schema_admits_six_thousand_one_hundred_and_forty_four_villagers():
    v = json.loads(WORLD)
    v["grid"] = {"width": 100, "height": 100}
    def name(i: int) -> str:
        return "V" + "".join(chr(ord("a") + int(d)) for d in str(i))
    v["villagers"] = [{"id": 1000 + i, "name": name(i), "founded": 0, "x": i % 100, "y": i // 100 % 100}
                      for i in range(6144)]
    config.validate("world", v, source="w")


def test_a_config_with_hundreds_of_errors_names_the_first_ten_and_counts_the_rest(tmp_path):
    v = json.loads(WORLD)
    v["villagers"] = [{"id": 0, "name": "x", "founded": -1, "x": -1, "y": 0.5, "z": 1}
                      for _ in range(64)]
    p = world_file(tmp_path, json.dumps(v))
    with pytest.raises(ConfigError) as e:
        config.load(p, schema="world")
    msg = str(e.value)
    assert "\n" not in msg and "(384 errors): " in msg and msg.endswith("; and 374 more")
    assert msg.count("; at $.") == 9
