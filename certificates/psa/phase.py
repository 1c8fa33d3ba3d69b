"""The score-model phase transition against Monte Carlo: C7, C8 and the printed Fig. 7 / Fig. 8
statistics (psa.md §1.7, §2.1, §3.4). Full-protocol sweeps are cached per (protocol, model, seed)."""

from __future__ import annotations

import functools
import math
import threading

from attncert.certificates.engine.evidence import within
from attncert.certificates.engine.model import Context, Evidence, Method, Mutant, Provenance, Tier, Verdict
from attncert.certificates.engine.registry import certificate
from attncert.certificates.psa import claim
from attncert.solvers.backend import get_backend
from attncert.solvers.phase import (
    FIG7,
    PAPER_STATISTICS,
    TAXIS,
    Protocol,
    Statistics,
    Sweep,
    branch,
    pearson_r,
    run_sweep,
    summarise,
)
from attncert.solvers.score_model import ScoreModel, argmax_plateau_mc
from attncert.solvers.score_quadrature import plateau_quadrature

C7_CHECKPOINTS = ((16, 15), (32, 15), (16, 25), (64, 10))  # psa.md §2.1: the paper does not name its four
C8_QUICK = Protocol("c8-quick", d_ks=(32, 64, 128), Ts=(10, 15, 25), seeds=2, trials=10_000)
FRESH_SEED_OFFSET = 7_919  # C8 uses seeds disjoint from the CLI's default stream


_SWEEPS: dict[tuple, list] = {}  # (protocol, sigma_t, seed, backend) -> [lock, sweep or None]
_SWEEPS_LOCK = threading.Lock()


def _sweep(protocol: Protocol, sigma_t: float, seed: int, backend: str) -> Sweep:
    """The Monte Carlo sweep, computed once per process: the certificates of one protocol share it,
    and threads asking for the same sweep at once (a parallel run's ``prepare``) wait for one run."""
    with _SWEEPS_LOCK:
        entry = _SWEEPS.setdefault((protocol, sigma_t, seed, backend), [threading.Lock(), None])
    with entry[0]:
        if entry[1] is None:
            entry[1] = run_sweep(protocol, ScoreModel(sigma_t=sigma_t), engine="mc", backend=get_backend(backend), seed=seed)
        return entry[1]


def shared_sweep(protocol: Protocol, ctx: Context, *, sigma_t: float = 2.0) -> Sweep:
    """The Monte Carlo sweep of ``protocol`` the certificates of this module use (seeds disjoint
    from the CLI's default stream), cached per process; tests that need the same sweep share it."""
    return _sweep(protocol, sigma_t, _fresh(ctx), ctx.backend)


@functools.lru_cache(maxsize=16)
def _statistics(protocol: Protocol, sigma_t: float, seed: int, backend: str, c: float | None = None) -> Statistics:
    return summarise(_sweep(protocol, sigma_t, seed, backend), c=c)


def _prepare_fig7(ctx: Context, *, sigma_t: float = 2.0, **_: object) -> None:
    """``prepare`` of the Fig. 7 certificates: the fig7 sweep at their sigma_t."""
    _statistics(FIG7, sigma_t, _fresh(ctx), ctx.backend)


def _prepare_taxis(ctx: Context, **_: object) -> None:
    """``prepare`` of the Fig. 8 certificates: the fig7 sweep (for the grid-calibrated c) and the T-axis sweep."""
    _statistics(FIG7, 2.0, _fresh(ctx), ctx.backend)
    _sweep(TAXIS, 2.0, _fresh(ctx), ctx.backend)


def _fresh(ctx: Context) -> int:
    return ctx.seed + FRESH_SEED_OFFSET


@certificate(
    "psa.plateau_quadrature_matches_argmax_mc",
    claim=claim(
        "C7; Eq. 51",
        "the plateau p_inf(d_k, m) = int phi(z) Phi((sqrt(d_k) + sigma_t z)/2)^m dz equals direct argmax Monte Carlo "
        "(four checkpoints, largest discrepancy 9e-4; here 100,000 argmax trials each, tolerance 4 s.e.)",
        Provenance.DERIVED,
        "C7",
    ),
    method=Method.MONTE_CARLO,
    expected=Verdict.VERIFIED,
    params={"sigma_t_quadrature": 2.0},
    mutant=Mutant("quadrature with a deterministic target (sigma_t = 0)", {"sigma_t_quadrature": 0.0}),
    tags=("C7", "score-model"),
)
def plateau_vs_argmax(ctx: Context, *, sigma_t_quadrature) -> Evidence:
    backend = get_backend(ctx.backend)
    trials = 100_000  # the tolerance is in standard errors, so the check is scale-free
    rows, worst_z = [], 0.0
    for i, (d_k, T) in enumerate(C7_CHECKPOINTS):
        quad = plateau_quadrature(d_k, T, sigma_t_quadrature)
        mc = argmax_plateau_mc(backend, d_k=d_k, T=T, sigma_t=2.0, trials=trials, seed=_fresh(ctx) + i)
        se = math.sqrt(max(mc * (1 - mc), 1e-12) / trials)
        worst_z = max(worst_z, abs(quad - mc) / se)
        rows.append({"d_k": d_k, "T": T, "quadrature": quad, "argmax_mc": mc, "se": se})
    return within(
        worst_z,
        tolerance=4.0,
        what=f"max |quad - argmax MC| / s.e. over 4 checkpoints ({trials} trials each)",
        measured=[r["argmax_mc"] for r in rows],
        reference=[r["quadrature"] for r in rows],
        details={"rows": rows, "max_abs_difference": max(abs(r["quadrature"] - r["argmax_mc"]) for r in rows)},
    )


def _mean_field_fit(stats: Statistics, *, factor: float) -> tuple[float, float]:
    """(Pearson r, median relative error) of factor * mean-field gamma_c against the measured means."""
    import numpy as np

    mf = [pt for pt in stats.points if pt.branch == "mean-field"]
    pred = [factor * pt.mean_field for pt in mf]
    meas = [pt.gamma_c_mean for pt in mf]
    rel = [abs(p - m) / m for p, m in zip(pred, meas, strict=True)]
    return pearson_r(pred, meas), float(np.median(rel))


@certificate(
    "psa.mean_field_law_against_fresh_seed_mc",
    claim=claim(
        "C8; Thm 64 (3)",
        "the mean-field gamma_c law predicts the Monte Carlo gamma_c of G on the mean-field points with no fitted "
        "parameter (quick tier: 9 points x 2 seeds x 10,000 trials; tolerance r >= 0.98 and median relative "
        "error <= 5%). Measured, not proved: the identification of the score model's gamma_c (midpoint between "
        "chance and plateau) with the law is a Monte Carlo statement; what is proved is the annealed bound "
        "(psa.annealed_bound_on_target_mass) and the algebra of both branches",
        Provenance.DERIVED,
        "C8",
    ),
    method=Method.MONTE_CARLO,
    expected=Verdict.VERIFIED,
    params={"factor": 1.0},
    mutant=Mutant("gamma_c^2 with L in place of 2L (gamma_c / sqrt 2)", {"factor": 1 / math.sqrt(2)}),
    tags=("C8", "score-model"),
)
def mean_field_vs_mc(ctx: Context, *, factor) -> Evidence:
    stats = _statistics(C8_QUICK, 2.0, _fresh(ctx), ctx.backend)
    r, median = _mean_field_fit(stats, factor=factor)
    # one residual against both tolerances: how far the worse of the two is past its bound
    excess = max(0.98 - r, median - 0.05, 0.0)
    return within(
        excess,
        tolerance=0.0,
        what=f"r = {r:.4f} (>= 0.98), median rel. error = {median:.2%} (<= 5%)",
        measured={"pearson_r": r, "median_rel_error": median},
        reference={"pearson_r_min": 0.98, "median_rel_error_max": 0.05},
    )


def _printed_statistic(value: float, printed: float, tolerance: float, what: str) -> Evidence:
    diff = abs(value - printed) if math.isfinite(value) else math.inf
    ok = diff <= tolerance
    return Evidence(
        verdict=Verdict.REPRODUCED if ok else Verdict.MISMATCH,
        summary=f"{what}: {value:.4f} vs printed {printed} (|diff| {diff:.4f} {'<=' if ok else '>'} {tolerance})",
        measured=value,
        reference=printed,
        tolerance=tolerance,
        rounding=f"absolute tolerance {tolerance}",
    )


def _full_claim(label: str, statement: str, *keys: str):
    return claim(
        label, statement + " (full fig7/taxis protocol: 5 seeds x 60,000 trials x 61 gammas)", Provenance.VERBATIM, *keys
    )


@certificate(
    "psa.fig7_mean_field_pearson_r",
    claim=_full_claim("Fig. 7 (b)", "Pearson r = 0.9876 on the nine mean-field points (tolerance +-0.003)", "Fig. 7"),
    method=Method.MONTE_CARLO,
    expected=Verdict.REPRODUCED,
    params={"sigma_t": 2.0},
    mutant=Mutant("a deterministic target (sigma_t = 0)", {"sigma_t": 0.0}),
    tier=Tier.FULL,
    prepare=_prepare_fig7,
    tags=("C8", "fig7", "score-model"),
)
def fig7_pearson(ctx: Context, *, sigma_t) -> Evidence:
    stats = _statistics(FIG7, sigma_t, _fresh(ctx), ctx.backend)
    return _printed_statistic(stats.mf_pearson_r, PAPER_STATISTICS["mean_field_pearson_r"], 0.003, "mean-field r")


@certificate(
    "psa.fig7_mean_field_median_error",
    claim=_full_claim("Fig. 7 (b)", "median relative error 2.6% on the nine mean-field points (tolerance +-0.5 pp)", "Fig. 7"),
    method=Method.MONTE_CARLO,
    expected=Verdict.MISMATCH,
    params={"printed": PAPER_STATISTICS["mean_field_median_rel_error"]},
    mutant=Mutant("printed value 1.9%", {"printed": 0.019}),
    tier=Tier.FULL,
    prepare=_prepare_fig7,
    tags=("fig7", "score-model"),
)
def fig7_median(ctx: Context, *, printed) -> Evidence:
    stats = _statistics(FIG7, 2.0, _fresh(ctx), ctx.backend)
    return _printed_statistic(stats.mf_median_rel_error, printed, 0.005, "median relative error")


@certificate(
    "psa.fig7c_spearman_rho",
    claim=_full_claim("Fig. 7 (c)", "Spearman rho = 0.27 of the relative error against 8L/d_k (tolerance +-0.1)", "Fig. 7"),
    method=Method.MONTE_CARLO,
    expected=Verdict.MISMATCH,
    params={"printed": PAPER_STATISTICS["spearman_rho"]},
    mutant=Mutant("printed value 0.6", {"printed": 0.6}),
    tier=Tier.FULL,
    prepare=_prepare_fig7,
    tags=("fig7", "score-model"),
)
def fig7_spearman(ctx: Context, *, printed) -> Evidence:
    stats = _statistics(FIG7, 2.0, _fresh(ctx), ctx.backend)
    return _printed_statistic(stats.spearman_rho, printed, 0.1, "Spearman rho")


@certificate(
    "psa.fig7_condensed_branch_flat_in_dk",
    claim=_full_claim(
        "Fig. 7 (a); Thm 64 (4)",
        "the condensed-branch grid estimates are flat in d_k to +-2% (for each T, half the range of gamma_c over "
        "d_k in {4, 8, 16} is at most 2% of its mid-range)",
        "Fig. 7",
        "Thm 64 (4) condensed branch",
    ),
    method=Method.MONTE_CARLO,
    expected=Verdict.REPRODUCED,
    params={"sigma_t": 2.0},
    mutant=Mutant("a deterministic target (sigma_t = 0)", {"sigma_t": 0.0}),
    tier=Tier.FULL,
    prepare=_prepare_fig7,
    tags=("fig7", "score-model"),
)
def fig7_flat(ctx: Context, *, sigma_t) -> Evidence:
    stats = _statistics(FIG7, sigma_t, _fresh(ctx), ctx.backend)
    spreads = {}
    for T in FIG7.Ts:
        values = [pt.gamma_c_mean for pt in stats.points if pt.T == T and pt.branch == "condensed"]
        spreads[T] = (max(values) - min(values)) / (max(values) + min(values))
    worst = max(spreads.values())
    return Evidence(
        verdict=Verdict.REPRODUCED if worst <= 0.02 else Verdict.MISMATCH,
        summary=f"largest half-range / mid-range over T: {worst:.2%} ({'<=' if worst <= 0.02 else '>'} 2%)",
        measured=spreads,
        reference=0.02,
        tolerance=0.02,
        details={"c_hat": stats.c_hat, "c_hat_sd_over_mean": stats.c_hat_spread},
    )


@certificate(
    "psa.fig8_taxis_condensed_pearson_r",
    claim=_full_claim(
        "Fig. 8", "on-branch r = 0.9995 on the eight condensed T-axis points at d_k = 16 (tolerance +-0.003)", "Fig. 8"
    ),
    method=Method.MONTE_CARLO,
    expected=Verdict.REPRODUCED,
    params={"with_L": True},
    mutant=Mutant("a condensed branch without its (2L)^{1/4} factor (flat in T)", {"with_L": False}),
    tier=Tier.FULL,
    prepare=_prepare_taxis,
    tags=("fig8", "score-model"),
)
def fig8_pearson(ctx: Context, *, with_L) -> Evidence:
    stats = _statistics(TAXIS, 2.0, _fresh(ctx), ctx.backend)
    cond = [pt for pt in stats.points if branch(pt.d_k, pt.T) == "condensed"]
    pred = [pt.freezing if with_L else 1.0 for pt in cond]
    meas = [pt.gamma_c_mean for pt in cond]
    r = pearson_r(pred, meas) if len(set(pred)) > 1 else math.nan
    return _printed_statistic(r, PAPER_STATISTICS["taxis_pearson_r"], 0.003, "T-axis on-branch r")


@certificate(
    "psa.fig8_taxis_condensed_median_error",
    claim=_full_claim("Fig. 8", "on-branch median relative error 3.1% with the grid-calibrated c (tolerance +-0.5 pp)", "Fig. 8"),
    method=Method.MONTE_CARLO,
    expected=Verdict.REPRODUCED,
    params={"c_scale": 1.0},
    mutant=Mutant("c 5% below the grid calibration", {"c_scale": 0.95}),
    tier=Tier.FULL,
    prepare=_prepare_taxis,
    tags=("fig8", "score-model"),
)
def fig8_median(ctx: Context, *, c_scale) -> Evidence:
    c_grid = _statistics(FIG7, 2.0, _fresh(ctx), ctx.backend).c_hat
    stats = _statistics(TAXIS, 2.0, _fresh(ctx), ctx.backend, c=c_scale * c_grid)
    evidence = _printed_statistic(
        stats.condensed_median_rel_error,
        PAPER_STATISTICS["taxis_median_rel_error"],
        0.005,
        f"T-axis median error (c = {c_scale * c_grid:.4f})",
    )
    return evidence


def _theory_plateau(d_k: int, T: int, sigma_t: float) -> float:
    """p_inf = P(a_1 + sigma_t Z_0 > s max_j Z_j), m = T - 2, from the theory's target mean
    a_1 = a(gamma = 1) = sqrt(d_k) and distractor scale s (Eq. 51), by adaptive quadrature."""
    from scipy import integrate, special

    from attncert.theory import psa as th

    a1, s, m = float(th.target_mean(d_k, 1)), float(th.DISTRACTOR_SCALE), T - 2
    value, _ = integrate.quad(
        lambda z: math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi) * special.ndtr((a1 + sigma_t * z) / s) ** m,
        -12.0,
        12.0,
        epsabs=1e-12,
        limit=200,
    )
    return float(value)


QUICK_PLATEAU_POINTS = ((16, 15), (64, 10), (4, 25))  # (d_k, T): p_inf about 0.62, 0.98, 0.21 at sigma_t = 2
QUICK_SLOPE_POINT = (16, 15)
SMALL_GAMMA, TOP_GAMMA = 0.01, 8.0


@certificate(
    "psa.score_model_parameters_quick",
    claim=claim(
        "Thm 64 (1); Eq. 51 (score model G, quick tier)",
        "the score model's default G has target mean gamma^2 sqrt(d_k), distractor spread 2 gamma^2 and the documented "
        "target noise sigma_t = 2 (psa.md §1.7, §3.4): (i) near gamma = 0, (A(gamma) - 1/(T-1))/gamma^2 -> "
        "m sqrt(d_k)/(T-1)^2 (first-order expansion of the softmax); (ii) at the top of the Fig. 7 grid (gamma = 8) "
        "A equals the plateau p_inf(d_k, m) of Eq. 51 computed from the theory (quadrature); 20,000 seeded trials, "
        "tolerance 4 standard errors",
        Provenance.DERIVED,
        "Thm 64 (1)",
        "C7",
    ),
    method=Method.MONTE_CARLO,
    expected=Verdict.VERIFIED,
    params={"sigma_t_documented": 2.0},
    mutant=Mutant("documented target noise sigma_t = 3 (the Fig. 7 r would move to 0.977)", {"sigma_t_documented": 3.0}),
    tags=("score-model", "guard"),
)
def score_model_quick(ctx: Context, *, sigma_t_documented) -> Evidence:
    import numpy as np

    from attncert.solvers.score_model import chance, softmax_mass_mc
    from attncert.theory import psa as th

    backend = get_backend(ctx.backend)
    trials = 20_000
    d_ks = tuple(sorted({d for d, _ in QUICK_PLATEAU_POINTS}))
    Ts = tuple(sorted({T for _, T in QUICK_PLATEAU_POINTS}))
    masses = np.asarray(
        softmax_mass_mc(backend, ScoreModel(), d_ks=d_ks, Ts=Ts, gammas=(SMALL_GAMMA, TOP_GAMMA), trials=trials, seed=_fresh(ctx))
    )
    rows, worst = [], 0.0
    for d_k, T in QUICK_PLATEAU_POINTS:
        mc = float(masses[d_ks.index(d_k), Ts.index(T), 1])
        ref = _theory_plateau(d_k, T, sigma_t_documented)
        se = math.sqrt(max(ref * (1 - ref), 1e-6) / trials)
        worst = max(worst, abs(mc - ref) / se)
        rows.append({"observable": "plateau A(8)", "d_k": d_k, "T": T, "mc": mc, "theory": ref, "z": abs(mc - ref) / se})
    d_k, T = QUICK_SLOPE_POINT
    K, m = T - 1, T - 2
    slope_mc = (float(masses[d_ks.index(d_k), Ts.index(T), 0]) - chance(T)) / SMALL_GAMMA**2
    slope_ref = m * float(th.target_mean(d_k, 1)) / K**2
    # first-order term (s_0 - mean s)/K: its s.d. per trial, over gamma^2, from the documented model
    spread = float(th.DISTRACTOR_SCALE)
    slope_se = math.sqrt(((1 - 1 / K) * sigma_t_documented) ** 2 + spread**2 * m / K**2) / K / math.sqrt(trials)
    z_slope = abs(slope_mc - slope_ref) / slope_se
    rows.append({"observable": "(A - 1/(T-1))/gamma^2", "d_k": d_k, "T": T, "mc": slope_mc, "theory": slope_ref, "z": z_slope})
    worst = max(worst, z_slope)
    return within(
        worst,
        tolerance=4.0,
        what=f"largest |MC - theory| / s.e. over 3 plateaus and the small-gamma slope ({trials} trials, default ScoreModel)",
        measured=[r["mc"] for r in rows],
        reference=[r["theory"] for r in rows],
        details={"rows": rows, "sigma_t_default": ScoreModel().sigma_t, "sigma_t_documented": sigma_t_documented},
    )
