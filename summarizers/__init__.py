"""Observation filters: everything a model or a person sees of a log, a diff or a repository
goes through here, under a token budget measured by `tokens.estimate_tokens`.

Modules: tokens (the estimator), logs (compact_log, compact_command_text), outcomes
(parse_outcomes), ast_scope (symbols and symbol diffs), references (find_references), diffs
(summarize_diff), repomap (build_repo_map, RepoMapCache); logformats/ holds one parser per log
format and the budget renderer.
"""
