import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

collect_ignore_glob = ["data/swebench/repos/*"]
"""Other projects' test suites, shipped as data for the SWE-bench tests: never ours to collect."""
