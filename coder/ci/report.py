"""The review report: what `coder ci review --format json` prints and the markdown is drawn from.

One pydantic model so the JSON is stable for anyone scripting against it, and so the markdown
renderer cannot show a fact the JSON lacks.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SymbolChangeKind = Literal[
    "added", "removed", "signature_changed", "body_changed", "made_private", "made_public"
]
FileStatus = Literal["added", "deleted", "modified", "renamed"]
FailOn = Literal["breaking", "tests"]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RefInfo(_Out):
    ref: str
    commit: str


class SymbolChange(_Out):
    name: str
    """Qualified where the language nests, e.g. `Calc.add`."""
    kind: str
    """function, class, method, … as the parser names it."""
    change: SymbolChangeKind
    public: bool
    """Public before (for a removal or signature change) or after (for the others)."""
    old_signature: str | None = None
    new_signature: str | None = None
    line: int | None = None
    """1-based line at head (at base for a removed symbol)."""
    compatible: bool | None = None
    """Does every old call still work? None when the change is not judged (not public API)."""
    reasons: list[str] = Field(default_factory=list)
    """Why old calls may break, when `compatible` is false."""
    notes: list[str] = Field(default_factory=list)
    """What changed without being judged (annotations, return types, new optional params)."""
    extended: bool = False
    """Judged compatible and callers may now pass more (a new optional parameter, `*args`)."""


class FileChange(_Out):
    path: str
    old_path: str | None = None
    status: FileStatus
    language: str | None = None
    added_lines: int = 0
    removed_lines: int = 0
    symbols: list[SymbolChange] = Field(default_factory=list)
    parse_error: str | None = None
    """Set when a side did not parse cleanly; its symbols may be incomplete."""


class CallSite(_Out):
    path: str
    line: int
    text: str


class BreakingChange(_Out):
    path: str
    symbol: str
    change: SymbolChangeKind
    old_signature: str | None = None
    new_signature: str | None = None
    reasons: list[str] = Field(default_factory=list)
    """Why callers written against base may break ("new required parameter `c`")."""
    call_sites: list[CallSite] = Field(default_factory=list)
    more_call_sites: int = 0
    """Call sites found but not listed."""


class CompatibleChange(_Out):
    """A public signature that changed and still accepts every call it accepted at base."""

    path: str
    symbol: str
    old_signature: str | None = None
    new_signature: str | None = None
    extended: bool = False
    """Callers may now pass more (a new optional parameter, a default, `*args`)."""
    notes: list[str] = Field(default_factory=list)


class DiffStats(_Out):
    files: int = 0
    added: int = 0
    removed: int = 0


class SuiteRun(_Out):
    ref: str
    commit: str
    command: str
    exit_code: int | None
    passed: bool
    timed_out: bool = False
    duration_s: float = 0.0
    sandbox: str = ""
    failing: list[str] = Field(default_factory=list)
    """Test ids that failed or errored, as the log filter found them."""
    log: str = ""
    """The output, compacted to a token budget."""
    raw_tokens: int = 0


class SuiteReport(_Out):
    command: str | None = None
    command_source: Literal["flag", "config", "detected"] | None = None
    head: SuiteRun | None = None
    base: SuiteRun | None = None
    new_failures: list[str] | None = None
    """Failing at head and not at base; None unless --compare-base ran both."""
    fixed: list[str] = Field(default_factory=list)
    """Failing at base and passing at head."""
    note: str | None = None
    """Why tests did not run, when they did not."""


class ReviewReport(_Out):
    base: RefInfo
    head: RefInfo
    stats: DiffStats
    files: list[FileChange] = Field(default_factory=list)
    breaking: list[BreakingChange] = Field(default_factory=list)
    """Changes that may break callers, judged by `summarizers.compat`; `--fail-on breaking`."""
    compatible: list[CompatibleChange] = Field(default_factory=list)
    """Public signature changes judged compatible: every old call still works."""
    diff: str = ""
    """The patch from the merge base, compacted to a token budget."""
    tests: SuiteReport = Field(default_factory=SuiteReport)
    warnings: list[str] = Field(default_factory=list)

    def tests_failed(self) -> bool:
        """What `--fail-on tests` means: new failures when base was run, else any at head.

        With base run, a failing head counts when some test fails only at head, or when base
        passed outright (head's failure is new even if no test id could be parsed from it).
        """
        head, base = self.tests.head, self.tests.base
        if head is None or head.passed:
            return False
        if base is None or self.tests.new_failures is None:
            return True
        return bool(self.tests.new_failures) or base.passed

    def failed_checks(self, fail_on: list[FailOn]) -> list[str]:
        """The `--fail-on` conditions that hold, each as one line for the person."""
        lines: list[str] = []
        if "breaking" in fail_on and self.breaking:
            lines.append(f"{len(self.breaking)} possible breaking change(s)")
        if "tests" in fail_on and self.tests_failed():
            if self.tests.new_failures:
                lines.append(f"{len(self.tests.new_failures)} new test failure(s) at head")
            else:
                lines.append("tests fail at head")
        return lines
