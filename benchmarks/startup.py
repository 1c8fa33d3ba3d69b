"""Start-up time of the command line (issue 9): `attncert --help` and `attncert grades` on a
4-level profile, whole processes, best of N.

Usage: python benchmarks/startup.py [--repeat 7]
Targets on the project's 2-core machine: --help <= 0.3 s, grades on a 4-level profile <= 0.8 s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = {
    "python -c pass (floor)": [sys.executable, "-c", "pass"],
    "attncert --help": [sys.executable, "-m", "attncert", "--help"],
    "attncert grades (4 levels)": [
        sys.executable,
        "-m",
        "attncert",
        "grades",
        str(ROOT / "examples" / "profiles" / "table3_nu08_mu04.json"),
    ],
}
TARGETS = {"attncert --help": 0.3, "attncert grades (4 levels)": 0.8}


def best_of(command: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    worst = 0
    for name, command in CASES.items():
        seconds = best_of(command, args.repeat)
        target = TARGETS.get(name)
        verdict = "" if target is None else (" ok" if seconds <= target else " OVER TARGET")
        print(f"{name:32s} {seconds:6.3f} s" + (f" (target <= {target} s){verdict}" if target else ""))
        worst |= bool(target and seconds > target)
    return int(worst)


if __name__ == "__main__":
    sys.exit(main())
