"""Prints a pytest-like log of ~15k tokens: progress noise, warnings and 60 distinct failures,
so that even compacted to its budget every run's output stays large."""

import sys

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
print("============================= test session starts ==============================")
for i in range(300):
    print(f"tests/test_mod{i % 40}.py::test_case_{i} PASSED{' ' * 20}[{i // 3:3d}%]")
print("=================================== FAILURES ===================================")
for k in range(60):
    n = seed * 100 + k
    print(f"_________________________________ test_case_{n} _________________________________")
    print(
        f"    def test_case_{n}():\n        value = compute({n})\n>       assert value == {n + 1}"
    )
    print(f"E       assert {n} == {n + 1}\nE        +  where {n} = compute({n})")
    print(f"tests/test_mod{k % 40}.py:{10 + k}: AssertionError")
print("=============================== warnings summary ===============================")
for i in range(50):
    print(f"  DeprecationWarning: thing {i} is deprecated and will be removed in a future release")
print("=========================== short test summary info ============================")
for k in range(60):
    n = seed * 100 + k
    print(f"FAILED tests/test_mod{k % 40}.py::test_case_{n} - assert {n} == {n + 1}")
print("======================== 60 failed, 240 passed in 1.23s ========================")
