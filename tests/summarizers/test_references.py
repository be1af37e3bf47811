from __future__ import annotations

import subprocess
from pathlib import Path

from summarizers.references import find_references


def _git_repo(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


def test_identifiers_in_tracked_files_not_strings_comments_or_untracked(tmp_path: Path) -> None:
    _git_repo(
        tmp_path,
        {
            "src/auth.ts": "export function verifyCredential(c: string) {}\n",
            "src/use.ts": "import { verifyCredential } from './auth';\n// verifyCredential here\n"
            "verifyCredential('x');\nconst s = 'verifyCredential';\n",
            "lib/a.py": "from x import verifyCredential\n\nverifyCredential()\n",
            "README.md": "verifyCredential is documented\n",
        },
    )
    (tmp_path / "untracked.js").write_text("verifyCredential();\n")
    refs = find_references(tmp_path, "verifyCredential")
    assert refs == [
        ("lib/a.py", 1),
        ("lib/a.py", 3),
        ("src/auth.ts", 1),
        ("src/use.ts", 1),
        ("src/use.ts", 3),
    ]


def test_qualified_names_search_the_member(tmp_path: Path) -> None:
    _git_repo(tmp_path, {"m.py": "class A:\n    def run(self): ...\n\nA().run()\nrunner = 1\n"})
    assert find_references(tmp_path, "A.run") == [("m.py", 2), ("m.py", 4)]


def test_outside_git_every_source_file_counts(tmp_path: Path) -> None:
    (tmp_path / "x.js").write_text("function go() {}\ngo();\n")
    assert find_references(tmp_path, "go") == [("x.js", 1), ("x.js", 2)]
