"""Both executors against one spec: records stream back as jobs end, come out in job order,
and a job whose process dies is reported while the others still run."""

from __future__ import annotations

import sys

import pytest
from executor_jobs import DyingJob, EchoJob, WaitingJob

from coder.bench.executors import ExecutorUnavailable, ProcessPool, make_executor


@pytest.fixture(params=["pool", "ray"])
def executor(request):
    if request.param == "ray":
        request.getfixturevalue("local_ray")
        from coder.bench.ray_executor import RayExecutor

        made = RayExecutor(None, 2)
    else:
        made = ProcessPool(2)
    yield made
    made.close()


def test_records_stream_back_as_jobs_end_and_come_out_in_job_order(executor, tmp_path):
    flag = tmp_path / "echo-streamed"
    jobs = [WaitingJob("slow", flag=str(flag)), EchoJob("fast")]
    seen = []

    def on_done(row):
        seen.append(row["fixture"])
        if row["fixture"] == "fast":
            flag.touch()

    rows = executor.run(jobs, on_done)
    assert seen == ["fast", "slow"]
    assert [r["fixture"] for r in rows] == ["slow", "fast"]
    assert rows[0]["stop_reason"] == "completed"
    assert all(r["node"] for r in rows)


def test_a_job_whose_process_dies_is_reported_and_the_rest_go_on(executor):
    jobs = [EchoJob("a"), DyingJob("dies"), EchoJob("b"), EchoJob("c")]
    seen = []
    rows = executor.run(jobs, lambda row: seen.append(row["fixture"]))
    assert sorted(seen) == ["a", "b", "c", "dies"]
    assert [r["fixture"] for r in rows] == ["a", "dies", "b", "c"]
    dead = rows[1]
    assert dead["stop_reason"] == "error" and "died" in dead["error"]
    assert all(r["stop_reason"] == "completed" for r in rows if r["fixture"] != "dies")


def test_pool_jobs_run_in_processes_of_their_own():
    rows = ProcessPool(2).run([EchoJob("a"), EchoJob("b"), EchoJob("c")], lambda row: None)
    assert len({r["pid"] for r in rows}) == 3


def test_ray_tasks_report_the_node_that_ran_them(local_ray):
    from coder.bench.ray_executor import RayExecutor

    rows = RayExecutor(None, 2).run([EchoJob("a"), EchoJob("b")], lambda row: None)
    assert {r["node"] for r in rows} == {local_ray.util.get_node_ip_address()}


def test_without_ray_the_error_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ExecutorUnavailable) as error:
        make_executor("local", 2)
    assert "pip install 'coder-contracts[ray]'" in str(error.value)


def test_no_ray_flag_means_the_local_pool():
    assert make_executor(None, 3).name == "pool"
