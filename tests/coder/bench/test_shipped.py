"""A shipped suite's machinery: building its clones, preparing an instance once, copying its deps."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from coder.bench.prepare import copy_deps, prepare_all
from coder.bench.shipped import build_repos, cached_clones, sources_hash
from coder.bench.swebench import Instance, load_instances
from coder.bench.swebench_job import prepare_clone

TINY = Path(__file__).resolve().parents[2] / "data" / "swebench_tiny"
PREPARE = "npm ci --ignore-scripts --no-audit --no-fund"


def log(clone: Path) -> list[str]:
    done = subprocess.run(
        ["git", "log", "--format=%H|%an <%ae>|%aI|%cI|%s"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def test_the_build_gives_the_same_commits_everywhere_as_written(tmp_path):
    one = build_repos(TINY / "repos", tmp_path / "one")
    two = build_repos(TINY / "repos", tmp_path / "two")
    who = "coder fixtures <fixtures@coder.invalid>"
    assert log(one / "tinyjs__clamp") == [
        f"8a9832bbf81efeabc76269a1ad50e9bcb9c94bfe|{who}|2026-01-01T00:01:00+00:00|"
        "2026-01-01T00:01:00+00:00|clamp upper-bound",
        f"65482791282234c74947e4cedaf7245cda2fac34|{who}|2026-01-01T00:00:00+00:00|"
        "2026-01-01T00:00:00+00:00|clamp a1b2c3d",
    ]
    assert log(two / "tinyjs__clamp") == log(one / "tinyjs__clamp")
    bases = {i.base_commit for i in load_instances(TINY / "instances.jsonl").instances}
    assert bases == {line.split("|")[0] for line in log(one / "tinyjs__clamp")}


def test_the_cache_is_built_once_and_a_changed_source_is_a_new_build(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    said: list[str] = []
    first = cached_clones(TINY / "repos", said.append)
    assert first.parent.parent == tmp_path / "cache" / "coder" / "swebench"
    assert len(said) == 1 and said[0].startswith("building 1 repository from")
    assert cached_clones(TINY / "repos", said.append) == first
    assert len(said) == 1
    assert [p.name for p in first.parent.iterdir()] == ["repos"]  # no temporary left
    changed = tmp_path / "repos"
    subprocess.run(["cp", "-a", str(TINY / "repos"), str(changed)], check=True)
    (changed / "tinyjs__clamp" / "VERSION").write_text("0000000\n", encoding="utf-8")
    assert sources_hash(changed) != sources_hash(TINY / "repos")
    assert cached_clones(changed, said.append) != first


def tiny(ident: str, **changes: object) -> Instance:
    found = {i.instance_id: i for i in load_instances(TINY / "instances.jsonl").instances}
    return found[ident].model_copy(update=changes)


@pytest.fixture
def clones(tmp_path: Path) -> Path:
    return build_repos(TINY / "repos", tmp_path / "clones")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A directory a prepare command may write to: under a root harness it runs as `nobody`,
    which cannot reach pytest's 0700 tmp_path."""
    folder = Path(tempfile.mkdtemp(prefix="coder-test-shared-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_prepare_runs_once_and_is_then_reused_offline(clones, tmp_path, monkeypatch, shared):
    count = shared / "count"
    instance = tiny("tinyjs__clamp-1", prepare=f"{PREPARE} && echo ran >> {count}")
    said: list[str] = []
    first = prepare_all([instance], clones, tmp_path / "cache", said.append)
    assert first.errors == {}
    deps = first.deps["tinyjs__clamp-1"]
    assert deps == tmp_path / "cache" / "deps" / "tinyjs__clamp-1"
    assert (deps / "node_modules" / "is-number" / "index.js").is_file()
    assert said[0] == f"prepare tinyjs__clamp-1: {instance.prepare}"
    assert said[1].startswith("prepare tinyjs__clamp-1: done in ")
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_offline", "true")
    again = prepare_all([instance], clones, tmp_path / "cache", said.append)
    assert again.deps == first.deps and len(said) == 2
    assert count.read_text() == "ran\n"
    assert sorted(p.name for p in deps.parent.iterdir()) == ["tinyjs__clamp-1"]


def test_the_same_lockfile_is_installed_once_and_copied(clones, tmp_path):
    one, two = tiny("tinyjs__clamp-1"), tiny("tinyjs__clamp-2")
    said: list[str] = []
    prepared = prepare_all([one, two], clones, tmp_path / "cache", said.append)
    assert said[0] == f"prepare tinyjs__clamp-1: {PREPARE}"
    assert said[2] == (
        "prepare tinyjs__clamp-2: the same package.json and lockfile as tinyjs__clamp-1: "
        "its node_modules copied"
    )
    first, second = (
        prepared.deps[i] / "node_modules" / "is-number" / "index.js"
        for i in ("tinyjs__clamp-1", "tinyjs__clamp-2")
    )
    assert second.read_bytes() == first.read_bytes()
    assert os.stat(second).st_ino != os.stat(first).st_ino
    other = tiny("tinyjs__clamp-2", prepare=f"{PREPARE} --no-progress && true")
    assert prepare_all([other], clones, tmp_path / "other", said.append).deps
    assert said[3] == f"prepare tinyjs__clamp-2: {other.prepare}"  # not a plain npm ci: run


def test_repositories_are_prepared_side_by_side(tmp_path, shared):
    """Each prepare waits (10s at most) for the other to have started: only side by side do
    both succeed."""
    repos = tmp_path / "repos"
    repos.mkdir()
    for name in ("tinyjs__clamp", "tinyjs__other"):
        subprocess.run(["cp", "-a", str(TINY / "repos" / "tinyjs__clamp"), str(repos / name)])
    clones = build_repos(repos, tmp_path / "clones")
    other_head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clones / "tinyjs__other", capture_output=True, text=True
    ).stdout.strip()

    def waiting(mine: str, theirs: str) -> str:
        return (
            f"touch {shared / mine}; for i in $(seq 200); do "
            f"[ -e {shared / theirs} ] && exit 0; sleep 0.05; done; echo error: alone; exit 1"
        )

    first = tiny("tinyjs__clamp-2", prepare=waiting("a", "b"))
    second = tiny(
        "tinyjs__clamp-2",
        instance_id="tinyjs__other-2",
        repo="tinyjs/other",
        base_commit=other_head,
        prepare=waiting("b", "a"),
    )
    prepared = prepare_all([first, second], clones, tmp_path / "cache", lambda _: None, 2)
    assert prepared.errors == {}
    assert sorted(prepared.deps) == ["tinyjs__clamp-2", "tinyjs__other-2"]


def test_a_failed_prepare_is_one_line_and_the_others_still_prepare(clones, tmp_path):
    broken = tiny("tinyjs__clamp-1", prepare=f"rm package-lock.json && {PREPARE}")
    fine = tiny("tinyjs__clamp-2")
    said: list[str] = []
    prepared = prepare_all([broken, fine], clones, tmp_path / "cache", said.append)
    error = prepared.errors["tinyjs__clamp-1"]
    assert "\n" not in error
    assert error.startswith(f"`{broken.prepare}` failed (exit 1, ")
    assert "package-lock.json" in error and "npm error" in error
    assert list(prepared.deps) == ["tinyjs__clamp-2"]
    assert not (tmp_path / "cache" / "deps" / "tinyjs__clamp-1").exists()


def test_a_run_gets_a_real_copy_of_node_modules_and_cannot_touch_the_cache(clones, tmp_path):
    instance = tiny("tinyjs__clamp-1")
    deps = prepare_all([instance], clones, tmp_path / "cache", lambda _: None).deps[
        instance.instance_id
    ]
    repo = prepare_clone(clones, instance, tmp_path / "repo")
    copy_deps(deps, repo)
    cached = deps / "node_modules" / "is-number" / "index.js"
    copied = repo / "node_modules" / "is-number" / "index.js"
    assert not (repo / "node_modules").is_symlink() and not copied.is_symlink()
    assert os.stat(copied).st_ino != os.stat(cached).st_ino
    assert os.stat(copied).st_nlink == 1
    before = cached.read_bytes()
    copied.write_text("module.exports = () => false;\n", encoding="utf-8")
    (repo / "node_modules" / "planted.js").write_text("x\n", encoding="utf-8")
    assert cached.read_bytes() == before
    assert not (deps / "node_modules" / "planted.js").exists()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored=no"], cwd=repo, capture_output=True, text=True
    )
    assert status.stdout == ""  # node_modules is kept out of the run's diff


def test_bench_builds_and_prepares_once_and_records_what_replays(tmp_path):
    """No --repos: the clones come from the cache (built once, said once) and the instance is
    prepared once; --record writes each run's replies, and replaying them gives the same
    verdict (here a wrong fix the repository's own tests let through: shipped broken)."""
    sessions = TINY / "sessions"
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "COLUMNS": "200",
    }

    def bench(*args: str, out: str) -> tuple[str, dict[str, object]]:
        done = subprocess.run(
            [
                *("python3", "-m", "coder", "bench"),
                *("--swebench", str(TINY / "instances.jsonl")),
                *("--only", "tinyjs__clamp-2", "--modes", "contract", "--workers", "1"),
                *("--json", str(tmp_path / out), *args),
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout, json.loads((tmp_path / out).read_text())["runs"][0]

    text, recorded = bench(
        "--model", f"script:{sessions}", "--record", str(tmp_path / "rec"), out="a.json"
    )
    assert "building 1 repository from" in text
    assert "prepare tinyjs__clamp-2: done in" in text
    script = json.loads((tmp_path / "rec" / "tinyjs__clamp-2.contract.json").read_text())
    source = json.loads((sessions / "tinyjs__clamp-2.contract.json").read_text())
    assert [t.get("tool", t.get("calls")) for t in script["turns"]] == [
        t.get("tool", t.get("calls")) for t in source["turns"]
    ]
    text, replayed = bench("--model", f"script:{tmp_path / 'rec'}", out="b.json")
    assert "building 1" not in text and "prepare tinyjs" not in text
    fields = ("resolved", "claimed_success", "stop_reason", "steps", "rollbacks", "turns")
    assert {k: replayed[k] for k in fields} == {k: recorded[k] for k in fields}
    assert (recorded["shipped_broken"], replayed["shipped_broken"]) == (True, True)
    assert recorded["language"] == "javascript"


def test_a_failed_prepare_is_each_rows_error_and_the_bench_goes_on(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    subprocess.run(["cp", "-a", str(TINY / "repos"), str(suite)], check=True)
    lines = (TINY / "instances.jsonl").read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[0])
    broken["prepare"] = f"rm package-lock.json && {PREPARE}"
    (suite / "instances.jsonl").write_text(
        json.dumps(broken) + "\n" + lines[1] + "\n", encoding="utf-8"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "COLUMNS": "300",
    }
    done = subprocess.run(
        [
            *("python3", "-m", "coder", "bench", "--swebench", str(suite / "instances.jsonl")),
            *("--modes", "contract", "--model", f"script:{tmp_path / 'none'}"),
            *("--json", str(tmp_path / "out.json")),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "building 1 repository from" in done.stdout
    assert "prepare tinyjs__clamp-2: done in" in done.stdout
    rows = {r["fixture"]: r for r in json.loads((tmp_path / "out.json").read_text())["runs"]}
    error = rows["tinyjs__clamp-1"]["error"]
    assert error.startswith(f"`{broken['prepare']}` failed (exit 1, ") and "\n" not in error
    assert "npm error" in error
    assert not rows["tinyjs__clamp-2"]["error"].startswith("`")  # it ran (and found no script)


def test_a_shipped_patch_that_does_not_apply_is_one_line_and_exit_2(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    subprocess.run(["cp", "-a", str(TINY / "repos"), str(TINY / "instances.jsonl"), str(suite)])
    patch = suite / "repos" / "tinyjs__clamp" / "patches" / "01-clamp-upper-bound.patch"
    patch.write_text(patch.read_text().replace("-    return low;", "-    return nothing;"))
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "COLUMNS": "400",
    }
    done = subprocess.run(
        [
            *("python3", "-m", "coder", "bench", "--swebench", str(suite / "instances.jsonl")),
            *("--model", f"script:{tmp_path}"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert said[-1].startswith(f"error: cannot build the clones from {suite / 'repos'}: ")
    assert "tinyjs__clamp: 01-clamp-upper-bound.patch does not apply" in said[-1]
    (cache,) = (tmp_path / "cache" / "coder" / "swebench").iterdir()
    assert list(cache.iterdir()) == []  # the half-made build is gone


def test_the_prepare_stamp_replaces_a_link_the_instance_committed(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    secret = private / "stamp-target"
    secret.write_text("root-only\n")
    secret.chmod(0o600)
    clones = tmp_path / "clones"
    repo = clones / "tinyjs__clamp"
    repo.mkdir(parents=True)
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@e.x"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.name", "T"], cwd=repo, check=True)
    (repo / ".coder-prepared.json").symlink_to(secret)
    (repo / "node_modules").symlink_to(private)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "links"], cwd=repo, check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    instance = tiny("tinyjs__clamp-1", base_commit=head, prepare="true")
    prepared = prepare_all([instance], clones, tmp_path / "cache", lambda _: None)
    assert prepared.errors == {}
    assert secret.read_text() == "root-only\n"
    stamp = prepared.deps["tinyjs__clamp-1"] / ".coder-prepared.json"
    assert not stamp.is_symlink() and json.loads(stamp.read_text())["command"] == "true"
    again = prepare_all([instance], clones, tmp_path / "cache", lambda _: None)
    assert again.deps == prepared.deps
    assert sorted(p.name for p in private.iterdir()) == ["stamp-target"]
