"""`attncert grades`: solve the clipped grade-selection program of a profile file and certify
candidate gradings (gllm.md §1.7-§1.10, §4.3 outputs, E1, E4, E7, E8, E17).

Everything is computed from the profiles' logarithms (scale-safe), every reported optimum is
Lambda recomputed at the grading reported with it, and the cross-checks solve the same problem
as the exact solver (same zero policy, no renormalisation)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from attncert.certificates.frontends.profiles import Candidate, ProfileError, Profiles
from attncert.solvers import grades as gs


@dataclass(frozen=True)
class CandidateReport:
    name: str
    certificate: float  # <q, alpha - tau>
    gain_value: float  # the exact Lambda(q) (inf only when it exceeds the double range; see log_gain_value)
    in_admissible_cone: bool  # Lambda(q) < 1
    in_clip_box: bool  # 0 <= q <= q_max as given
    epsilon_max: float | None  # None when it lies outside the double range
    bootstrap_sign_fraction: float | None
    warning: str | None
    log_gain_value: float = 0.0  # ln Lambda(q), always finite


@dataclass(frozen=True)
class GradeReport:
    profiles: Profiles
    bc: float
    optimum: gs.ClippedSolution
    bound: float | None  # max{BC^2, C^-2} (Prop 10 iii), in the modes with a clip box; None otherwise
    q: np.ndarray  # the solved grades q (q*_C in mode clipped) on the solve's coordinates
    level_summary: list[tuple[str, float, float]] | None  # (level, mean g, mean q) for coordinate solves
    level_aggregate_bc: float | None  # BC(a, s) >= BC(alpha, tau): conservative
    candidates: list[CandidateReport]
    cross_checks: dict[str, float] = field(default_factory=dict)
    kkt: gs.KKTResiduals | None = None
    notes: list[str] = field(default_factory=list)


def _logs(p: Profiles) -> tuple[np.ndarray, np.ndarray]:
    if p.log_alpha is not None and p.log_tau is not None:
        return p.log_alpha, p.log_tau
    return gs.log_profiles(p.alpha, p.tau)


def _candidate_grades(c: Candidate, p: Profiles, log_lam: float) -> np.ndarray:
    vec = c.q if c.q is not None else np.log(c.g) / log_lam
    if c.granularity == "level" and p.granularity == "coordinate":
        if p.level_of is None:
            raise ProfileError(f"{p.source}: candidate {c.name!r} is per level but the profile has no levels")
        vec = vec[p.level_of]
    return np.asarray(vec, dtype=float)


def certify_candidate(c: Candidate, p: Profiles, q_max: float) -> CandidateReport:
    """The §4.3 candidate outputs, in the log domain: huge or tiny grades give exact finite values
    or a ProfileError naming the candidate."""
    log_lam = p.selection.log_lambda
    q = _candidate_grades(c, p, log_lam)
    with np.errstate(over="ignore", invalid="ignore"):
        log_g = q * log_lam
    if not np.all(np.isfinite(log_g)) or not np.all(np.isfinite(q)):
        raise ProfileError(f"{p.source}: candidate {c.name!r}: q ln(lambda) exceeds the double range")
    la, lt = _logs(p)
    log_value = gs.log_gain(la, lt, log_g)
    with np.errstate(over="ignore"):
        value = float(np.exp(log_value))
    # on the simplex, centred and scaled (exactly 0 for a uniform grading, no overflow)
    cert = float(gs.first_order_certificate(p.alpha, p.tau, q))
    if not math.isfinite(cert):
        raise ProfileError(f"{p.source}: candidate {c.name!r}: <q, alpha - tau> exceeds the double range")
    fraction = None
    if p.bootstrap_alpha is not None and p.bootstrap_alpha.shape[1] == q.size:
        signs = np.sign(gs.first_order_certificate(p.bootstrap_alpha, p.bootstrap_tau, q))
        fraction = float(np.mean(signs == np.sign(cert)))
    warning = None
    if cert > 0 and log_value >= -1e-12:
        warning = (
            f"first-order certificate {cert:.3g} > 0 but Lambda(q) = {_fmt_value(value, log_value)} >= 1: "
            "the direction enters Q+, this grading does not (gllm.md E1)"
        )
    try:
        eps = gs.epsilon_max(p.alpha, p.tau, q, math.e, log_lam=log_lam)
    except ValueError:
        eps = None
        warning = (warning + "; " if warning else "") + "eps_max lies outside the double range"
    return CandidateReport(
        name=c.name,
        certificate=cert,
        gain_value=value,
        # Q+ = {Lambda < 1}; the uniform grading has Lambda = 1 exactly, so allow for float rounding
        in_admissible_cone=log_value < -1e-12,
        in_clip_box=bool(np.all(q >= -1e-12) and np.all(q <= q_max * (1 + 1e-12) + 1e-9)),
        epsilon_max=eps,
        bootstrap_sign_fraction=fraction,
        warning=warning,
        log_gain_value=log_value,
    )


def _fmt_value(value: float, log_value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else f"e^{log_value:.6g}"


def _log_value(sol: gs.ClippedSolution) -> float:
    return sol.log_value if sol.log_value is not None else math.log(sol.value)


def _cross_checks(la: np.ndarray, lt: np.ndarray, optimum: gs.ClippedSolution, clip: float, notes: list[str]) -> dict[str, float]:
    """Relative gaps of L-BFGS-B and cvxpy (same problem: same zeros, no renormalisation);
    solver failures and third-party warnings become notes, never output of their own."""
    solvers = ([gs.solve_lbfgsb] if la.size <= 20_000 else []) + ([gs.solve_cvxpy] if la.size <= 2000 else [])
    if la.size > 2000:
        notes.append("cvxpy cross-check skipped above 2,000 coordinates (it takes minutes there)")
    if la.size > 20_000:
        notes.append("L-BFGS-B cross-check skipped above 20,000 coordinates (it takes minutes there)")
    checks: dict[str, float] = {}
    for solver in solvers:
        name = "cvxpy-gp" if solver is gs.solve_cvxpy else "L-BFGS-B"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                other = solver(None, None, clip, log_alpha=la, log_tau=lt)
            except Exception as exc:  # a failed cross-check is reported, not fatal
                notes.append(f"cross-check {name} failed: {type(exc).__name__}")
                continue
        messages = [" ".join(str(w.message).split()) for w in caught] + list(other.diagnostics.get("warnings", []))
        for message in dict.fromkeys(messages):
            notes.append(f"cross-check {name} warned: {message[:200]}")
        if other.diagnostics.get("time_limited"):
            notes.append(f"cross-check {name} stopped at its time limit: its value is an upper bound")
        # |ln(other) - ln(optimum)|: the relative gap, also where the values underflow
        checks[other.solver] = abs(_log_value(other) - _log_value(optimum))
    return checks


def grade_report(p: Profiles, *, cross_check: bool = False) -> GradeReport:
    sel = p.selection
    notes = list(p.notes)
    la, lt = _logs(p)
    support = np.isfinite(la)
    bc = math.exp(gs.log_sum_exp(0.5 * (la[support] + lt[support])))
    logs = {"log_alpha": la, "log_tau": lt}
    if sel.nu_mag > 0 and sel.mode in ("unclipped", "clipped"):
        notes.append(f"nu_mag = {sel.nu_mag:g} has no effect in mode {sel.mode}: it weights the regularized modes' Cor 4 penalty")
    if sel.mode == "unclipped":
        optimum = gs.solve_unclipped(None, None, **logs)
    elif sel.mode == "clipped":
        optimum = gs.solve_clipped(None, None, sel.clip, **logs)
        if not optimum.unique:
            notes.append("the optimum is a segment along the gauge: reported with min q = 0 (gllm.md E17)")
    else:
        clip = sel.clip if sel.mode == "regularized_clipped" else None
        # a level stands for dim coordinates: the penalty nu ||q||^2 counts each of them (gllm.md §1.10)
        dims = np.array([lv.dim for lv in p.levels], dtype=float) if p.granularity == "level" else None
        optimum = gs.solve_regularized(None, None, sel.nu_mag, sel.log_lambda, clip, **logs, dims=dims)
        notes.append(
            "Cor 4 with nu_mag > 0 is convex in u but not a geometric program (gllm.md E2)"
            if sel.nu_mag > 0
            else "nu_mag = 0: Cor 4 is the geometric program of the clipped/unclipped case"
        )
    closed = optimum.diagnostics.get("closed_form")
    if closed is not None and optimum.value > 0 and abs(closed - optimum.value) > 1e-9 * optimum.value:
        notes.append(f"closed form {closed:.12g} differs from Lambda at the reported grading {optimum.value:.12g}")
    log_lam = sel.log_lambda
    q = optimum.log_grading / log_lam
    q_max = math.log(sel.clip) / log_lam
    level_summary, agg_bc = None, None
    if p.granularity == "coordinate" and p.level_of is not None and p.levels:
        # one pass over the coordinates (a mask per level is quadratic when there are many levels)
        count = np.bincount(p.level_of, minlength=len(p.levels))
        g_sum = np.bincount(p.level_of, weights=optimum.g, minlength=len(p.levels))
        q_sum = np.bincount(p.level_of, weights=q, minlength=len(p.levels))
        level_summary = [
            (lv.name, float(g_sum[k] / count[k]), float(q_sum[k] / count[k])) for k, lv in enumerate(p.levels) if count[k]
        ]
        a = np.bincount(p.level_of, weights=p.alpha, minlength=len(p.levels))
        s = np.bincount(p.level_of, weights=p.tau, minlength=len(p.levels))
        agg_bc = gs.bhattacharyya(a / a.sum(), s / s.sum())
        notes.append(
            f"level aggregate BC(a, s) = {agg_bc:.6f} >= BC(alpha, tau) = {bc:.6f}: solving on levels "
            "would be conservative unless the profiles are within-level uniform (Prop 11)"
        )
    checks: dict[str, float] = {}
    kkt = None
    if sel.mode == "clipped":
        if la.size <= 20_000:
            kkt = gs.kkt_residuals(None, None, optimum, sel.clip, **logs)
        if cross_check:
            checks = _cross_checks(la, lt, optimum, sel.clip, notes)
    elif cross_check:
        notes.append(f"--cross-check applies to mode clipped; mode {sel.mode} was not cross-checked")
    cands = [certify_candidate(c, p, q_max) for c in p.candidates]
    # Prop 10 (iii) bounds Lambda on the clip box; the unclipped and regularized optima can lie below C^-2
    bound = max(bc**2, sel.clip**-2) if sel.mode in ("clipped", "regularized_clipped") else None
    return GradeReport(p, bc, optimum, bound, q, level_summary, agg_bc, cands, checks, kkt, notes)
