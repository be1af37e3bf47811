"""A candidate's own proofs when its run proved none: react and reflect write tests without a
`tests_fail_before` contract, so a verified candidate of theirs brings no proven test to the
selection, and the selection has nothing to cross-check.

For such a candidate the tests it added or changed stand in, judged exactly as a step's
`tests_fail_before` is judged: the test files in its diff (those a runner calls test files, as
a step's proof lays them) are run, with the selection a `tests_pass` on them runs, on the base
with its versions laid over it and on its own tree (`CrossProofs.run`, the code the exchange
runs), and `coder.verdict.proof.judge_proof` says which of the tests it added or changed failed
before and pass after. Those ids become its `proven`, and the exchange runs them on the other
candidates' trees like any step's proofs. A test that passes on the base too proves nothing and
is not counted; a test red at the base that the candidate did not touch is not its proof.
"""

from __future__ import annotations

from dataclasses import replace

from coder.attempts.crossproofs import CrossProofs, files_at
from coder.attempts.selection import Attempted
from coder.verdict.judge import Facts, judge, step_policy
from coder.verdict.proof import judge_proof
from sandbox.gitcli import GitError, git
from summarizers.runners.names import TEST
from summarizers.runners.table import RUNNERS
from summarizers.runners.testdefs import changed_tests

SHOWN = 3


def with_own_proofs(attempted: Attempted, proofs: CrossProofs) -> Attempted:
    """`attempted` with the tests it added that prove its fix as its proofs, when it is a
    verified candidate whose run proved none; unchanged otherwise."""
    base, final = attempted.base_commit, attempted.final_commit
    if not attempted.verified or attempted.proven or not base or not final:
        return attempted
    n = attempted.attempt
    if not proofs.test_cmd:
        return replace(attempted, proof_note=f"attempt {n}: no test command to prove its tests")
    tests = _test_files_changed(proofs, base, final)
    if not tests:
        return replace(attempted, proof_note=f"attempt {n} added or changed no test")
    overlay = files_at(proofs.repo, final, set(tests))
    if isinstance(overlay, str):
        return replace(attempted, proof_note=f"attempt {n}'s tests could not be read: {overlay}")
    after = proofs.run(final, {}, tests)
    before = proofs.run(base, overlay, tests)
    if isinstance(after, str) or isinstance(before, str):
        why = after if isinstance(after, str) else before
        return replace(attempted, proof_note=f"attempt {n}'s tests could not be run: {why}")
    selection, run_after = after
    if selection.problem:
        return replace(attempted, proof_note=f"attempt {n}'s tests: {selection.problem}")
    base_facts = _at_base(proofs, base, tests) if run_after.facts().red else None
    named = tuple(t for t in selection.targets if t.kind == TEST)
    verdict = judge(run_after.facts(), base_facts, step_policy(named, (), selection.targets))
    changed = {
        t.name: _titles(proofs, base, final, t.files) for t in selection.targets if t.kind != TEST
    }
    proof = judge_proof(before[1].facts(), verdict, selection.targets, changed)
    files = ", ".join(tests)
    if proof.proving:
        shown = ", ".join(proof.proving[:SHOWN])
        more = f" (+{len(proof.proving) - SHOWN} more)" if len(proof.proving) > SHOWN else ""
        note = (
            f"attempt {n}'s proofs are the tests it added ({files}): {shown}{more} fail on the "
            "base and pass on its tree"
        )
        return replace(attempted, proven=proof.proving, proof_note=note)
    said = "; ".join(line.splitlines()[0] for line in proof.lines[:SHOWN] if line)
    return replace(
        attempted, proof_note=f"attempt {n}'s tests ({files}) prove nothing: {said}".rstrip()
    )


def _at_base(proofs: CrossProofs, base: str, tests: list[str]) -> Facts | None:
    """The candidate's test files as they stand at the base, run there: a test red at the base
    for another reason is discounted after, as a step's proof discounts it by the baseline."""
    there = _present(proofs, base, tests)
    ran = proofs.run(base, {}, there) if there else None
    if ran is None or isinstance(ran, str) or ran[0].problem:
        return None
    return ran[1].facts()


def _test_files_changed(proofs: CrossProofs, base: str, final: str) -> list[str]:
    """The files the candidate changed that a runner calls test files and that it still has."""
    try:
        out = git(["diff", "--name-only", "--no-renames", "-z", base, final], proofs.repo)
    except GitError:
        return []
    changed = [p for p in out.decode(errors="surrogateescape").split("\0") if p]
    tests = [p for p in changed if any(r.is_test_file(p) for r in RUNNERS)]
    return _present(proofs, final, tests)


def _present(proofs: CrossProofs, commit: str, paths: list[str]) -> list[str]:
    found = files_at(proofs.repo, commit, set(paths))
    if isinstance(found, str):
        return []
    return [p for p in paths if found.get(p) is not None]


def _titles(
    proofs: CrossProofs, base: str, final: str, files: tuple[str, ...]
) -> list[tuple[str, ...]] | None:
    """The title paths of the tests the candidate added or changed in `files`; None where a
    file's language is not read (then every test in it stands in)."""
    titles: list[tuple[str, ...]] = []
    for rel in files:
        now = _text(proofs, final, rel)
        if now is None:
            continue
        found = changed_tests(_text(proofs, base, rel), now, rel)
        if found is None:
            return None
        titles += found
    return titles


def _text(proofs: CrossProofs, commit: str, rel: str) -> str | None:
    try:
        return git(["show", f"{commit}:{rel}"], proofs.repo).decode("utf-8", errors="replace")
    except GitError:
        return None
