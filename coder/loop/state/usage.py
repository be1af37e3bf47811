"""The one error a run raises for bad input, before anything is changed."""

from __future__ import annotations


class UsageError(Exception):
    """Bad input or configuration: one line for the person, exit 2, nothing changed.

    `details` are lines the person needs as well (every problem of a plan file), shown before
    the one line."""

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.details = details or []
