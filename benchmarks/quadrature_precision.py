"""How far the quadrature's A lies from a long-double reference, up to a million tokens.

phi^m with m = T - 2 multiplies an error in q = 1 - phi by m, so A at T = 10^6 shows errors in q that the
step-doubling estimate cannot (both grids round alike). The reference keeps every step of the code but the q
table, which it takes by a plain z-trapezoid in 80-bit long double: the route of ``tests/test_phase.py``
(``ld_phi_complement_table``), whose values the million-token test pins. ``_padded_powers`` keeps q's dtype,
so phi^m and the sums after it run in long double too. Prints the largest |A - A_ref| per T:

    python benchmarks/quadrature_precision.py                  # 864 values: sigma_t 2.5 to 10^4, T 3 to 10^6
    python benchmarks/quadrature_precision.py --grid million   # 240 values at T = 10^6: sigma_t 0 to 20

The long-double route shares the code's y-grid, so it cannot see what lies below the table. ``--grid lower-end``
takes the tests' direct route instead (``direct_one_minus_a``: 1 - A by scipy's quad, no table, sigma_t = 0) at
T = 10^6 where the t-window meets the phi table's lower end, and prints the largest |(1 - A) - (1 - A)_ref|.
``--grid swapped`` takes the tests' ``swapped_order_a`` (the average over the target score taken first,
Gauss-Legendre panels, no grid in common with the code) for sigma_t > 0, distractor s.d. up to 528, on both
outer routes, and prints the largest |A - A_ref| per route and T.
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
from test_phase import direct_one_minus_a, ld_phi_complement_table, swapped_order_a

GRIDS = {
    # sigma_t, gammas, d_ks, Ts; every variant
    "wide": ((2.5, 20.0, 1000.0, 1e4), (0.002, 0.1, 0.5, 1.0, 1.5, 3.0), (1, 16, 1000), (3, 10, 200, 10**6)),
    "million": ((0.0, 1.0, 2.5, 10.0, 20.0), (0.5, 0.7, 0.9, 1.0, 1.1, 1.2, 1.5, 2.0), (16, 512), (10**6,)),
}
# (variant, gamma, d_k) at sigma_t = 0 whose t-window (y = w - a, w in [-40, 4.5], a the target score) lies at or
# just below -9s - 45, where the table ended before set 136: t4 at s = 128 and 512, key-only at s = 0.07 to 0.28
LOWER_END = [("t4", 8.0, d_k) for d_k in (360, 400, 512)] + [("t4", 16.0, d_k) for d_k in (300, 338, 345, 360, 512)]
LOWER_END += [("key-only", 0.05, 10**6), ("key-only", 0.1, 220_900), ("key-only", 0.1, 250_000), ("key-only", 0.2, 60_000)]


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


def lower_end_differences(spacing: float) -> tuple[float, tuple]:
    """The largest |(1 - A) - (1 - A)_ref| at T = 10^6 over LOWER_END, and the point where it occurs."""
    worst: tuple[float, tuple] = (0.0, ())
    for variant, gamma, d_k in LOWER_END:
        model = ScoreModel(sigma_t=0.0, variant=variant)
        values = sq.softmax_mass_quadrature(model, d_ks=[d_k], Ts=[10**6], gammas=[gamma], spacing=spacing).values
        ours = 1 - values[0, 0, 0]
        gap = abs(ours - direct_one_minus_a(model, gamma, d_k, 10**6))
        if gap > worst[0]:
            worst = (gap, (variant, gamma, d_k))
    return worst


# sigma_t, gammas, d_ks, Ts for --grid swapped (every variant): gamma 16 puts s at 512 (t4) and 528 (t3t4)
SWAPPED = ((0.5, 2.0, 2.5, 20.0, 1000.0), (0.3, 1.0, 3.0, 8.0, 16.0), (1, 16, 338), (3, 200, 10**6))


def swapped_differences(spacing: float) -> tuple[dict[tuple[str, int], tuple[float, tuple]], int, int]:
    """{(route, T): (largest |A - A_ref|, (sigma_t, variant, gamma, d_k, A_ref, error estimate))} against
    ``swapped_order_a``, the number of values, and how many lie farther from A_ref than both the printed error
    estimate and the tests' rounding allowance 2e-16 + 5e-16 A_ref. route is "Z_0" or "target score"."""
    sigma_ts, gammas, d_ks, Ts = SWAPPED
    worst: dict[tuple[str, int], tuple[float, tuple]] = {}
    count = beyond = 0
    for sigma_t, variant, gamma in itertools.product(sigma_ts, VARIANTS, gammas):
        model = ScoreModel(sigma_t=sigma_t, variant=variant)
        s = model.distractor_sd(gamma)
        route = "target score" if sigma_t * s / 2 > max(1.0, s) else "Z_0"
        ours = sq.softmax_mass_quadrature(model, d_ks=d_ks, Ts=Ts, gammas=[gamma], spacing=spacing)
        reference = swapped_order_a(model, gamma, d_ks, Ts)
        gap, estimate = np.abs(ours.values[:, :, 0] - reference), ours.error_estimate[:, :, 0]
        count += gap.size
        beyond += int(np.sum(gap > np.maximum(estimate, 2e-16 + 5e-16 * reference)))
        for (d_i, t_i), value in np.ndenumerate(gap):
            key = (route, Ts[t_i])
            if value >= worst.get(key, (-1.0, ()))[0]:
                where = (sigma_t, variant, gamma, d_ks[d_i], float(reference[d_i, t_i]), float(estimate[d_i, t_i]))
                worst[key] = (value, where)
    return dict(sorted(worst.items())), count, beyond


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    grids = [*sorted(GRIDS), "lower-end", "swapped"]
    parser.add_argument("--grid", choices=grids, default="wide", help="which grid of points (default: wide)")
    parser.add_argument("--spacing", type=float, default=0.1, help="the quadrature's grid spacing (default: 0.1)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.grid == "lower-end":
        value, where = lower_end_differences(args.spacing)
        print(f"{len(LOWER_END)} values at T = 10^6, sigma_t = 0, spacing {args.spacing}, {time.perf_counter() - start:.0f} s")
        print(f"max |(1 - A) - (1 - A)_ref| = {value:.1e} at (variant, gamma, d_k) = {where}")
        return 0
    if args.grid == "swapped":
        found, count, beyond = swapped_differences(args.spacing)
        print(f"{count} values, grid 'swapped', spacing {args.spacing}, {time.perf_counter() - start:.0f} s")
        for (route, T), (value, where) in found.items():
            place = f"(sigma_t, variant, gamma, d_k) = {where[:4]}, A_ref {where[4]:.4g}, estimate {where[5]:.1e}"
            print(f"{route:>12}, T = {T:>9,}: max |A - A_ref| = {value:.1e} at {place}")
        print(f"{beyond} values farther from A_ref than both their error estimate and 2e-16 + 5e-16 A_ref")
        return 0
    worst, count = largest_differences(args.grid, args.spacing)
    print(f"{count} values, grid {args.grid!r}, spacing {args.spacing}, {time.perf_counter() - start:.0f} s")
    for T, (value, where) in worst.items():
        print(f"T = {T:>9,}: max |A - A_ref| = {value:.1e} at (sigma_t, variant, gamma, d_k) = {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
