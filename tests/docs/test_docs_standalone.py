"""The docs stand alone: every link stays inside the repository and resolves; the scripted
model's page is what the schemas say; docs/swebench.md's example has a script for every run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clirun import coder

from coder.tools.scriptdoc import scripted_model_doc

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves_inside_the_repository(page):
    text = page.read_text()
    assert "DESIGN.md" not in text  # not in the repository: docs/design.md is
    for target in LINK.findall(text):
        if target.startswith("#"):
            continue
        assert "://" not in target, f"{page.name} links outside: {target}"
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), f"{page.name}: {target}"


def test_the_scripted_model_page_is_generated_from_the_schemas():
    page = (ROOT / "docs" / "scripted-model.md").read_text()
    assert page == scripted_model_doc(), "regenerate: python -m coder.tools.scriptdoc"
    printed = coder("schema", "script")
    assert printed.returncode == 0
    block = page.split("## The file's JSON Schema (`coder schema script`)", 1)[1]
    shown = json.loads(re.search(r"```json\n(.*?)```", block, re.S)[1])  # type: ignore[index]
    assert shown == json.loads(printed.stdout)
    for tool in ("read_file", "edit_file", "run", "submit_plan", "critique_done", "final_answer"):
        assert f"### `{tool}`" in page


def test_the_shipped_swebench_instances_have_a_script_for_every_mode():
    data = ROOT / "tests" / "data" / "swebench"
    ids = [json.loads(line)["instance_id"] for line in (data / "instances.jsonl").open()]
    expected = json.loads((data / "expected.json").read_text())
    for ident in ids:
        for mode in ("contract", "react", "plan", "reflect"):  # coder bench's default modes
            assert (data / "scripts" / f"{ident}.{mode}.json").is_file(), (ident, mode)
            assert mode in expected[ident]
