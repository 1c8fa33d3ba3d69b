"""Speed, accuracy and memory of the phase-transition engines (issue 5 targets).

Usage: python benchmarks/phase.py [--backend numpy] [--naive-seeds 1]

- Monte Carlo engine, full fig7 protocol (18 points x 5 seeds x 60,000 trials x 61 gammas):
  target <= 8 s on the 2-core machine.
- Quadrature engine, all 18 x 61 values of A: target <= 5 s, accurate to 1e-6 absolute
  (checked against a run at half the grid spacing).
- Peak memory: target <= 2 GB (peak RSS of this process).
- Speed-up against a straightforward implementation that draws each (d_k, T) point separately
  and recomputes a row logsumexp over all trials for every gamma (timed on --naive-seeds seeds
  and scaled to 5).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from attncert.solvers.backend import get_backend
from attncert.solvers.phase import FIG7, run_sweep
from attncert.solvers.score_model import ScoreModel
from attncert.solvers.score_quadrature import softmax_mass_quadrature


def naive_one_seed(seed: int) -> np.ndarray:
    """A(gamma) for one seed, the straightforward way: per point, per gamma, a full softmax."""
    out = np.zeros((len(FIG7.d_ks), len(FIG7.Ts), len(FIG7.gammas)))
    rng = np.random.default_rng(seed)
    for i, d_k in enumerate(FIG7.d_ks):
        for j, T in enumerate(FIG7.Ts):
            z = rng.standard_normal((FIG7.trials, T - 1))
            base = np.concatenate([np.sqrt(d_k) + 2.0 * z[:, :1], 2.0 * z[:, 1:]], axis=1)
            for g, gamma in enumerate(FIG7.gammas):
                s = gamma**2 * base
                top = s.max(axis=1, keepdims=True)
                lse = top[:, 0] + np.log(np.exp(s - top).sum(axis=1))
                out[i, j, g] = np.exp(s[:, 0] - lse).mean()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--naive-seeds", type=int, default=1)
    args = parser.parse_args()
    backend = get_backend(args.backend)
    model = ScoreModel()

    start = time.perf_counter()
    mc = run_sweep(FIG7, model, engine="mc", backend=backend, seed=0)
    t_mc = time.perf_counter() - start
    print(f"mc    fig7 full protocol: {t_mc:6.2f} s (target <= 8 s), backend {backend.name}")

    start = time.perf_counter()
    quad = softmax_mass_quadrature(model, d_ks=FIG7.d_ks, Ts=FIG7.Ts, gammas=FIG7.gammas)
    t_quad = time.perf_counter() - start
    finer = softmax_mass_quadrature(model, d_ks=FIG7.d_ks, Ts=FIG7.Ts, gammas=FIG7.gammas, spacing=0.05)
    err = float(np.abs(quad.values - finer.values).max())
    print(
        f"quad  fig7 18 x 61 values: {t_quad:6.2f} s (target <= 5 s); max |A(h) - A(h/2)| = {err:.1e} "
        f"(target <= 1e-6); built-in estimate {quad.error_estimate.max():.1e}"
    )

    n = FIG7.trials * FIG7.seeds
    z = np.abs(mc.curves.mean(axis=0) - quad.values) / np.sqrt(np.maximum(quad.values * (1 - quad.values), 1e-300) / n)
    print(
        f"agree max |mc - quad| = {np.abs(mc.curves.mean(axis=0) - quad.values).max():.2e}, "
        f"max in units of the binomial s.e. bound: {z.max():.2f}"
    )

    start = time.perf_counter()
    for s in range(args.naive_seeds):
        naive_one_seed(s)
    t_naive = (time.perf_counter() - start) * FIG7.seeds / args.naive_seeds
    print(f"naive fig7 (scaled to 5 seeds): {t_naive:6.1f} s; speed-up of the mc engine: {t_naive / t_mc:5.1f}x")

    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"memory: peak RSS of the whole benchmark {rss_mb:.0f} MB (target <= 2 GB)")


if __name__ == "__main__":
    main()
