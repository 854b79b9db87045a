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
        registry.register(registry.Backend("replay", "kernel.oracle.replay:ReplayOracle",
                                           live=False))


def test_registering_a_backend_leaves_the_config_schema_alone():
    before = config.schema_for("models")
    try:
        registry.register(registry.Backend("elsewhere", "kernel.testing:ScriptedOracle",
                                           help="a test's backend"))
        assert config.schema_for("models") == before
        assert "elsewhere" not in before["properties"]["backend"]["enum"]
    finally:
        del registry.REGISTRY["elsewhere"]


def test_the_scenario_module_does_not_import_the_oracles_to_check_a_config():
    import ast
    from pathlib import Path

    src = (Path(__file__).resolve().parents[2] / "kernel" / "engine" / "scenario.py").read_text()
    top = [n for n in ast.parse(src).body if isinstance(n, ast.Import | ast.ImportFrom)]
    named = {a.name for n in top for a in n.names} | {n.module for n in top
                                                       if isinstance(n, ast.ImportFrom)}
    assert "oracle" not in named and "kernel.oracle" not in named


def test_no_caller_compares_a_backend_by_its_name():
    import re
    from pathlib import Path

    kernel = Path(__file__).resolve().parents[2] / "kernel"
    names = "|".join(map(re.escape, registry.backends()))
    compared = re.compile(rf"""(==|!=)\s*["']({names})["']|["']({names})["']\s*(==|!=)"""
                          rf"""|\bin\s*[(\[{{][^)\]}}]*["']({names})["']""")
    # a table keyed by backend names, or a list of them written out, is a comparison too
    keyed = re.compile(rf"""\{{\s*["']({names})["']\s*:|[\[(]\s*["']({names})["']\s*,\s*["']({names})["']""")
    found = []
    for p in sorted(kernel.rglob("*.py")):
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if keyed.search(code) or ("backend" in code and compared.search(code)):
                found.append(f"{p.relative_to(kernel)}:{i}: {line.strip()}")
    assert found == [], "read the registry entry instead:\n" + "\n".join(found)


def test_what_a_backend_can_do_is_on_its_entry():
    models = config.load("models")
    llamacpp, ollama, replay = (registry.entry(n) for n in ("llamacpp", "ollama", "replay"))
    assert (llamacpp.live, ollama.live, replay.live) == (True, True, False)
    assert (llamacpp.pools_itself, ollama.pools_itself, replay.pools_itself) == (False, True, False)
    assert llamacpp.pinned_digest(models) == models["llamacpp"]["sha256"]
    assert ollama.pinned_digest(models) == replay.pinned_digest(models) == ""
    assert registry.backends(embeds=True) == ("llamacpp", "ollama", "openai")
    openai = registry.entry("openai")
    assert (openai.live, openai.pools_itself, openai.checks, openai.reads_embedder) == (
        True, True, True, True)
    assert openai.pinned_digest(models) == ""
    with pytest.raises(OracleError, match="Expected a backend in llamacpp, ollama, openai, replay but "
                                          "got backend='nosuch'"):
        registry.entry("nosuch")


def test_the_embed_command_offers_exactly_the_backends_that_embed_alone():
    from kernel.cli.embed_cmd import embed_cmd

    opt = next(p for p in embed_cmd.params if p.name == "backend")
    assert tuple(opt.type.choices) == registry.backends(embeds=True)
