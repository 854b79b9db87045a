"""`village run --workers N | --ray ADDRESS`: a pool's options checked before any Ray starts or
any model loads, one line each, and an address where no cluster answers refused in bounded time."""

from __future__ import annotations

import importlib
import socket

import pytest
from click.testing import CliRunner

from kernel.cli import main
from kernel.errors import VillageError

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def _one_line_error(r, *words):
    assert r.exit_code == 1, r.output
    assert r.output.startswith("Error: ") and r.output.count("\n") == 1, r.output
    for w in words:
        assert w in r.output, r.output


def test_a_world_run_has_no_calls_for_a_pool_and_says_so_in_one_line(tmp_path):
    r = CliRunner().invoke(main, ["run", "village-day", "--oracle", "llamacpp", "--workers", "2",
                                  "--out", str(tmp_path / "run.log")])
    _one_line_error(r, "nobody reflects", "--workers")
    assert not (tmp_path / "run.log").exists()


def test_a_replay_is_read_in_order_in_one_process_so_workers_are_refused_in_one_line():
    for args in (["--workers", "2"], ["--ray", "auto"]):
        r = CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "replay", *args])
        _one_line_error(r, "recording", args[0])


def test_an_ollama_pool_is_its_hosts_so_ray_workers_for_it_are_refused_in_one_line():
    r = CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "ollama", "--workers", "2"])
    _one_line_error(r, "OLLAMA_HOSTS", "ollama.hosts")


def test_a_ray_address_where_nothing_listens_is_one_line_and_no_log(tmp_path):
    closed = socket.socket()
    closed.bind(("0.0.0.0", 0))       # bound and not listening: a connection is refused
    try:
        port = closed.getsockname()[1]
        r = CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "llamacpp", "--ray",
                                      f"127.0.0.1:{port}", "--out", str(tmp_path / "run.log")])
    finally:
        closed.close()
    _one_line_error(r, "no Ray cluster answers", f"127.0.0.1:{port}")
    assert not (tmp_path / "run.log").exists()


def test_a_ray_address_that_takes_the_connection_and_never_answers_is_refused_not_waited_on():
    session = importlib.import_module("kernel.cluster.session")
    silent = socket.socket()
    silent.bind(("0.0.0.0", 0))
    silent.listen(4)                  # takes connections, never says a word
    try:
        with pytest.raises(VillageError, match="gave no cluster id within 3 s"):
            session.reachable(f"127.0.0.1:{silent.getsockname()[1]}", join_timeout=3)
    finally:
        silent.close()


def test_a_ray_address_that_is_not_host_and_port_is_one_line():
    r = CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "llamacpp", "--ray", "nowhere"])
    _one_line_error(r, "Expected a Ray address", "nowhere")


def test_workers_and_ray_are_options_of_village_run_and_there_is_no_cluster_command():
    r = CliRunner().invoke(main, ["run", "-h"])
    assert r.exit_code == 0 and "--workers" in r.output and "--ray" in r.output
    assert CliRunner().invoke(main, ["cluster", "run", "day-of-three"]).exit_code == 2
    assert CliRunner().invoke(main, ["sweep", "-h"]).exit_code == 0
