"""The conversation: what each phase is shown (context, prompts, the repository's own words, what is red at the base) and how a reply becomes a decision."""
