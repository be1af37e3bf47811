"""Observation filters: everything a model or a person sees of a log, a diff or a repository
goes through here, under a token budget measured by `tokens.estimate_tokens`.

Modules: tokens (the estimator), logs (compact_log, compact_command_text), ast_scope (symbols
and symbol diffs), references (find_references), diffs (summarize_diff), repomap
(build_repo_map, RepoMapCache); logformats/ holds one parser per log format and the budget
renderer (what the model is shown); runners/ one module per test runner and `read_log`, which
reads a test run's output once into sections and per-test outcomes (what the verdict judges).
"""
