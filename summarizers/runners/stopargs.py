"""Stop-at-the-first-failure flags in a runner's own arguments, as runner modules declare them.

Each runner module says which of its arguments stop a run early (`Runner.stop_flags`); the
harness (coder/verdict/stopflags.py) cuts exactly those words out of the command text. Shared
here: the shapes such flags take (`--bail`, `--bail=2`, `--bail 2`, `-xvs`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

_LETTERS = re.compile(r"-([A-Za-z]{2,})")


@dataclass(frozen=True)
class StopFlag:
    """A stop flag at `index` of the runner's own arguments, spanning `words` words."""

    index: int
    words: int = 1
    keep: str = ""
    """What stays of the word: `-vs` of `-xvs`; empty: the word goes."""
    safe: bool = True
    """False: a stop flag, but taking it out could change what else the command means (a
    reporter paired by position with a destination): reported, not cut."""


def option_flags(
    args: list[str], names: Collection[str], *, optional_number: bool
) -> list[StopFlag]:
    """`--name`, `--name=v`, and with `optional_number` the number word after it (`--bail 1`)."""
    out: list[StopFlag] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in names or arg.startswith("--") and arg.split("=", 1)[0] in names:
            number = optional_number and "=" not in arg and i + 1 < len(args)
            out.append(StopFlag(i, 2 if number and args[i + 1].isdigit() else 1))
    return out


def cluster_flag(index: int, arg: str, stop: str, no_value: str) -> StopFlag | None:
    """`-xvs` -> keep `-vs`: a stop letter in a cluster of short flags, up to the first letter
    that takes a value (pytest's `-rx` is -r with the value "x", not -x)."""
    m = _LETTERS.fullmatch(arg)
    if m is None:
        return None
    letters, kept = m.group(1), []
    for k, letter in enumerate(letters):
        if letter not in no_value:
            kept.append(letters[k:])
            break
        if letter != stop:
            kept.append(letter)
    rest = "".join(kept)
    if rest == letters:
        return None
    return StopFlag(index, keep=f"-{rest}" if rest else "")


def flag_text(args: list[str], flag: StopFlag) -> str:
    """How the evidence names a flag: its words as written (`--bail 2`), a cluster's letter."""
    if flag.keep or (flag.words == 1 and _LETTERS.fullmatch(args[flag.index])):
        gone = set(args[flag.index][1:]) - set(flag.keep[1:])
        return f"-{''.join(sorted(gone))}"
    return " ".join(args[flag.index : flag.index + flag.words])
