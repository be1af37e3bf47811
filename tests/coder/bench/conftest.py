"""One local Ray instance (2 CPUs, in this process) for every bench test that needs Ray."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def local_ray() -> Iterator[Any]:
    if importlib.util.find_spec("ray") is None:
        pytest.skip(
            "Ray is not installed (pip install 'coder-contracts[ray]'; scripts/bootstrap --dev)"
        )
    from coder.bench.ray_executor import RayExecutor, import_ray

    ray = import_ray(local=True)  # before anything else imports it: loopback addresses only
    import executor_jobs

    ray.cloudpickle.register_pickle_by_value(executor_jobs)
    executor = RayExecutor(None, 2)
    yield ray
    executor.close()


@pytest.fixture(scope="session")
def swebench_repos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped repositories as local clones, built once (read-only for the tests)."""
    from swebench_repos import build_repos

    return build_repos(tmp_path_factory.mktemp("swebench") / "repos")
