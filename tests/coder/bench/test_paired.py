"""The paired comparison and its sign test, against values computed by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from coder.bench.paired import MIN_DISCORDANT, paired, paired_lines, sign_test


@pytest.mark.parametrize(
    ("wins", "losses", "p"),
    [
        (0, 0, Fraction(1)),
        (1, 0, Fraction(1)),  # 2 * 1/2, capped
        (5, 0, Fraction(2, 32)),  # 0.0625: five discordant pairs can never reach 0.05
        (6, 0, Fraction(2, 64)),  # 0.03125
        (0, 6, Fraction(2, 64)),  # two-sided: the same either way
        (8, 2, Fraction(2 * (1 + 10 + 45), 1024)),  # 0.109375
        (15, 5, Fraction(2 * (1 + 20 + 190 + 1140 + 4845 + 15504), 2**20)),  # 0.0414
        (3, 3, Fraction(1)),  # a tie split is no evidence either way
        (7, 6, Fraction(1)),
    ],
)
def test_sign_test_known_values(wins: int, losses: int, p: Fraction) -> None:
    assert sign_test(wins, losses) == pytest.approx(float(p), abs=1e-12)


def test_fewer_than_six_discordant_pairs_can_never_be_significant() -> None:
    assert MIN_DISCORDANT == 6
    assert all(sign_test(n, 0) >= 0.05 for n in range(1, 6))
    assert sign_test(6, 0) < 0.05


def rows(resolved: dict[str, tuple[bool, bool]], baseline: str = "react") -> list[dict]:
    out = []
    for fixture, (ours, theirs) in resolved.items():
        out.append({"fixture": fixture, "mode": "contract", "resolved": ours})
        out.append({"fixture": fixture, "mode": baseline, "resolved": theirs})
    return out


def test_paired_counts_discordant_fixtures_and_says_when_the_sample_is_too_small() -> None:
    data = rows({"a": (True, False), "b": (True, True), "c": (False, False), "d": (False, True)})
    (result,) = paired(data, ("contract", "react")).values()
    assert result["only_contract"] == ["a"] and result["only_baseline"] == ["d"]
    assert (result["both"], result["neither"], result["discordant"]) == (1, 1, 2)
    assert result["p_value"] == 1.0 and result["conclusive"] is False
    assert "too few to conclude anything" in result["verdict"]
    (line,) = paired_lines(paired(data, ("contract", "react")))
    assert line.startswith("contract vs react on 4 fixtures: only contract resolved 1 (a)")


def test_paired_with_enough_pairs_names_the_better_mode_or_says_no_difference() -> None:
    many = {f"f{i}": (True, False) for i in range(7)}
    (result,) = paired(rows(many), ("contract", "react")).values()
    assert result["conclusive"] and result["p_value"] == pytest.approx(2 / 128, abs=1e-4)
    assert result["verdict"].startswith("contract resolved more of the same fixtures")
    mixed = {
        **{f"w{i}": (True, False) for i in range(4)},
        **{f"l{i}": (False, True) for i in range(3)},
    }
    (result,) = paired(rows(mixed, "plan"), ("contract", "plan")).values()
    assert not result["conclusive"] and result["verdict"].startswith("no difference shown")


def test_only_fixtures_both_modes_ran_are_paired() -> None:
    data = rows({"a": (True, False)}) + [{"fixture": "b", "mode": "contract", "resolved": True}]
    (result,) = paired(data, ("contract", "react")).values()
    assert result["fixtures"] == 1
    assert paired(data, ("react", "plan")) == {}
