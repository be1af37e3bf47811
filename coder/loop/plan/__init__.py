"""The plan: the planning phase, a person's plan, and approval."""
