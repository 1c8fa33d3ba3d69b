"""Time `attncert verify` per paper and tier (with and without negative controls).

Usage: python benchmarks/verify.py [--paper psa] [--repeat 3]
Prints the best wall time of each configuration; record the numbers in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import time

from attncert.certificates.engine.model import Context, Tier
from attncert.certificates.engine.registry import select
from attncert.certificates.engine.runner import run_all


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--paper", default="psa")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ctx = Context()
    for tier in (Tier.QUICK, Tier.FULL):
        certs = select(paper=args.paper, tier=tier)
        for controls in (False, True):
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                results = run_all(certs, ctx, negative_controls=controls)
                best = min(best, time.perf_counter() - start)
            ok = all(r.ok for r in results)
            print(
                f"{args.paper:5s} tier={tier.value:5s} negative_controls={controls!s:5s} "
                f"certificates={len(certs):3d} best={best:6.2f}s all_as_expected={ok}"
            )


if __name__ == "__main__":
    main()
