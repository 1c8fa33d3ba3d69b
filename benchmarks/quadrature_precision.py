"""How far the quadrature's A lies from a long-double reference, up to a million tokens.

phi^m with m = T - 2 multiplies an error in q = 1 - phi by m, so A at T = 10^6 shows errors in q that the
step-doubling estimate cannot (both grids round alike). The reference keeps every step of the code but the q
table, which it takes by a plain z-trapezoid in 80-bit long double: the route of ``tests/test_phase.py``
(``ld_phi_complement_table``), whose values the million-token test pins. ``_padded_powers`` keeps q's dtype,
so phi^m and the sums after it run in long double too. Prints the largest |A - A_ref| per T:

    python benchmarks/quadrature_precision.py                  # 864 values: sigma_t 2.5 to 10^4, T 3 to 10^6
    python benchmarks/quadrature_precision.py --grid million   # 240 values at T = 10^6: sigma_t 0 to 20
"""

from __future__ import annotations

import argparse
import functools
import itertools
import sys
import time
from pathlib import Path

import numpy as np

from attncert.solvers import score_quadrature as sq
from attncert.solvers.score_model import VARIANTS, ScoreModel

# the tests' reference itself, not a copy of it
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_phase import ld_phi_complement_table

GRIDS = {
    # sigma_t, gammas, d_ks, Ts; every variant
    "wide": ((2.5, 20.0, 1000.0, 1e4), (0.002, 0.1, 0.5, 1.0, 1.5, 3.0), (1, 16, 1000), (3, 10, 200, 10**6)),
    "million": ((0.0, 1.0, 2.5, 10.0, 20.0), (0.5, 0.7, 0.9, 1.0, 1.1, 1.2, 1.5, 2.0), (16, 512), (10**6,)),
}


def largest_differences(grid: str, spacing: float) -> tuple[dict[int, tuple[float, tuple]], int]:
    """{T: (largest |A - A_ref|, (sigma_t, variant, gamma, d_k) where it occurs)} and the number of values."""
    sigma_ts, gammas, d_ks, Ts = GRIDS[grid]
    code_table = sq._phi_complement_table
    # the reference table depends on (s, h) only: compute each once
    reference_table = functools.lru_cache(maxsize=None)(functools.partial(ld_phi_complement_table, code_table=code_table))
    worst: dict[int, tuple[float, tuple]] = {T: (0.0, ()) for T in Ts}
    count = 0
    for sigma_t, variant, gamma in itertools.product(sigma_ts, VARIANTS, gammas):
        model = ScoreModel(sigma_t=sigma_t, variant=variant)
        ours = sq._observable(model, d_ks, Ts, [gamma], spacing)[:, :, 0]
        sq._phi_complement_table = reference_table
        try:
            reference = sq._observable(model, d_ks, Ts, [gamma], spacing)[:, :, 0]
        finally:
            sq._phi_complement_table = code_table
        gap = np.abs(ours - reference).astype(float)
        count += gap.size
        for (d_i, t_i), value in np.ndenumerate(gap):
            if value > worst[Ts[t_i]][0]:
                worst[Ts[t_i]] = (value, (sigma_t, variant, gamma, d_ks[d_i]))
    return worst, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grid", choices=sorted(GRIDS), default="wide", help="which grid of points (default: wide)")
    parser.add_argument("--spacing", type=float, default=0.1, help="the quadrature's grid spacing (default: 0.1)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    worst, count = largest_differences(args.grid, args.spacing)
    print(f"{count} values, grid {args.grid!r}, spacing {args.spacing}, {time.perf_counter() - start:.0f} s")
    for T, (value, where) in worst.items():
        print(f"T = {T:>9,}: max |A - A_ref| = {value:.1e} at (sigma_t, variant, gamma, d_k) = {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
