"""Config files are checked against their schema, every error reported with its path."""

from __future__ import annotations

import json

import pytest

from kernel import config
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
