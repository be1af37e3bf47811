from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitrepo import git, make_repo

from summarizers.repomap import RepoMapCache, build_repo_map
from summarizers.repomap_fit import listed_paths
from summarizers.tokens import estimate_tokens

FILES = {
    "src/auth/tokens.py": "def verify_token(token: str) -> bool:\n    return bool(token)\n\n"
    "class TokenStore:\n    def save(self, token): ...\n",
    "src/billing/invoice.py": "from src.auth.tokens import verify_token\n\n"
    "def total(items: list) -> int:\n    return sum(items)\n",
    "src/util.py": "def slugify(text):\n    return text.lower()\n",
    "web/api.ts": "export function fetchInvoice(id: string): Promise<Invoice> { return null as any; }\n"
    "export interface Invoice { id: string }\n",
    "web/legacy.js": "function render(x) { return x; }\nmodule.exports = { render };\n",
    "docs/README.md": "# docs\n",
    "assets/logo.png": "\x89PNG\x00binary",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    return tmp_path


def _order(text: str) -> list[str]:
    return listed_paths(text)


def test_files_relevant_to_the_task_come_first_with_signatures(repo: Path) -> None:
    text = build_repo_map(repo, "verify_token rejects empty tokens; fix TokenStore.save")
    assert _order(text)[0] == "src/auth/tokens.py"
    assert "verify_token(token: str) -> bool" in text
    assert "    save(self, token)" in text
    text = build_repo_map(repo, "fetchInvoice should return the Invoice with its id")
    assert _order(text)[0] == "web/api.ts"
    assert "fetchInvoice(id: string): Promise<Invoice>" in text


def test_every_tracked_file_is_listed_when_the_budget_allows(repo: Path) -> None:
    text = build_repo_map(repo, "anything", budget=5000)
    assert sorted(_order(text)) == sorted(FILES)
    assert text.startswith(f"{len(FILES)} of {len(FILES)} tracked files")


@pytest.mark.parametrize("budget", [0, 5, 20, 30, 40, 60, 100, 1500])
def test_budget_is_respected_and_the_cut_is_said(repo: Path, budget: int) -> None:
    text = build_repo_map(repo, "verify_token", budget=budget)
    assert estimate_tokens(text) <= budget
    shown = _order(text)
    if budget >= 30:
        assert shown[0] == "src/auth/tokens.py"
        assert text.startswith(f"{len(shown)} of 7 tracked files")
    if 30 <= budget < 60:
        assert 0 < len(shown) < 7 and f"[{7 - len(shown)} more files not shown]" in text
    if budget >= 60:
        assert len(shown) == 7, text  # every path fits, the first files with their symbols


def test_second_map_of_an_unchanged_repo_parses_nothing(repo: Path) -> None:
    cache = RepoMapCache()
    first = build_repo_map(repo, "total of the invoice", cache=cache)
    parsed_first = cache.misses
    second = build_repo_map(repo, "total of the invoice", cache=cache)
    assert second == first
    assert parsed_first == 5 and cache.misses == parsed_first  # five source files, no new parse


def test_persisted_cache_serves_a_new_process(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    directory = tmp_path_factory.mktemp("cache")
    first = build_repo_map(repo, "slugify", cache=RepoMapCache(directory))
    fresh = RepoMapCache(directory)
    assert build_repo_map(repo, "slugify", cache=fresh) == first
    assert fresh.misses == 0 and fresh.hits == 5


def test_an_edited_unstaged_file_is_reparsed(repo: Path) -> None:
    cache = RepoMapCache()
    build_repo_map(repo, "slugify", cache=cache)
    (repo / "src/util.py").write_text("def slugify(text, sep='-'):\n    return text.lower()\n")
    text = build_repo_map(repo, "slugify", cache=cache)
    assert "slugify(text, sep='-')" in text
    assert cache.misses == 6


def test_outside_git_the_directory_is_walked(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def main():\n    pass\n")
    text = build_repo_map(tmp_path, "main")
    assert "m.py:" in text and "main()" in text


def test_unparseable_file_is_marked_not_fatal(repo: Path) -> None:
    (repo / "src/util.py").write_text("def slugify(text:\n    return\n")
    text = build_repo_map(repo, "slugify", budget=2000)
    assert "src/util.py (does not parse at 1:" in text or "src/util.py: (does not parse at" in text


def _crowded_module(named_at: int, total: int = 131) -> str:
    """A module of `total` public functions, `chunked_even` among them at `named_at`."""
    names = [f"helper_{i:03d}" for i in range(total - 1)]
    names.insert(named_at, "chunked_even")
    return "".join(f"def {name}(iterable, n):\n    return n\n\n\n" for name in names)


def test_a_symbol_the_task_names_is_listed_among_130_others(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {
            "more_itertools/more.py": _crowded_module(80),
            "more_itertools/recipes.py": '"""See chunked_even in more.py."""\n\ndef take(n):\n'
            "    return n\n",
        },
    )
    text = build_repo_map(repo, "chunked_even drops the last chunk when n does not divide it")
    assert _order(text)[0] == "more_itertools/more.py"  # defines it, not only mentions it
    assert "  chunked_even(iterable, n)" in text
    assert "  ... 101 more" in text  # 30 lines: the named one and the first 29 others


def test_the_map_does_not_repeat_the_heading_the_briefing_gives_it(repo: Path) -> None:
    from coder.loop.conversation.prompts import plan_briefing, react_briefing

    repo_map = build_repo_map(repo, "verify_token")
    for briefing in (plan_briefing("t", repo_map, "pytest"), react_briefing("t", repo_map, "", "")):
        assert briefing.count("Repository map") == 1
        assert "Repository map:\n7 of 7 tracked files" in briefing


def test_a_cold_map_of_a_big_repo_parses_only_what_it_can_show(tmp_path: Path) -> None:
    files = {f"pkg/m{i:04d}.py": f"def f{i}(x):\n    return x\n" for i in range(400)}
    files["pkg/m0123.py"] = "def rebalance_ledger(x):\n    return x\n"
    repo = make_repo(tmp_path / "big", files)
    cache = RepoMapCache()
    text = build_repo_map(repo, "rebalance_ledger is wrong", budget=300, cache=cache)
    assert _order(text)[0] == "pkg/m0123.py"
    assert cache.misses < 60  # parsed: the candidates and what the budget shows, not 400 files


def test_a_tracked_link_out_of_the_repository_is_never_read_into_the_map(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "secret.py").write_text("def root_only_secret_function():\n    pass\n")
    repo = make_repo(tmp_path / "repo", {"app.py": "def visible_function():\n    pass\n"})
    (repo / "linked.py").symlink_to(private / "secret.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a link")
    shown = build_repo_map(repo, "fix root_only_secret_function in linked.py")
    assert "visible_function" in shown
    assert "root_only_secret_function()" not in shown.replace("fix root_only", "")
