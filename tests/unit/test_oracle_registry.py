"""Backends register once; make(), the CLI's --oracle choices and the models schema read the registry."""

from __future__ import annotations

import pytest

from kernel import config
from kernel import oracle as registry
from kernel.cli.run_cmd import run_cmd
from kernel.errors import ConfigError, OracleError


def test_the_cli_offers_exactly_the_registered_backends():
    opt = next(p for p in run_cmd.params if p.name == "backend")
    assert tuple(opt.type.choices) == registry.backends()


def test_the_models_schema_admits_exactly_the_live_backends():
    enum = config.schema_for("models")["properties"]["backend"]["enum"]
    assert tuple(sorted(enum)) == registry.backends(live=True)
    value = config.thaw(config.load("models").value)
    value["backend"] = "nosuch"
    with pytest.raises(ConfigError, match="nosuch"):
        config.validate("models", value)


def test_make_refuses_a_backend_nobody_registered():
    with pytest.raises(OracleError, match="nosuch"):
        registry.make("nosuch")


def test_a_backend_registers_once():
    with pytest.raises(OracleError, match="registered already"):
        registry.register("replay", "kernel.oracle.replay:ReplayOracle", live=False)
