"""Phase-transition protocols of PSA Fig. 7 / Fig. 8: gamma_c extraction, the two-branch law,
sweeps over (d_k, T, seed) and the summary statistics (psa.md §3.4)."""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from attncert.solvers.backend import Backend
from attncert.solvers.score_model import ScoreModel, chance, chunk_count, replicate_bytes, softmax_mass_mc
from attncert.solvers.score_quadrature import softmax_mass_quadrature
from attncert.solvers.score_quadrature import work_and_memory as quadrature_work_and_memory

#: condensation constant c-hat of the fig7 grid at sigma_t = 2 (psa.md §3.4 reference value, [D])
C_HAT_REFERENCE = 0.7242
#: the paper's printed statistics (Fig. 7 (b), (c) and Fig. 8)
PAPER_STATISTICS = {
    "mean_field_pearson_r": 0.9876,
    "mean_field_median_rel_error": 0.026,
    "spearman_rho": 0.27,
    "spearman_p": 0.49,
    "condensation_spread": 0.02,
    "taxis_pearson_r": 0.9995,
    "taxis_median_rel_error": 0.031,
}


@dataclass(frozen=True)
class Protocol:
    """A named sweep grid (d_k, T, gamma) with its seed and trial counts (psa.md §3.4)."""

    name: str
    d_ks: tuple[int, ...]
    Ts: tuple[int, ...]
    gammas: tuple[float, ...] = tuple(np.linspace(0.0, 8.0, 61))
    seeds: int = 5
    trials: int = 60_000

    def __post_init__(self) -> None:
        problems = []
        if not self.d_ks or min(self.d_ks) < 1:
            problems.append("d_k values must be integers >= 1")
        if not self.Ts or min(self.Ts) < 3:
            problems.append("T values must be integers >= 3")
        if len(self.gammas) < 2 or any(not math.isfinite(g) or g < 0 for g in self.gammas):
            problems.append("the gamma grid needs at least 2 finite values >= 0")
        elif list(self.gammas) != sorted(self.gammas) or self.gammas[0] != 0.0:
            problems.append("the gamma grid must increase and start at 0 (chance)")
        if self.seeds < 1:
            problems.append("seeds must be >= 1")
        if self.trials < 1:
            problems.append("trials must be >= 1")
        if problems:
            raise ValueError("; ".join(problems))


FIG7 = Protocol("fig7", d_ks=(4, 8, 16, 32, 64, 128), Ts=(10, 15, 25))
TAXIS = Protocol("taxis", d_ks=(16,), Ts=(6, 8, 9, 10, 12, 15, 20, 25, 30, 40))
PROTOCOLS = {"fig7": FIG7, "taxis": TAXIS}


# --- extraction ------------------------------------------------------------------------------
def extract_gamma_c(gammas: Sequence[float], curve: Sequence[float], *, chance_level: float) -> float:
    """gamma_c at the midpoint between chance and the plateau (the curve's last value): the first
    up-crossing of the threshold, by linear interpolation on the grid. NaN if it never crosses."""
    g = np.asarray(gammas, dtype=float)
    a = np.asarray(curve, dtype=float)
    if g.shape != a.shape or g.size < 2:
        raise ValueError("gammas and curve must have the same length >= 2")
    threshold = 0.5 * (chance_level + a[-1])
    above = a >= threshold
    if a[0] >= threshold or not above.any():
        return math.nan
    k = int(np.argmax(above))  # first index at or above the threshold
    g0, g1, a0, a1 = g[k - 1], g[k], a[k - 1], a[k]
    return float(g0 + (threshold - a0) * (g1 - g0) / (a1 - a0))


# --- the two-branch law (Thm 64), in floats ---------------------------------------------------
def log_competitors(T: int) -> float:
    """L = ln(T - 1), the log of the number of distractors."""
    return math.log(T - 1)


def mean_field_gamma_c(d_k: float, T: int) -> float:
    """gamma_c = sqrt(2L/(sqrt(d_k) + sqrt(d_k - 8L))) on d_k >= 8L; NaN below the crossover."""
    L = log_competitors(T)
    if d_k < 8 * L:
        return math.nan
    return math.sqrt(2 * L / (math.sqrt(d_k) + math.sqrt(d_k - 8 * L)))


def freezing_point(T: int) -> float:
    """The REM freezing point (2L)^{1/4} / sqrt(2); the condensed branch is gamma_c = c times it (Eq. 52)."""
    return (2 * log_competitors(T)) ** 0.25 / math.sqrt(2)


def branch(d_k: float, T: int) -> str:
    """The branch of the law at (d_k, T): mean-field when d_k >= 8L, else condensed (Thm 64's crossover)."""
    return "mean-field" if d_k >= 8 * log_competitors(T) else "condensed"


def predicted_gamma_c(d_k: float, T: int, c: float) -> float:
    """The two-branch law: the mean-field root on d_k >= 8L, c (2L)^{1/4} / sqrt(2) below it."""
    return mean_field_gamma_c(d_k, T) if branch(d_k, T) == "mean-field" else c * freezing_point(T)


# --- sweeps -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sweep:
    """A(gamma) per seed, shape (seeds, len(d_ks), len(Ts), len(gammas)), and gamma_c per seed."""

    protocol: Protocol
    engine: str
    curves: np.ndarray
    gamma_c: np.ndarray  # (seeds, len(d_ks), len(Ts))
    error_estimate: np.ndarray | None = None  # quadrature only
    meta: dict = field(default_factory=dict)


def seed_for(base_seed: int, index: int) -> int:
    """The seed of replicate ``index``: derived per task, never per worker."""
    return int(np.random.SeedSequence([base_seed, index]).generate_state(1)[0])


def _gamma_c_table(protocol: Protocol, curves: np.ndarray) -> np.ndarray:
    out = np.full(curves.shape[:-1], math.nan)
    for idx in np.ndindex(*curves.shape[:-1]):
        T = protocol.Ts[idx[-1]]
        out[idx] = extract_gamma_c(protocol.gammas, curves[idx], chance_level=chance(T))
    return out


@dataclass(frozen=True)
class _Replicate:
    """One Monte Carlo replicate as a picklable task (for process or cluster executors).

    ``on_chunk`` (local threads only; None for a cluster, where it could not be pickled) is
    called after every gamma of every chunk of trials: progress, and cancellation by raising."""

    backend: str
    model: ScoreModel
    d_ks: tuple[int, ...]
    Ts: tuple[int, ...]
    gammas: tuple[float, ...]
    trials: int
    on_chunk: Callable[[], None] | None = None

    def __call__(self, seed: int) -> np.ndarray:
        from attncert.solvers.backend import get_backend

        return softmax_mass_mc(
            get_backend(self.backend),
            self.model,
            d_ks=self.d_ks,
            Ts=self.Ts,
            gammas=self.gammas,
            trials=self.trials,
            seed=seed,
            on_chunk=self.on_chunk,
        )


class Cancelled(Exception):
    """Raised inside a replicate when the sweep was cancelled (Ctrl-C)."""


@dataclass(frozen=True)
class Estimate:
    """Work and peak memory of a sweep, known before it starts (issue 12).

    ``work``: elementary evaluations (Monte Carlo: one per trial, gamma and distractor or target
    point; quadrature: one per table entry and convolution term); ``replicate_bytes``: the
    working memory of one replicate (Monte Carlo) or of the quadrature; ``fixed_bytes``: the
    result arrays."""

    work: float
    replicate_bytes: int
    fixed_bytes: int

    def peak_bytes(self, workers: int) -> int:
        return workers * self.replicate_bytes + self.fixed_bytes


def estimate(protocol: Protocol, model: ScoreModel, engine: str) -> Estimate:
    """The work and memory of ``run_sweep(protocol, model, engine=engine)`` before running it."""
    points = len(protocol.d_ks) * len(protocol.Ts) * len(protocol.gammas)
    if engine == "quad":
        work, memory = quadrature_work_and_memory(model, protocol.d_ks, protocol.Ts, protocol.gammas)
        return Estimate(work, memory, 8 * 3 * points)
    width = max(protocol.Ts) - 1
    per_trial = len(protocol.gammas) * (8 * width + len(protocol.d_ks) * len(protocol.Ts) * 3)
    return Estimate(
        float(protocol.seeds) * protocol.trials * per_trial,
        replicate_bytes(protocol.trials, protocol.Ts) + 8 * points,
        8 * 2 * protocol.seeds * points,
    )


def run_sweep(
    protocol: Protocol,
    model: ScoreModel,
    *,
    engine: str,
    backend: Backend,
    seed: int,
    executor=None,
    progress=None,
) -> Sweep:
    """Run ``protocol`` with the Monte Carlo (``mc``) or quadrature (``quad``) engine.

    Monte Carlo replicates are tasks of ``executor`` (default: local threads; numpy releases the
    GIL in its kernels). ``progress(done, total)`` is called as work finishes: per gamma and
    chunk of trials on local threads, per replicate on a cluster, per gamma (two passes) for quadrature.
    An exception raised by ``progress`` (e.g. KeyboardInterrupt) stops the local threads at their
    next chunk and propagates.
    """
    if engine == "quad":
        total, done = 2 * len(protocol.gammas), [0]

        def on_gamma() -> None:
            done[0] += 1
            if progress:
                progress(done[0], total)

        result = softmax_mass_quadrature(model, d_ks=protocol.d_ks, Ts=protocol.Ts, gammas=protocol.gammas, on_gamma=on_gamma)
        curves = result.values[None]
        return Sweep(protocol, "quad", curves, _gamma_c_table(protocol, curves), result.error_estimate)
    if engine != "mc":
        raise ValueError(f"engine must be 'mc' or 'quad', not {engine!r}")
    from attncert.solvers.sweep import LocalExecutor

    seeds = [seed_for(seed, i) for i in range(protocol.seeds)]
    if executor is None:
        # numpy's kernels release the GIL, so threads use every core; torch and cupy parallelise each
        # call themselves (intra-op threads, or the GPU), where more threads would only contend
        executor = LocalExecutor(1 if backend.name != "numpy" else None)
    task = _Replicate(backend.name, model, protocol.d_ks, protocol.Ts, protocol.gammas, protocol.trials)
    if isinstance(executor, LocalExecutor):
        stop, lock = threading.Event(), threading.Lock()
        total, done = len(seeds) * chunk_count(protocol.trials) * len(protocol.gammas), [0]

        def on_chunk() -> None:
            if stop.is_set():
                raise Cancelled
            with lock:
                done[0] += 1
                count = done[0]
            if progress:
                progress(count, total)

        results = executor.map(replace(task, on_chunk=on_chunk), seeds, on_abort=stop.set)
    else:
        results = executor.map(task, seeds, on_done=(lambda done: progress(done, len(seeds))) if progress else None)
    curves = np.stack(results)
    return Sweep(protocol, "mc", curves, _gamma_c_table(protocol, curves), meta={"seeds": seeds})


# --- statistics ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PointSummary:
    """gamma_c at one (d_k, T): the seeds' mean and s.d., both branch predictions and the error."""

    d_k: int
    T: int
    branch: str
    gamma_c_mean: float
    gamma_c_sd: float
    mean_field: float
    freezing: float
    rel_error: float  # |pred - meas| / meas against the branch prediction (c for the condensed one)
    proximity: float  # 8L / d_k


@dataclass(frozen=True)
class Statistics:
    """The sweep's summary: per-point results, the fitted condensation constant c and the fit statistics."""

    points: list[PointSummary]
    c_hat: float  # mean of the per-point condensation estimates that are finite (NaN if none is)
    c_hat_spread: float  # s.d. / mean of the per-point condensation estimates
    c_hat_points: int  # how many condensed points c_hat averages: a point whose curves never cross has no estimate
    mf_pearson_r: float
    mf_median_rel_error: float
    spearman_rho: float
    spearman_p: float
    condensed_pearson_r: float
    condensed_median_rel_error: float


def pearson_r(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's correlation coefficient of two paired samples (NaN when one is constant or has
    fewer than two values; ValueError when they are not two 1-D samples of the same length).

    Computed here rather than with ``scipy.stats``, whose import (about 0.6 s) would be most of
    the time of a summary; tests check both functions against ``scipy.stats`` on random samples."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or a.size != b.size:
        # unpaired samples used to give NaN (a length-1 y) or numpy's matmul message
        raise ValueError(f"pearson_r needs two 1-D samples of the same length, got shapes {a.shape} and {b.shape}")
    if a.size == 0 or np.all(a == a[0]) or np.all(b == b[0]):  # one value is a constant sample
        return math.nan
    a, b = a - a.mean(), b - b.mean()
    a, b = a / np.max(np.abs(a)), b / np.max(np.abs(b))  # scaled, so tiny or huge samples cannot underflow
    return float(np.clip(float(a @ b) / math.sqrt(float(a @ a) * float(b @ b)), -1.0, 1.0))


def _ranks(x: Sequence[float]) -> np.ndarray:
    """Ranks 1..n of ``x``, ties given their average rank (``scipy.stats.rankdata``'s default)."""
    values = np.asarray(x, dtype=float)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    # runs of equal values in sorted order, vectorised: a hand-written scan whose step went wrong
    # looped for ever. Run r covers the sorted positions bounds[r] .. bounds[r + 1] - 1
    new_run = np.ones(values.size, dtype=bool)
    new_run[1:] = ordered[1:] != ordered[:-1]
    run = np.cumsum(new_run) - 1
    bounds = np.append(np.flatnonzero(new_run), values.size)
    ranks = np.empty(values.size)
    ranks[order] = (bounds[run] + bounds[run + 1] - 1) / 2 + 1  # the mean of the 1-based positions of the run
    return ranks


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman's rank correlation and its two-sided p-value from Student's t with n - 2 degrees of
    freedom, t = rho sqrt((n - 2) / (1 - rho^2)) (as ``scipy.stats.spearmanr``)."""
    from scipy import special  # light: already imported by the quadrature engine

    rho = pearson_r(_ranks(x), _ranks(y))
    dof = len(x) - 2
    if math.isnan(rho) or dof < 1:
        return rho, math.nan
    if abs(rho) >= 1.0:
        return rho, 0.0
    t = rho * math.sqrt(dof / (1 - rho * rho))
    return rho, float(2 * special.stdtr(dof, -abs(t)))


def summarise(sweep: Sweep, *, c: float | None = None) -> Statistics:
    """Per-point means and s.d.s over seeds and the Fig. 7/8 statistics.

    ``c`` is the condensation constant used for condensed-branch predictions; by default the
    one calibrated on this sweep's condensed points (c-hat, over those with a finite gamma_c), or
    C_HAT_REFERENCE if none has one.
    """
    p = sweep.protocol
    with warnings.catch_warnings():  # a point whose curves never cross has an all-NaN slice
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(sweep.gamma_c, axis=0)  # one seed: its own values, an all-NaN point NaN
        sd = np.nanstd(sweep.gamma_c, axis=0, ddof=1) if sweep.gamma_c.shape[0] > 1 else np.zeros_like(mean)
    # a condensed point whose curves never cross (gamma_c NaN) has no estimate of c: averaging it in made
    # c-hat NaN, and the run then fell back to the reference value without saying so
    ratios = [
        mean[i, j] / freezing_point(T)
        for i, d in enumerate(p.d_ks)
        for j, T in enumerate(p.Ts)
        if branch(d, T) == "condensed" and math.isfinite(mean[i, j])
    ]
    c_hat = float(np.mean(ratios)) if ratios else math.nan
    spread = float(np.std(ratios, ddof=1) / np.mean(ratios)) if len(ratios) > 1 else math.nan
    c_used = c if c is not None else (c_hat if ratios else C_HAT_REFERENCE)
    points = []
    for i, d in enumerate(p.d_ks):
        for j, T in enumerate(p.Ts):
            pred = predicted_gamma_c(d, T, c_used)
            points.append(
                PointSummary(
                    d_k=d,
                    T=T,
                    branch=branch(d, T),
                    gamma_c_mean=float(mean[i, j]),
                    gamma_c_sd=float(sd[i, j]),
                    mean_field=mean_field_gamma_c(d, T),
                    freezing=freezing_point(T),
                    rel_error=abs(pred - mean[i, j]) / mean[i, j],
                    proximity=8 * log_competitors(T) / d,
                )
            )
    mf = [pt for pt in points if pt.branch == "mean-field"]
    cond = [pt for pt in points if pt.branch == "condensed"]

    def pearson(pts: list[PointSummary], predict) -> float:
        if len(pts) < 3:
            return math.nan
        return pearson_r([predict(pt) for pt in pts], [pt.gamma_c_mean for pt in pts])

    if len(mf) >= 3:
        rho, pval = spearman_rho([pt.rel_error for pt in mf], [pt.proximity for pt in mf])
    else:
        rho, pval = math.nan, math.nan
    return Statistics(
        points=points,
        c_hat=c_hat,
        c_hat_spread=spread,
        c_hat_points=len(ratios),
        mf_pearson_r=pearson(mf, lambda pt: pt.mean_field),
        mf_median_rel_error=float(np.median([pt.rel_error for pt in mf])) if mf else math.nan,
        spearman_rho=float(rho),
        spearman_p=float(pval),
        condensed_pearson_r=pearson(cond, lambda pt: c_used * pt.freezing),
        condensed_median_rel_error=float(np.median([pt.rel_error for pt in cond])) if cond else math.nan,
    )
