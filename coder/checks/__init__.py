"""Checks of a step's invariants, one module per family (scope, tests, proofs, symbols, text),
listed in one table (`coder.checks.verify.CHECKERS`); the judgement of test runs is
`coder.verdict`'s."""
