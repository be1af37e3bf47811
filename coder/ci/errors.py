"""The one exception the CI commands raise: bad input, reported on one line with exit 2."""

from __future__ import annotations


class CiInputError(Exception):
    """Bad input or configuration (an unknown ref, no remote, no test command): exit 2,
    nothing posted or pushed."""
