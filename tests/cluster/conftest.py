"""One local Ray of 2 CPUs for every cluster test, started once and shut down at the end."""

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "cluster: needs Ray (the cluster extra); a local Ray of 2 CPUs")


@pytest.fixture(scope="session")
def ray_local():
    from kernel import cluster

    started = cluster.connect(workers=2)
    yield cluster.ray()
    if started:
        cluster.ray().shutdown()
