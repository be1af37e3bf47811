"""coder: a coding agent that changes repositories only through verified step contracts."""

__version__ = "0.1.0"
