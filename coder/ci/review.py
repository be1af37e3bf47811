"""`coder ci review`: one report on what a change does to the code's symbols and its tests.

Sources come from git's object store and tests run in throwaway worktrees, so the user's
checkout is never read or written. The diff is taken from the merge base, as GitHub shows a PR.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.ci.errors import CiInputError
from coder.ci.gitrefs import (
    ChangedPath,
    changed_paths,
    file_at,
    is_repository,
    merge_base,
    resolve_commit,
    unified_diff,
)
from coder.ci.report import (
    BreakingChange,
    CompatibleChange,
    DiffStats,
    FileChange,
    RefInfo,
    ReviewReport,
    SuiteReport,
)
from coder.ci.suite import (
    SuiteOutcome,
    choose_test_command,
    compare_runs,
    run_suite,
    tree_sandbox,
    trusted_include,
)
from coder.ci.symbols import call_sites, file_symbol_changes
from coder.ci.trees import commit_tree
from summarizers.diffs import summarize_diff

DIFF_BUDGET = 1500


@dataclass
class ReviewOptions:
    repo: Path
    base: str
    head: str
    compare_base: bool = False
    test_cmd: str | None = None
    run_tests: bool = True
    sandbox: str = "auto"


def build_review(options: ReviewOptions) -> ReviewReport:
    repo = options.repo.resolve()
    if not is_repository(repo):
        raise CiInputError(f"{repo} is not a git repository")
    base = _commit(repo, options.base, "--base")
    head = _commit(repo, options.head, "--head")
    warnings: list[str] = []
    since = merge_base(repo, base, head) or base
    if since != base:
        warnings.append(
            f"base {options.base} moved on since this branch left it; the diff is from their "
            f"merge base {since[:10]}"
        )
    files, diff = describe_change(repo, since, head)
    report = ReviewReport(
        base=RefInfo(ref=options.base, commit=base),
        head=RefInfo(ref=options.head, commit=head),
        stats=DiffStats(
            files=len(files),
            added=sum(f.added_lines for f in files),
            removed=sum(f.removed_lines for f in files),
        ),
        files=files,
        diff=diff,
        compatible=_compatible(files),
    )
    with commit_tree(repo, head) as tree:
        report.breaking = _breaking(tree, files)
        if options.run_tests:
            report.tests = _tests(repo, tree, base, head, options, warnings)
        else:
            report.tests = SuiteReport(note="tests not run (--no-tests)")
    report.warnings = warnings
    return report


def describe_change(repo: Path, since: str, head: str) -> tuple[list[FileChange], str]:
    """What `since..head` changes: per file, its symbols; and the patch, compacted."""
    files = [_file_change(repo, since, head, c) for c in changed_paths(repo, since, head)]
    return files, summarize_diff(unified_diff(repo, since, head), budget=DIFF_BUDGET).text


def _commit(repo: Path, ref: str, flag: str) -> str:
    sha = resolve_commit(repo, ref)
    if sha is None:
        raise CiInputError(f"{flag} {ref!r} names no commit in {repo} (is the history fetched?)")
    return sha


def _file_change(repo: Path, base: str, head: str, change: ChangedPath) -> FileChange:
    old = None if change.status == "added" else file_at(repo, base, change.old_path or change.path)
    new = None if change.status == "deleted" else file_at(repo, head, change.path)
    found = file_symbol_changes(change.path, old, new)
    return FileChange(
        path=change.path,
        old_path=change.old_path,
        status=change.status,  # type: ignore[arg-type]
        language=found.language,
        added_lines=change.added_lines,
        removed_lines=change.removed_lines,
        symbols=found.changes,
        parse_error=found.error,
    )


def _breaking(tree: Path, files: list[FileChange]) -> list[BreakingChange]:
    """Every change the compatibility judgement calls breaking, with where the symbol is used."""
    breaking: list[BreakingChange] = []
    seen: set[tuple[str, str]] = set()
    for f in files:
        for s in f.symbols:
            if s.compatible is not False or (f.path, s.name) in seen:
                continue
            seen.add((f.path, s.name))
            line = None if s.change == "removed" else s.line
            sites, more = call_sites(tree, s.name, defined_in=f.path, definition_line=line)
            breaking.append(
                BreakingChange(
                    path=f.path,
                    symbol=s.name,
                    change=s.change,
                    old_signature=s.old_signature,
                    new_signature=s.new_signature,
                    reasons=s.reasons,
                    call_sites=sites,
                    more_call_sites=more,
                )
            )
    return breaking


def _compatible(files: list[FileChange]) -> list[CompatibleChange]:
    """Public signatures that changed and still accept every call they accepted at base."""
    return [
        CompatibleChange(
            path=f.path,
            symbol=s.name,
            old_signature=s.old_signature,
            new_signature=s.new_signature,
            extended=s.extended,
            notes=s.notes,
        )
        for f in files
        for s in f.symbols
        if s.compatible and s.change == "signature_changed"
    ]


def _tests(
    repo: Path, tree: Path, base: str, head: str, options: ReviewOptions, warnings: list[str]
) -> SuiteReport:
    choice = choose_test_command(options.test_cmd, tree)
    warnings.extend(choice.warnings)
    if choice.command is None:
        return SuiteReport(
            note="no test command found: pass --test-cmd or set test_cmd in [tool.coder]"
        )
    command = choice.command.command
    head_suite = _run(
        tree, command, options, head, options.head, choice.timeout_s, warnings, trusted=base
    )
    section = SuiteReport(
        command=command, command_source=choice.command.source, head=head_suite.run
    )
    if options.compare_base:
        with commit_tree(repo, base) as base_tree:
            base_suite = _run(
                base_tree,
                command,
                options,
                base,
                options.base,
                choice.timeout_s,
                warnings,
                trusted=base,
            )
        section.base = base_suite.run
        section.new_failures, section.fixed = compare_runs(head_suite, base_suite)
    return section


def _run(
    tree: Path,
    command: str,
    options: ReviewOptions,
    commit: str,
    ref: str,
    timeout_s: float,
    warnings: list[str],
    *,
    trusted: str,
) -> SuiteOutcome:
    """`trusted`: the commit whose configuration chooses what the sandbox brings in."""

    def warn(line: str) -> None:
        if line not in warnings:
            warnings.append(line)

    sandbox = tree_sandbox(
        tree, options.sandbox, command, warn, include=trusted_include(options.repo, trusted)
    )
    return run_suite(sandbox, tree, command, ref=ref, commit=commit, timeout_s=timeout_s)
