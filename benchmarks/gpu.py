"""The prepared GPU check (issue 14): one command for a machine with a GPU; tests never need one.

Usage: python benchmarks/gpu.py [--scale 1.0] [--backends numpy,torch,cupy]

1. The randomized cross-checks: every quick-tier certificate run with its context on each
   backend (the numeric cross-checks of exact results draw their random instances there). On
   every backend every cross-check must pass and every verdict must be the one numpy reaches.
2. PSA Fig. 7 Monte Carlo (psa.md §3.4) at 10 x the paper's trials (5 seeds x 600,000 trials x
   61 gammas x 18 (d_k, T) points; ``--scale`` multiplies the trials): wall time and peak memory
   per backend (device memory for torch and cupy, the process's peak RSS for numpy). The draws
   come from one numpy stream per (seed, chunk) whatever the backend, so the curves must agree
   with numpy's to rounding (1e-9); each is also held against the quadrature of the same model
   (within 6 binomial standard errors, 1/sqrt(4 N) per value).

Backends that are not installed, or torch/cupy without a visible GPU, are skipped with a
message. Exit status 1 on any disagreement. On an H200 the whole run is meant to take well under
5 minutes; on a CPU-only machine try ``--scale 0.02``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import resource
import sys
import time

import numpy as np

from attncert.certificates.engine.model import Context, Tier, Verdict
from attncert.certificates.engine.registry import select
from attncert.certificates.engine.runner import Result, run_all
from attncert.solvers.backend import BACKENDS, Backend, BackendUnavailable, get_backend
from attncert.solvers.phase import FIG7, run_sweep
from attncert.solvers.score_model import ScoreModel
from attncert.solvers.score_quadrature import softmax_mass_quadrature

PAPER_TRIALS = FIG7.trials  # 60,000 per seed (psa.md §3.4)
CURVE_AGREEMENT = 1e-9  # same draws on every backend: only the order of float sums differs
MAX_STANDARD_ERRORS = 6.0


def usable_backends(names: list[str]) -> list[Backend]:
    found = []
    for name in names:
        try:
            backend = get_backend(name)
        except BackendUnavailable as exc:
            print(f"skip  {name}: {exc}")
            continue
        if backend.name == "torch" and backend.device == "cpu":
            print("note  torch: no CUDA device visible; running torch on the CPU")
        found.append(backend)
    return found


def _reset_peak(backend: Backend) -> None:
    if backend.name == "torch" and backend.device == "cuda":
        import torch

        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    elif backend.name == "cupy":
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()


def _peak_memory(backend: Backend) -> str:
    if backend.name == "torch" and backend.device == "cuda":
        import torch

        torch.cuda.synchronize()
        return f"{torch.cuda.max_memory_allocated() / 2**20:.0f} MiB peak device memory"
    if backend.name == "cupy":
        import cupy

        # the pool keeps every block it allocated, so what it holds after the run is its peak
        return f"{cupy.get_default_memory_pool().total_bytes() / 2**20:.0f} MiB device memory held by the pool"
    return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB peak RSS of the process (CPU)"


def cross_checks(backends: list[Backend]) -> bool:
    """Run the quick tier on every backend; True when all agree with numpy and all cross-checks pass."""
    certs = select(tier=Tier.QUICK)
    runs: dict[str, list[Result]] = {}
    ok = True
    for backend in backends:
        start = time.perf_counter()
        # jobs=1: worker processes would be forked from a process that holds a CUDA context
        runs[backend.name] = run_all(certs, Context(backend=backend.name), jobs=1)
        checked = [r.outcome.evidence.cross_check for r in runs[backend.name] if r.outcome.evidence.cross_check is not None]
        failed = [r.certificate.id for r in runs[backend.name] if (cc := r.outcome.evidence.cross_check) and not cc.passed]
        worst = max((cc.max_abs_error / cc.tolerance for cc in checked if cc.tolerance > 0), default=0.0)
        print(
            f"cross-checks {backend.name:5s} ({backend.device}): {len(certs)} certificates in "
            f"{time.perf_counter() - start:6.2f} s, {len(checked)} cross-checks, worst error/tolerance {worst:.2g}, "
            f"failed {failed or 'none'}"
        )
        ok &= not failed
    reference = runs.get("numpy")
    for name, results in runs.items():
        if reference is None or name == "numpy":
            continue
        differ = [
            f"{a.certificate.id}: numpy {a.verdict.value}, {name} {b.verdict.value}"
            for a, b in zip(reference, results, strict=True)
            if a.verdict is not b.verdict
        ]
        errors = sum(r.verdict is Verdict.ERROR for r in results)
        print(f"{'DISAGREE' if differ else 'agree'} {name} vs numpy: {len(differ)} verdicts differ ({errors} ERROR)")
        for line in differ:
            print(f"    {line}")
        ok &= not differ
    return ok


@dataclasses.dataclass(frozen=True)
class McRun:
    backend: str
    seconds: float
    memory: str
    mean_curve: np.ndarray
    gamma_c: np.ndarray


def fig7_monte_carlo(backends: list[Backend], trials: int) -> bool:
    protocol = dataclasses.replace(FIG7, trials=trials)
    model = ScoreModel()
    quad = softmax_mass_quadrature(model, d_ks=protocol.d_ks, Ts=protocol.Ts, gammas=protocol.gammas).values
    n = protocol.seeds * protocol.trials
    bound = MAX_STANDARD_ERRORS / math.sqrt(4 * n)
    runs: list[McRun] = []
    ok = True
    for backend in backends:
        _reset_peak(backend)
        start = time.perf_counter()
        sweep = run_sweep(protocol, model, engine="mc", backend=backend, seed=0)
        seconds = time.perf_counter() - start
        run = McRun(backend.name, seconds, _peak_memory(backend), sweep.curves.mean(axis=0), np.nanmean(sweep.gamma_c, axis=0))
        runs.append(run)
        gap = float(np.abs(run.mean_curve - quad).max())
        print(
            f"fig7 mc {backend.name:5s} ({backend.device}): {protocol.seeds} seeds x {trials:,} trials in {seconds:7.2f} s, "
            f"{run.memory}; max |mc - quad| = {gap:.2e} (bound {bound:.2e})"
        )
        ok &= gap <= bound
    for run in runs[1:]:
        gap = float(np.abs(run.mean_curve - runs[0].mean_curve).max())
        gamma_gap = float(np.nanmax(np.abs(run.gamma_c - runs[0].gamma_c)))
        verdict = "agree" if gap <= CURVE_AGREEMENT else "DISAGREE"
        print(
            f"{verdict} fig7 {run.backend} vs {runs[0].backend}: max |A diff| = {gap:.2e} (tolerance {CURVE_AGREEMENT:.0e}), "
            f"max |gamma_c diff| = {gamma_gap:.2e}; speed-up {runs[0].seconds / run.seconds:.1f}x"
        )
        ok &= gap <= CURVE_AGREEMENT
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the trials (1.0: 10 x the paper's)")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated (default: all three)")
    parser.add_argument("--no-cross-checks", action="store_true", help="only the fig7 Monte Carlo")
    args = parser.parse_args(argv)
    if not args.scale > 0:
        parser.error("--scale must be > 0")
    start = time.perf_counter()
    backends = usable_backends([b.strip() for b in args.backends.split(",") if b.strip()])
    if not backends:
        print("no usable backend")
        return 1
    ok = True
    if not args.no_cross_checks:
        ok &= cross_checks(backends)
    trials = max(1, round(10 * PAPER_TRIALS * args.scale))
    ok &= fig7_monte_carlo(backends, trials)
    print(f"{'OK' if ok else 'DISAGREEMENT'}: {time.perf_counter() - start:.1f} s in all")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
