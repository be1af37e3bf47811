"""Many attempts at one task, one verified answer (`coder run --attempts N`).

Each attempt is a whole run of its own (its worktree, its branch `coder/<run-id>/a<i>` while it runs, `coder/<run-id>-a<i>` once they end, its
budget, its model), started through the bench's executors (`coder.bench.executors`: the local
process pool, or Ray). The verifier then chooses among the attempts that verified, by evidence:
each candidate's proven regression tests are run against every other candidate's tree, confined
like every command (`crossproofs`), and the candidate that passes the others' proofs wins,
ties going to the smaller change with no weakened check (`selection`).
"""
