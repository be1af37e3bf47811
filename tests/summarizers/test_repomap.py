from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from summarizers.repomap import RepoMapCache, build_repo_map
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
    return [
        line.rstrip(":")
        for line in text.splitlines()[1:]
        if line and not line.startswith((" ", "["))
    ]


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
    assert text.startswith(f"Repository map: {len(FILES)} of {len(FILES)} tracked files")


@pytest.mark.parametrize("budget", [0, 5, 20, 40, 60, 100, 1500])
def test_budget_is_respected_and_the_cut_is_said(repo: Path, budget: int) -> None:
    text = build_repo_map(repo, "verify_token", budget=budget)
    assert estimate_tokens(text) <= budget
    if 40 <= budget < 100:
        assert "more files not shown]" in text


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
