"""How far ``solvers.grades.epsilon_max`` lies from the exact root, on random profiles with small weights.

eps_max is where Lambda(eps v) = 1 along v. Near there Lambda - 1 can be of the order of the profiles'
smallest weights, far below the rounding of 1, so the root is only as good as log Lambda's relative
precision. This draws profiles whose weights are log-uniform down to 1e-3, 1e-8, 1e-16 or 1e-25 (d = 2..6,
a direction with <v, alpha - tau> > 0), solves each in float64 and by 60-digit mpmath bisection, and prints
the worst relative error:

    python benchmarks/epsilon_max_precision.py --seed 0 --count 400
"""

from __future__ import annotations

import argparse
import math

import mpmath as mp
import numpy as np

from attncert.solvers import grades as gs


def exact_root(alpha: np.ndarray, tau: np.ndarray, v: np.ndarray, lam: float) -> mp.mpf:
    """eps with Lambda(eps v) = 1, by bisection at 60 digits to 1e-40 relative."""
    with mp.workdps(60):
        a, t = [mp.mpf(float(x)) for x in alpha], [mp.mpf(float(x)) for x in tau]
        log_lam = mp.log(lam)

        def log_gain(eps: mp.mpf) -> mp.mpf:
            g2 = [mp.exp(2 * eps * log_lam * float(vi)) for vi in v]
            return (
                mp.log(sum(ai / gi for ai, gi in zip(a, g2, strict=True)))
                + mp.log(sum(ti * gi for ti, gi in zip(t, g2, strict=True)))
                - mp.log(sum(a) * sum(t))
            )

        hi = mp.mpf(1)
        while log_gain(hi) < 0:
            hi *= 2
        lo = hi / 2
        while log_gain(lo) >= 0:
            lo /= 2
        while hi - lo > hi * mp.mpf(10) ** -40:
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if log_gain(mid) < 0 else (lo, mid)
        return (lo + hi) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    worst, solved = 0.0, 0
    for _ in range(args.count):
        d = int(rng.integers(2, 7))
        floor = float(rng.choice([1e-3, 1e-8, 1e-16, 1e-25]))
        alpha, tau = (np.exp(rng.uniform(math.log(floor), 0.0, d)) for _ in range(2))
        v = rng.normal(size=d)
        v = v if gs.first_order_certificate(alpha / alpha.sum(), tau / tau.sum(), v) > 0 else -v
        eps = gs.epsilon_max(alpha, tau, v, 2.0)
        if not 0 < eps < math.inf:
            continue
        worst = max(worst, float(abs(mp.mpf(eps) / exact_root(alpha, tau, v, 2.0) - 1)))
        solved += 1
    print(f"{solved} profiles (seed {args.seed}): worst relative error of epsilon_max against the 60-digit root {worst:.2e}")


if __name__ == "__main__":
    main()
