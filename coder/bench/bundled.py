"""Where `coder bench` finds fixtures when none is named: `./fixtures` when the current
directory has one, else the fixtures of this checkout, else the ones installed with the
package (`coder_fixtures`, package data of the distribution)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def default_fixtures() -> Path:
    here = Path("fixtures")
    if here.is_dir():
        return here
    checkout = Path(__file__).resolve().parents[2] / "fixtures"
    if checkout.is_dir():
        return checkout
    spec = importlib.util.find_spec("coder_fixtures")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return checkout  # load_fixtures says it is missing, in one line
