"""The budget shortens or drops the map's entries, never the whole map (issue 31, item 1).

A real planner was shown "0 of 123 tracked files … [123 more files not shown]" for an HTTP
client whose `_client.py`, the file the task was about, was too long for the budget on its own.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from summarizers.repomap import build_repo_map
from summarizers.repomap_facts import FileFacts
from summarizers.repomap_fit import compact_signature, fit, listed_paths, render_entry
from summarizers.tokens import estimate_tokens

FIRST = "pkg/client.py"


def _module(prefix: str, functions: int, params: int) -> str:
    args = ", ".join(f"argument_{i}: int = {i}" for i in range(params))
    return "".join(f"def {prefix}_{i:03d}({args}):\n    pass\n\n\n" for i in range(functions))


def _git_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return root


def _smallest_useful_budget(total: int) -> int:
    """The header, the first path and the footer: below this no map can hold an entry."""
    text = f"1 of {total} tracked files, the most relevant to the task first:\n{FIRST}\n"
    return estimate_tokens(text + f"[{total - 1} more files not shown]")


@settings(max_examples=40, deadline=None)
@given(
    first_functions=st.integers(1, 220),
    first_params=st.integers(0, 12),
    others=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6)), min_size=0, max_size=25),
    budget=st.integers(0, 3000),
)
def test_the_map_holds_its_first_file_whenever_its_path_fits(
    first_functions: int, first_params: int, others: list[tuple[int, int]], budget: int
) -> None:
    files = {FIRST: _module("send_request", first_functions, first_params)}
    files |= {f"pkg/other_{i:02d}.py": _module("helper", n, p) for i, (n, p) in enumerate(others)}
    with tempfile.TemporaryDirectory(prefix="repomap-budget-") as scratch:
        root = _git_tree(Path(scratch), files)
        task = "`send_request_000()` hangs: the `client` ignores its timeout"
        text = build_repo_map(root, task, budget=budget)
    assert estimate_tokens(text) <= budget
    paths = listed_paths(text)
    if budget >= _smallest_useful_budget(len(files)):
        assert paths[:1] == [FIRST], text[:300]
    if text:
        shown, total = map(int, re.match(r"(\d+) of (\d+) tracked files", text).groups())
        assert (shown, total) == (len(paths), len(files)) and len(set(paths)) == len(paths)
        assert (f"[{total - shown} more files not shown]" in text) == (shown < total)


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 120), min_size=1, max_size=60),
    signature=st.integers(5, 600),
    budget=st.integers(0, 2500),
)
def test_fitting_keeps_rank_order_and_the_budget(sizes: list[int], signature: int, budget: int):
    """The pure fitting step: entries appear in rank order, a prefix of the ranking, each one
    whole, shortened or by path, and the text is within budget."""
    entries = []
    for i, count in enumerate(sizes):
        symbols = [(f"f{j}", "function", f"f{j}({'x' * signature})", j, True) for j in range(count)]
        entries.append((f"src/m{i:02d}.py", lambda s=symbols: FileFacts(s)))
    text = fit(entries, lambda name: name == "f1", budget)
    assert estimate_tokens(text) <= budget
    paths = listed_paths(text)
    assert paths == [path for path, _ in entries[: len(paths)]]
    header = estimate_tokens(
        f"1 of {len(sizes)} tracked files, the most relevant to the task first:\n"
    )
    if budget >= header + estimate_tokens(f"src/m00.py\n[{len(sizes)} more files not shown]"):
        assert paths, "a budget that holds the first path gave an empty map"


def test_a_file_too_long_for_the_budget_is_shortened_to_what_the_task_names(tmp_path: Path):
    """The shape of the empty map a real planner was shown: the file the task is about has a
    hundred long signatures. It comes first, with the two methods the task names."""
    files = {FIRST: _module("transport", 100, 10).replace("transport_042", "build_request")}
    files[FIRST] = files[FIRST].replace("transport_077", "send")
    files |= {f"docs/page_{i:03d}.md": f"# page {i}\n" for i in range(120)}
    root = _git_tree(tmp_path, files)
    text = build_repo_map(
        root,
        "Client timeout ignored by `send()` for a request made without `build_request()`",
        budget=1000,
    )
    assert listed_paths(text)[0] == FIRST
    assert "  build_request(argument_0" in text and "  send(argument_0" in text
    assert estimate_tokens(text) <= 1000


def test_a_long_signature_keeps_its_parameter_names_and_return_type():
    long = (
        "send(self, request: Request, *, stream: bool = False, auth: AuthTypes | UseClientDefault"
        " | None = USE_CLIENT_DEFAULT, follow_redirects: bool | UseClientDefault = "
        "USE_CLIENT_DEFAULT) -> Response"
    )
    assert (
        compact_signature(long)
        == "send(self, request, *, stream, auth, follow_redirects) -> Response"
    )
    ts = "fetch(id?: string, opts: { retries: number, backoff: (n: number) => number } = {}): Promise<Map<string, number>>"
    assert compact_signature(ts, 60) == "fetch(id?, opts): Promise<Map<string, number>>"
    assert compact_signature("f(x)") == "f(x)"
    assert len(compact_signature("g(" + "a" * 400 + ")")) == 150


def test_a_shortened_entry_lists_the_named_symbols_first_and_says_how_many_are_left():
    symbols = [(f"m{i}", "function", f"m{i}()", i, True) for i in range(20)]
    text = render_entry("a.py", FileFacts(symbols), lambda name: name in ("m15", "m3"), 4)
    assert text.splitlines() == ["a.py:", "  m0()", "  m1()", "  m3()", "  m15()", "  ... 16 more"]
