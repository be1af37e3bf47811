"""pytest plugin the harness loads into its own runs (`-p coder_outcomes`): each test's outcome
as the test itself produced it, written where the harness reads it.

A repository's `conftest.py` can rewrite reports (a `pytest_runtest_makereport` wrapper that
turns a failure into a pass): the log and the JUnit XML then say "passed". This plugin's
wrappers run innermost (`trylast`), around the test function's own call, so they see the
exception the test raised before any conftest wrapper can swallow it or rewrite the report.
Each line is written as the test ends and never rewritten; a test recorded twice keeps its
worst outcome. Standard library and pytest only: it runs in the repository's own Python.
"""

from __future__ import annotations

import json
import os

import pytest

_FILE = "pytest-outcomes.jsonl"
_SKIPS = ("Skipped", "XFailed")


def _open():  # noqa: ANN202 - a file object, typed loosely for old Pythons
    directory = os.environ.get("CODER_REPORTS")
    if not directory:
        return None
    try:
        return open(os.path.join(directory, _FILE), "a", encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None


_OUT = _open()


def _write(nodeid: str, when: str, outcome: str) -> None:
    if _OUT is None:
        return
    _OUT.write(json.dumps({"id": nodeid, "when": when, "outcome": outcome}) + "\n")
    _OUT.flush()


def _outcome(excinfo) -> str:  # noqa: ANN001
    if excinfo is None:
        return "passed"
    name = type(excinfo.value).__name__
    if name in _SKIPS or name == "Skipped":
        return "xfailed" if name == "XFailed" else "skipped"
    return "failed"


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_makereport(item, call):  # noqa: ANN001, ANN201
    """Innermost: `call` is what the test's setup, call or teardown really did."""
    outcome = _outcome(call.excinfo)
    if call.when == "call" and outcome == "failed" and item.get_closest_marker("xfail"):
        outcome = "xfailed"
    if call.when != "call" and outcome == "failed":
        outcome = "error"
    if call.when == "call" or outcome != "passed":
        _write(item.nodeid, call.when, outcome)
    yield


@pytest.hookimpl(trylast=True)
def pytest_collectreport(report):  # noqa: ANN001, ANN201
    """A file that failed to collect (an import error) fails every test in it: its own id."""
    if report.failed and report.nodeid:
        _write(report.nodeid, "collect", "error")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):  # noqa: ANN001, ANN201
    _write("", "session", "finished")
