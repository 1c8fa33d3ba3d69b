"""`attncert grades`: solve the clipped grade-selection program of a profile file and certify
candidate gradings (gllm.md §1.7-§1.10, §4.3 outputs, E1, E4, E7, E8, E17)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from attncert.certificates.frontends.profiles import Candidate, Profiles
from attncert.solvers import grades as gs


@dataclass(frozen=True)
class CandidateReport:
    name: str
    certificate: float  # <q, alpha - tau>
    gain_value: float  # the exact Lambda(q)
    in_admissible_cone: bool  # Lambda(q) < 1
    in_clip_box: bool  # 0 <= q <= q_max as given
    epsilon_max: float
    bootstrap_sign_fraction: float | None
    warning: str | None


@dataclass(frozen=True)
class GradeReport:
    profiles: Profiles
    bc: float
    optimum: gs.ClippedSolution
    bound: float  # max{BC^2, C^-2}
    q: np.ndarray  # q*_C on the solve's coordinates
    level_summary: list[tuple[str, float, float]] | None  # (level, mean g, mean q) for coordinate solves
    level_aggregate_bc: float | None  # BC(a, s) >= BC(alpha, tau): conservative
    candidates: list[CandidateReport]
    cross_checks: dict[str, float] = field(default_factory=dict)
    kkt: gs.KKTResiduals | None = None
    notes: list[str] = field(default_factory=list)


def _candidate_grades(c: Candidate, p: Profiles, log_lam: float) -> np.ndarray:
    vec = c.q if c.q is not None else np.log(c.g) / log_lam
    if c.granularity == "level" and p.granularity == "coordinate":
        if p.level_of is None:
            raise ValueError(f"candidate {c.name!r} is per level but the profile has no levels")
        vec = vec[p.level_of]
    return np.asarray(vec, dtype=float)


def certify_candidate(c: Candidate, p: Profiles, q_max: float) -> CandidateReport:
    sel = p.selection
    log_lam = sel.log_lambda
    q = _candidate_grades(c, p, log_lam)
    # the certificate uses tau renormalised to the simplex, so that it is gauge-invariant
    diff = p.alpha - p.tau / p.tau.sum()
    cert = float(q @ diff)
    value = gs.gain(p.alpha, p.tau, np.exp(q * log_lam))
    fraction = None
    if p.bootstrap_alpha is not None and p.bootstrap_alpha.shape[1] == q.size:
        signs = np.sign((p.bootstrap_alpha - p.bootstrap_tau) @ q)
        fraction = float(np.mean(signs == np.sign(cert)))
    warning = None
    if cert > 0 and value >= 1 - 1e-12:
        warning = (
            f"first-order certificate {cert:.3g} > 0 but Lambda(q) = {value:.4g} >= 1: "
            "the direction enters Q+, this grading does not (gllm.md E1)"
        )
    return CandidateReport(
        name=c.name,
        certificate=cert,
        gain_value=value,
        # Q+ = {Lambda < 1}; the uniform grading has Lambda = 1 exactly, so allow for float rounding
        in_admissible_cone=value < 1 - 1e-12,
        in_clip_box=bool(np.all(q >= -1e-12) and np.all(q <= q_max + 1e-9)),
        epsilon_max=gs.epsilon_max(p.alpha, p.tau, q, math.exp(log_lam)),
        bootstrap_sign_fraction=fraction,
        warning=warning,
    )


def grade_report(p: Profiles, *, cross_check: bool = False) -> GradeReport:
    sel = p.selection
    notes = list(p.notes)
    alpha, tau = p.alpha, p.tau
    bc = gs.bhattacharyya(alpha, tau)
    if sel.mode == "unclipped":
        optimum = gs.solve_unclipped(alpha, tau)
    elif sel.mode == "clipped":
        optimum = gs.solve_clipped(alpha, tau, sel.clip)
        if not optimum.unique:
            notes.append("the optimum is a segment along the gauge: reported with min q = 0 (gllm.md E17)")
    else:
        clip = sel.clip if sel.mode == "regularized_clipped" else None
        optimum = gs.solve_regularized(alpha, tau, sel.nu_mag, sel.log_lambda, clip)
        notes.append(
            "Cor 4 with nu_mag > 0 is convex in u but not a geometric program (gllm.md E2)"
            if sel.nu_mag > 0
            else "nu_mag = 0: Cor 4 is the geometric program of the clipped/unclipped case"
        )
    tau_mass = float(tau.sum())
    if tau_mass < 1 - 1e-12:
        # deleted coordinates keep their tau mass out of the sum (gllm.md E7): Lambda scales with it
        optimum = gs.ClippedSolution(
            optimum.value * tau_mass,
            optimum.g,
            optimum.lo,
            optimum.hi,
            optimum.unique,
            optimum.solver,
            optimum.diagnostics,
        )
    log_lam = sel.log_lambda
    q = np.log(optimum.g) / log_lam
    q_max = math.log(sel.clip) / log_lam
    level_summary, agg_bc = None, None
    if p.granularity == "coordinate" and p.level_of is not None and p.levels:
        level_summary = [
            (lv.name, float(np.mean(optimum.g[p.level_of == k])), float(np.mean(q[p.level_of == k])))
            for k, lv in enumerate(p.levels)
            if np.any(p.level_of == k)
        ]
        a = np.bincount(p.level_of, weights=alpha, minlength=len(p.levels))
        s = np.bincount(p.level_of, weights=tau, minlength=len(p.levels))
        agg_bc = gs.bhattacharyya(a, s)
        notes.append(
            f"level aggregate BC(a, s) = {agg_bc:.6f} >= BC(alpha, tau) = {bc:.6f}: solving on levels "
            "would be conservative unless the profiles are within-level uniform (Prop 11)"
        )
    checks: dict[str, float] = {}
    kkt = None
    if sel.mode == "clipped":
        if alpha.size <= 20_000:
            kkt = gs.kkt_residuals(alpha, tau, optimum, sel.clip)
        if cross_check:
            solvers = [gs.solve_lbfgsb] + ([gs.solve_cvxpy] if alpha.size <= 2000 else [])
            if alpha.size > 2000:
                notes.append("cvxpy cross-check skipped above 2,000 coordinates (it takes minutes there)")
            for solver in solvers:
                other = solver(alpha, tau, sel.clip)
                checks[other.solver] = abs(other.value - optimum.value) / optimum.value
    cands = [certify_candidate(c, p, q_max) for c in p.candidates]
    return GradeReport(p, bc, optimum, max(bc**2, sel.clip**-2), q, level_summary, agg_bc, cands, checks, kkt, notes)
