"""A `run` answer carries what is new: a long command comes back by its first line and size
(the model has the whole of it in its own call)."""

from __future__ import annotations

from gitrepo import make_repo

from coder.tools.toolbox import ToolBox
from sandbox.confine import make_sandbox
from sandbox.policy import PathPolicy

HEREDOC = (
    "cat > gen.py <<'EOF'\n"
    + "".join(
        f"VALUE_{i} = {i}  # a generated constant, one of many in this long heredoc\n"
        for i in range(60)
    )
    + "EOF\npython gen.py && echo written"
)


def test_a_long_command_comes_back_by_its_first_line_and_its_size(tmp_path):
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    box = ToolBox(repo, make_sandbox("none", repo), PathPolicy(repo, None, []), 20.0)
    assert len(HEREDOC) > 3000
    obs = box.execute("run", {"command": HEREDOC})
    assert obs.status == "ok", obs.text
    lines = HEREDOC.count("\n") + 1
    assert obs.text.startswith(
        f"$ cat > gen.py <<'EOF' [… the command as you sent it: {lines} lines, "
        f"{len(HEREDOC):,} characters]\nexit code 0"
    )
    assert "VALUE_1 = 1" not in obs.text and obs.text.endswith("written")
    assert len(obs.text) < 300
    short = box.execute("run", {"command": "echo a &&\necho b"})
    assert short.text.startswith("$ echo a &&\necho b\nexit code 0"), "a short one stays whole"
