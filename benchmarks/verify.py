"""Time `attncert verify` and `attncert report` as a user runs them: whole processes, cold.

Usage: python benchmarks/verify.py [--repeat 3] [--paper P] [--full]

Prints, per configuration, the median wall time and the median CPU time (user + system of the
process and its workers) over ``--repeat`` runs; record the numbers in benchmarks/README.md.
Configurations: the quick tier serial (``--jobs 1``) and on two workers (``--jobs 2``); with
``--full`` also ``--tier full --negative-controls`` both ways; ``report --from RUN.json`` with and
without figures (the saved run is the last quick-tier run).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ATTNCERT = [sys.executable, "-m", "attncert"]


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], repeat: int) -> tuple[float, float, int]:
    """Median wall and CPU seconds of ``attncert argv`` run ``repeat`` times, and its exit code."""
    walls, cpus, code = [], [], 0
    for _ in range(repeat):
        cpu0, start = _cpu_of_children(), time.perf_counter()
        code = subprocess.run([*ATTNCERT, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu_of_children() - cpu0)
    return statistics.median(walls), statistics.median(cpus), code


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--paper", help="only this paper's certificates")
    parser.add_argument("--full", action="store_true", help="also time --tier full --negative-controls")
    args = parser.parse_args()
    selection = ["--paper", args.paper] if args.paper else []
    print(f"{os.cpu_count()} cores; median of {args.repeat} runs")
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run.json"
        configs = [
            ["verify", *selection, "--jobs", "1"],
            ["verify", *selection, "--jobs", "2", "--json", str(run)],
        ]
        if args.full:
            configs += [
                ["verify", *selection, "--tier", "full", "--negative-controls", "--jobs", "1"],
                ["verify", *selection, "--tier", "full", "--negative-controls", "--jobs", "2"],
            ]
        configs += [
            ["report", "--from", str(run), "--out", str(Path(tmp) / "html"), "--no-figures"],
            ["report", "--from", str(run), "--out", str(Path(tmp) / "html-figures")],
        ]
        for argv in configs:
            wall, cpu, code = timed(argv, args.repeat)
            shown = " ".join(a if not a.startswith(tmp) else Path(a).name for a in argv)
            print(f"attncert {shown:70s} wall {wall:6.2f} s  cpu {cpu:6.2f} s  exit {code}")


if __name__ == "__main__":
    main()
