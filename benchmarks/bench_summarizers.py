"""Benchmark of the summarizers on REAL logs (figures from one run; not a timed test).

    python benchmarks/bench_summarizers.py [--rebuild] [--skip-repomap]

Log filter: for every log of the corpus (benchmarks/corpus/build_corpus.py: pytest on mutated
boltons / toolz / python-dateutil, node --test TAP and spec, tsc) and every budget, the compacted
size and the recall of failing ids, exception types and messages, side by side with head+tail
truncation at the same budget (first and last halves of the byte budget, as SWE-agent and
mini-swe-agent cut long output). Ground truth is the JUnit XML (tsc: its --pretty false run),
never the text the filter reads.

Matching rules, the same for both methods: an id is kept when one output line holds the test
name and its class or module; a message when the first 50 non-blank characters of the truth's
first line (whitespace removed, "Type: " prefix dropped) appear in the whitespace-free output;
a type when its name appears as a word.

Repo map: build_repo_map over a git copy of the standard library's Lib/ cold, warm in memory
(same RepoMapCache) and warm from a persisted cache directory (a new RepoMapCache).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "corpus"))

import build_corpus  # noqa: E402

from summarizers.logs import compact_log  # noqa: E402
from summarizers.repomap import RepoMapCache, build_repo_map  # noqa: E402
from summarizers.tokens import byte_cap, clip_to_bytes, estimate_tokens, utf8_len  # noqa: E402

BUDGETS = (500, 1000, 2000, 4000)
BIG = 20_000
_WS = re.compile(r"\s+")
_LOC_TYPE = re.compile(r"^\S+:\d+: (\w[\w.]*)$", re.MULTILINE)
_TYPE_PREFIX = re.compile(
    r"^([A-Za-z_][\w.]*(?:Error|Exception|Failure|Exit|Warning|Interrupt)|TS\d+)(?: \[\w+\])?:\s*"
)


@dataclass
class Truth:
    name: str
    scope: str  # class/module/file the id must share a line with ("" when none)
    message: str
    exc_type: str


def head_tail(text: str, budget: int) -> str:
    cap = byte_cap(budget)
    if utf8_len(text) <= cap:
        return text
    marker = "\n[... output truncated ...]\n"
    half = max(0, (cap - utf8_len(marker)) // 2)
    data = text.encode("utf-8", "surrogatepass")
    head = clip_to_bytes(text, half, marker="")
    tail = data[len(data) - half :].decode("utf-8", "ignore") if half else ""
    return head + marker + tail


def pytest_truth(path: Path) -> list[Truth]:
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        bad = [c for c in case if c.tag in ("failure", "error")]
        if not bad:
            continue
        classname, name = case.get("classname", ""), case.get("name", "")
        message = bad[0].get("message", "") or ""
        wrapped = re.match(r'^failed on (?:setup|teardown) with "(.*)', message, re.DOTALL)
        if wrapped:
            message = wrapped.group(1).rstrip('"')
        exc_type = ""
        locs = _LOC_TYPE.findall(bad[0].text or "")
        if locs:
            exc_type = locs[-1]
        elif (m := _TYPE_PREFIX.match(message)) is not None:
            exc_type = m.group(1)
        elif message.startswith("assert"):
            exc_type = "AssertionError"
        if classname:
            scope = classname.rsplit(".", 1)[-1]
        else:  # a collection error: the "name" is the module's dotted path
            scope, name = "", name.replace(".", "/")
        out.append(Truth(name, scope, message, exc_type))
    return out


def node_truth(path: Path) -> list[Truth]:
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is None or failure.get("type") == "subtestsFailed":
            continue
        text = failure.text or ""
        m = re.search(r"cause: (\w+)", text) or re.search(r"^(\w*Error)\b", text, re.MULTILINE)
        out.append(
            Truth(case.get("name", ""), "", failure.get("message", ""), m.group(1) if m else "")
        )
    return out


def tsc_truth(path: Path) -> list[Truth]:
    out = []
    for line in path.read_text().splitlines():
        m = re.match(r"^(\S+)\((\d+),(\d+)\): error (TS\d+): (.*)$", line)
        if m:
            out.append(Truth(f"{m.group(1)}:{m.group(2)}:{m.group(3)}", "", m.group(5), m.group(4)))
    return out


def _squash(text: str) -> str:
    return _WS.sub("", text)


def recall(output: str, truths: list[Truth]) -> tuple[float, float, float]:
    if not truths:
        return 1.0, 1.0, 1.0
    lines = output.splitlines()
    flat = _squash(output)
    ids = msgs = types = 0
    for t in truths:
        if any(t.name in line and (not t.scope or t.scope in line) for line in lines):
            ids += 1
        first = next((ln for ln in t.message.splitlines() if ln.strip()), "")
        first = _TYPE_PREFIX.sub("", first.strip())
        if _squash(first)[:50] in flat:
            msgs += 1
        if not t.exc_type or re.search(rf"\b{re.escape(t.exc_type)}\b", output):
            types += 1
    n = len(truths)
    return ids / n, msgs / n, types / n


def truths_for(entry: build_corpus.LogEntry) -> list[Truth]:
    path = build_corpus.CORPUS / entry.truth
    return {"pytest": pytest_truth, "node": node_truth, "tsc": tsc_truth}[entry.kind](path)


def bench_logs(entries: list[build_corpus.LogEntry]) -> None:
    rows = []
    for entry in entries:
        text = (build_corpus.CORPUS / entry.log).read_text()
        truths = truths_for(entry)
        raw = estimate_tokens(text)
        for budget in BUDGETS:
            started = time.perf_counter()
            result = compact_log(text, budget=budget)
            elapsed = time.perf_counter() - started
            assert result.tokens <= budget
            ours = recall(result.text, truths)
            theirs = recall(head_tail(text, budget), truths)
            rows.append(
                (
                    entry,
                    len(truths),
                    raw,
                    budget,
                    result.tokens,
                    elapsed,
                    ours,
                    theirs,
                    result.format,
                )
            )
    print("\n## Log filter: per log (budget 2000)\n")
    print(
        f"{'log':22} {'format':9} {'style':18} {'fail':>4} {'raw tok':>8} {'out tok':>7} {'ratio':>6}"
        f" {'ids':>5} {'msgs':>5} {'types':>5} | {'h+t ids':>7} {'msgs':>5} {'types':>5} {'ms':>6}"
    )
    for entry, n, raw, budget, tok, el, ours, theirs, fmt in rows:
        if budget != 2000:
            continue
        print(
            f"{entry.name:22} {fmt:9} {entry.style[:18]:18} {n:4} {raw:8} {tok:7} {raw / max(tok, 1):6.1f}"
            f" {ours[0]:5.0%} {ours[1]:5.0%} {ours[2]:5.0%} | {theirs[0]:7.0%} {theirs[1]:5.0%}"
            f" {theirs[2]:5.0%} {el * 1000:6.0f}"
        )
    print("\n## Log filter: pooled over failures, by budget (compact vs head+tail)\n")
    print(
        f"{'budget':>6} {'logs':>4} {'fails':>5} {'ids':>6} {'msgs':>6} {'types':>6} | {'h+t ids':>7} {'msgs':>6} {'types':>6}"
    )
    for budget in BUDGETS:
        _pooled(f"{budget:6}", [r for r in rows if r[3] == budget])
    print(f"\n## Logs over {BIG} raw tokens, by budget\n")
    print(
        f"{'budget':>6} {'logs':>4} {'fails':>5} {'ids':>6} {'msgs':>6} {'types':>6} | {'h+t ids':>7} {'msgs':>6} {'types':>6}"
        f" {'min ratio':>9} {'mean ratio':>10}"
    )
    for budget in BUDGETS:
        big = [r for r in rows if r[3] == budget and r[2] > BIG]
        if big:
            ratios = [r[2] / max(r[4], 1) for r in big]
            _pooled(f"{budget:6}", big, f" {min(ratios):9.1f} {sum(ratios) / len(ratios):10.1f}")


def _pooled(label: str, rows: list, extra: str = "") -> None:  # type: ignore[type-arg]
    total = sum(r[1] for r in rows) or 1
    ours = [sum(r[6][k] * r[1] for r in rows) / total for k in range(3)]
    theirs = [sum(r[7][k] * r[1] for r in rows) / total for k in range(3)]
    print(
        f"{label} {len(rows):4} {total:5} {ours[0]:6.1%} {ours[1]:6.1%} {ours[2]:6.1%} |"
        f" {theirs[0]:7.1%} {theirs[1]:6.1%} {theirs[2]:6.1%}{extra}"
    )


def bench_repomap() -> None:
    lib = Path(sysconfig.get_paths()["stdlib"])
    copy = build_corpus.OUT / "stdlib-Lib"
    if not (copy / ".git").exists():
        shutil.copytree(
            lib,
            copy,
            ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"),
            dirs_exist_ok=True,
        )
        git = ["git", "-c", "user.email=b@b", "-c", "user.name=bench"]
        subprocess.run([*git, "init", "-q"], cwd=copy, check=True)
        subprocess.run([*git, "add", "-A"], cwd=copy, check=True)
        subprocess.run([*git, "commit", "-qm", "stdlib"], cwd=copy, check=True)
    cache_dir = build_corpus.OUT / "repomap-cache"
    shutil.rmtree(cache_dir, ignore_errors=True)
    task = "JSONDecodeError should report the column of the bad character in json.decoder"
    cache = RepoMapCache(cache_dir)
    timings = []
    for label, c in (
        ("cold", cache),
        ("warm (same cache, in memory)", cache),
        ("warm (new process, persisted cache)", RepoMapCache(cache_dir)),
    ):
        started = time.perf_counter()
        text = build_repo_map(copy, task, budget=1500, cache=c)
        timings.append(
            (label, time.perf_counter() - started, c.misses, estimate_tokens(text), text)
        )
    files = text.splitlines()[0]
    print("\n## Repo map of the standard library's Lib/ (git copy)\n")
    print(files)
    cold = timings[0][1]
    for label, seconds, misses, tokens, _ in timings:
        print(
            f"{label:38} {seconds:7.2f} s  {seconds / cold:6.1%} of cold  parsed files so far: {misses:5}"
            f"  map tokens: {tokens}"
        )
    print(
        "top of the map:",
        ", ".join(
            line.rstrip(":")
            for line in timings[0][4].splitlines()[1:]
            if line and not line.startswith((" ", "["))
        )[:200],
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rebuild", action="store_true", help="rebuild the corpus of logs")
    parser.add_argument("--skip-repomap", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    entries = build_corpus.build(args.rebuild)
    kinds = sorted({e.kind for e in entries})
    print(
        f"corpus: {len(entries)} logs ({', '.join(kinds)}); tsc: {'yes' if 'tsc' in kinds else 'unavailable'}"
    )
    bench_logs(entries)
    if not args.skip_repomap:
        bench_repomap()
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
