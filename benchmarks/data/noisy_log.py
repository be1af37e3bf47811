"""Prints a pytest-like log of ~6k tokens: progress noise, warnings, one failure per run."""

import sys

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
print("============================= test session starts ==============================")
for i in range(300):
    print(f"tests/test_mod{i % 40}.py::test_case_{i} PASSED{' ' * 20}[{i // 3:3d}%]")
print("=================================== FAILURES ===================================")
print(f"_________________________________ test_case_{seed} _________________________________")
print(f"    def test_case_{seed}():\n>       assert compute({seed}) == {seed + 1}")
print(f"E       assert {seed} == {seed + 1}")
print(f"tests/test_mod{seed % 40}.py:{10 + seed}: AssertionError")
print("=============================== warnings summary ===============================")
for i in range(50):
    print(f"  DeprecationWarning: thing {i} is deprecated and will be removed in a future release")
print(f"FAILED tests/test_mod{seed % 40}.py::test_case_{seed} - assert {seed} == {seed + 1}")
print("========================= 1 failed, 299 passed in 1.23s =========================")
