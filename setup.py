"""Packaging beyond what pyproject.toml can say: the bundled fixtures.

The fixtures live at the top of the repository (`fixtures/`, where tests and people find
them) and ship inside the distribution as the data-only package `coder_fixtures`, so that
`coder bench` after a plain `pip install` (no clone) finds them. Dotfiles in them
(`.gitignore`, `.coder.toml`, `.worktreeinclude`) are part of what a fixture tests.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["coder*", "contracts*", "sandbox*", "summarizers*"]),
        "coder_fixtures",
    ],
    package_dir={"coder_fixtures": "fixtures"},
    package_data={"coder_fixtures": ["**/*", "**/.*"]},
    include_package_data=False,
)
