"""Grade selection for GLLM (gllm.md §1.7-§1.10): the clipped program and its cross-checks.

The program: minimise Lambda(g) = (sum alpha_j g_j^-2)(sum tau_j g_j^2) over g_j in [1, C].

``solve_clipped`` is the exact active-set solver (default). The KKT conditions force every
minimiser into the saturated family g_j^2 = clip(k w_j, 1, C^2), w_j = sqrt(alpha_j/tau_j), with
k = sqrt(T0/A0) fixed by the saturated sets, and the value (sum_interior sqrt(alpha_j tau_j) +
sqrt(A0 T0))^2. As k grows the partition changes only at the 2d breakpoints 1/w_j and C^2/w_j,
so scanning the intervals between sorted breakpoints with prefix sums finds the optimum in
O(d log d). ``solve_cvxpy`` (geometric program in t = g^2) and ``solve_lbfgsb`` (box-constrained
L-BFGS-B in u = log g^2) are independent cross-checks. ``kkt_residuals`` re-evaluates the
first-order conditions in mpmath at 50 digits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import mpmath
import numpy as np
from scipy import optimize


@dataclass(frozen=True)
class ClippedSolution:
    """The clipped optimum. ``g`` is the canonical minimiser (min g = 1 when the optimum is a segment)."""

    value: float  # Lambda*_C
    g: np.ndarray
    lo: np.ndarray  # indices with g = 1
    hi: np.ndarray  # indices with g = C
    unique: bool
    solver: str
    diagnostics: dict = field(default_factory=dict)

    @property
    def gain(self) -> float:
        return 1.0 / self.value


def gain(alpha: np.ndarray, tau: np.ndarray, g: np.ndarray) -> float:
    """Lambda(g) in float64."""
    g2 = np.asarray(g, dtype=float) ** 2
    return float(np.dot(alpha, 1.0 / g2) * np.dot(tau, g2))


def bhattacharyya(alpha: np.ndarray, tau: np.ndarray) -> float:
    return float(np.sum(np.sqrt(alpha * tau)))


def _check_profiles(alpha: np.ndarray, tau: np.ndarray, clip: float) -> tuple[np.ndarray, np.ndarray]:
    alpha, tau = np.asarray(alpha, dtype=float), np.asarray(tau, dtype=float)
    if alpha.shape != tau.shape or alpha.ndim != 1 or alpha.size == 0:
        raise ValueError("alpha and tau must be 1-D arrays of the same nonzero length")
    if not (np.all(np.isfinite(alpha)) and np.all(np.isfinite(tau))):
        raise ValueError("profiles must be finite")
    if np.any(alpha < 0) or np.any(tau <= 0):
        raise ValueError("the solver needs alpha >= 0 and tau > 0 (apply the zero policy first)")
    if not (math.isfinite(clip) and clip >= 1):
        raise ValueError(f"the clip C must be a finite number >= 1, not {clip}")
    return alpha / alpha.sum(), tau / tau.sum()


def solve_clipped(alpha: Sequence[float], tau: Sequence[float], clip: float = 2.0) -> ClippedSolution:
    """Exact active-set solution of min_{g in [1, C]^d} Lambda(g)."""
    alpha, tau = _check_profiles(np.asarray(alpha), np.asarray(tau), clip)
    d = alpha.size
    c2 = clip * clip
    w = np.sqrt(alpha / tau)
    positive = w > 0
    if positive.all() and w.max() / w.min() <= c2:
        # the unclipped optimum fits in the box: a segment of minimisers along the gauge; take min g = 1
        g = np.sqrt(w / w.min())
        value = bhattacharyya(alpha, tau) ** 2
        return ClippedSolution(
            value,
            g,
            np.flatnonzero(np.isclose(g, 1.0)),
            np.flatnonzero(np.isclose(g, clip)),
            unique=False,
            solver="active-set",
            diagnostics={"k": 1.0 / w.min()},
        )
    order = np.argsort(w, kind="stable")
    ws, a_s, t_s = w[order], alpha[order], tau[order]
    pa = np.concatenate([[0.0], np.cumsum(a_s)])
    pt = np.concatenate([[0.0], np.cumsum(t_s)])
    pb = np.concatenate([[0.0], np.cumsum(np.sqrt(a_s * t_s))])

    def sums(k: float) -> tuple[int, int, float, float, float]:
        """(n_lo, n_hi, A0, T0, B) of the saturated family at scale k, from prefix sums."""
        n_lo = int(np.searchsorted(ws, 1.0 / k, side="right"))  # k w_j <= 1
        n_hi = min(d - int(np.searchsorted(ws, c2 / k, side="left")), d - n_lo)  # k w_j >= C^2
        a0 = pa[n_lo] + (pa[d] - pa[d - n_hi]) / c2
        t0 = pt[n_lo] + c2 * (pt[d] - pt[d - n_hi])
        return n_lo, n_hi, a0, t0, pb[d - n_hi] - pb[n_lo]

    def excess(k: float) -> float:
        # k^2 A(k) - T(k) = k^2 A0 - T0 along the saturated family: it is nondecreasing in k (its
        # derivative is 2(k A - B) >= 0) and d log Lambda(g(k))/dk has its sign, so the optimum
        # is its zero crossing
        _, _, a0, t0, _ = sums(k)
        return k * k * a0 - t0

    nz = ws[ws > 0]
    breaks = np.sort(np.concatenate([1.0 / nz[::-1], c2 / nz[::-1]]))
    # bisect for the first breakpoint where the excess is >= 0; the optimum lies in the
    # interval just below it, where the partition is fixed and k* = sqrt(T0/A0)
    lo_i, hi_i = 0, breaks.size
    while lo_i < hi_i:
        mid = (lo_i + hi_i) // 2
        if excess(float(breaks[mid])) >= 0:
            hi_i = mid
        else:
            lo_i = mid + 1
    left = float(breaks[lo_i - 1]) if lo_i > 0 else 0.0
    right = float(breaks[lo_i]) if lo_i < breaks.size else 2 * float(breaks[-1]) + 1
    n_lo, n_hi, a0, t0, b = sums(0.5 * (left + right) if lo_i < breaks.size else right)
    k = math.sqrt(t0 / a0)
    k = min(max(k, left), right)  # the zero of the excess lies in [left, right]
    value = (b + math.sqrt(a0 * t0)) ** 2
    g = np.sqrt(np.clip(k * w, 1.0, c2))
    lo = np.sort(order[:n_lo])
    hi = np.sort(order[d - n_hi :])
    return ClippedSolution(float(value), g, lo, hi, unique=True, solver="active-set", diagnostics={"k": k})


def solve_unclipped(alpha: Sequence[float], tau: Sequence[float]) -> ClippedSolution:
    """min over g > 0: g*_j = (alpha_j/tau_j)^{1/4} with min g = 1, value BC^2 (Prop 7 (iii))."""
    alpha, tau = _check_profiles(np.asarray(alpha), np.asarray(tau), 1.0)
    if np.any(alpha == 0):
        # the infimum BC^2 is approached but not attained (gllm.md §4.3 rule 2, E7)
        raise ValueError("the unclipped optimum is not attained when alpha has zeros; use mode 'clipped'")
    rho = (alpha / tau) ** 0.25
    g = rho / rho.min()
    return ClippedSolution(
        bhattacharyya(alpha, tau) ** 2,
        g,
        np.flatnonzero(g == 1.0),
        np.array([], dtype=int),
        unique=False,
        solver="closed-form",
    )


def solve_lbfgsb(alpha: Sequence[float], tau: Sequence[float], clip: float = 2.0, starts: int = 3) -> ClippedSolution:
    """log Lambda minimised over u = log g^2 in [0, 2 ln C]^d by L-BFGS-B from several starts."""
    alpha, tau = _check_profiles(np.asarray(alpha), np.asarray(tau), clip)
    upper = 2 * math.log(clip)

    def objective(u):
        ea, et = alpha * np.exp(-u), tau * np.exp(u)
        sa, st = ea.sum(), et.sum()
        return math.log(sa) + math.log(st), et / st - ea / sa

    rng = np.random.default_rng(0)
    best = None
    for s in range(starts):
        u0 = np.full(alpha.size, upper / 2) if s == 0 else rng.uniform(0, upper, alpha.size)
        res = optimize.minimize(
            objective,
            u0,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0, upper)] * alpha.size,
            options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000},
        )
        if best is None or res.fun < best.fun:
            best = res
    u = best.x - best.x.min()
    g = np.exp(u / 2)
    return ClippedSolution(
        float(math.exp(best.fun)),
        g,
        np.flatnonzero(u < 1e-9),
        np.flatnonzero(u > upper - 1e-9),
        unique=True,
        solver="L-BFGS-B",
    )


def solve_cvxpy(alpha: Sequence[float], tau: Sequence[float], clip: float = 2.0) -> ClippedSolution:
    """The geometric program min (sum alpha_j / t_j)(sum tau_j t_j) s.t. 1 <= t_j <= C^2 (cvxpy DGP)."""
    import cvxpy as cp

    alpha, tau = _check_profiles(np.asarray(alpha), np.asarray(tau), clip)
    t = cp.Variable(alpha.size, pos=True)
    objective = cp.sum(cp.multiply(alpha, t**-1)) * cp.sum(cp.multiply(tau, t))
    problem = cp.Problem(cp.Minimize(objective), [t >= 1, t <= clip**2])
    problem.solve(gp=True, solver=cp.CLARABEL)
    g = np.sqrt(np.asarray(t.value, dtype=float))
    g = g / g.min() if g.min() > 1 else g
    return ClippedSolution(
        float(problem.value),
        g,
        np.array([], dtype=int),
        np.array([], dtype=int),
        unique=True,
        solver="cvxpy-gp",
        diagnostics={"status": problem.status},
    )


def solve_regularized(alpha: np.ndarray, tau: np.ndarray, nu: float, log_lam: float, clip: float | None) -> ClippedSolution:
    """Cor 4: min LSE(log alpha - u) + LSE(log tau + u) + nu/(4 log^2 lam) |u|^2 over u >= 0
    (u <= 2 ln C when clipped). Convex in u; a geometric program only when nu = 0 (gllm.md E2)."""
    weight = nu / (4 * log_lam**2)

    def objective(u):
        ea, et = alpha * np.exp(-u), tau * np.exp(u)
        sa, st = ea.sum(), et.sum()
        return math.log(sa) + math.log(st) + weight * float(u @ u), et / st - ea / sa + 2 * weight * u

    upper = 2 * math.log(clip) if clip is not None else None
    res = optimize.minimize(
        objective,
        np.zeros(alpha.size),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0, upper)] * alpha.size,
        options={"ftol": 1e-15, "gtol": 1e-12},
    )
    g = np.exp(res.x / 2)
    return ClippedSolution(
        gain(alpha, tau, g),
        g,
        np.flatnonzero(res.x < 1e-9),
        np.array([], dtype=int),
        unique=True,
        solver="L-BFGS-B (Cor 4)",
        diagnostics={"objective": float(res.fun)},
    )


@dataclass(frozen=True)
class KKTResiduals:
    """First-order conditions of log Lambda in u = log g^2, evaluated in mpmath.

    ``stationarity``: max |grad| over interior coordinates; ``lower_sign``: max(0, -grad) over
    coordinates at g = 1 (must be >= 0 there); ``upper_sign``: max(0, grad) over g = C."""

    stationarity: float
    lower_sign: float
    upper_sign: float
    digits: int

    @property
    def worst(self) -> float:
        return max(self.stationarity, self.lower_sign, self.upper_sign)


def kkt_residuals(alpha, tau, solution: ClippedSolution, clip: float, digits: int = 50) -> KKTResiduals:
    with mpmath.workdps(digits):
        a = [mpmath.mpf(float(x)) for x in alpha]
        t = [mpmath.mpf(float(x)) for x in tau]
        sa, st = mpmath.fsum(a), mpmath.fsum(t)
        a, t = [x / sa for x in a], [x / st for x in t]
        g2 = [mpmath.mpf(float(x)) ** 2 for x in solution.g]
        big = mpmath.mpf(clip) ** 2
        # snap the saturated coordinates exactly onto the faces, the interior onto k w_j
        lo, hi = set(solution.lo.tolist()), set(solution.hi.tolist())
        if solution.unique and "k" in solution.diagnostics:
            k = mpmath.mpf(solution.diagnostics["k"])
            a0 = mpmath.fsum(a[j] for j in lo) + mpmath.fsum(a[j] for j in hi) / big
            t0 = mpmath.fsum(t[j] for j in lo) + big * mpmath.fsum(t[j] for j in hi)
            k = mpmath.sqrt(t0 / a0) if a0 > 0 else k
            g2 = [mpmath.mpf(1) if j in lo else big if j in hi else k * mpmath.sqrt(a[j] / t[j]) for j in range(len(a))]
        elif not solution.unique:
            # the segment case: g_j^2 = w_j / min w, w_j = sqrt(alpha_j / tau_j)
            w = [mpmath.sqrt(a[j] / t[j]) for j in range(len(a))]
            g2 = [x / min(w) for x in w]
        ea = [x / y for x, y in zip(a, g2, strict=True)]
        et = [x * y for x, y in zip(t, g2, strict=True)]
        sea, set_ = mpmath.fsum(ea), mpmath.fsum(et)
        grad = [et[j] / set_ - ea[j] / sea for j in range(len(a))]
        interior = [abs(grad[j]) for j in range(len(a)) if j not in lo and j not in hi]
        return KKTResiduals(
            stationarity=float(max(interior, default=0)),
            lower_sign=float(max([max(0, -grad[j]) for j in lo], default=0)),
            upper_sign=float(max([max(0, grad[j]) for j in hi], default=0)),
            digits=digits,
        )


def epsilon_max(alpha: np.ndarray, tau: np.ndarray, v: np.ndarray, lam: float) -> float:
    """sup{eps > 0 : Lambda(eps v) < 1} along direction v (grades), finite when v is not constant;
    0 when <v, alpha - tau> <= 0 (the ray does not enter Q+). Prop 8 (iv)."""
    v = np.asarray(v, dtype=float)
    if np.dot(v, alpha - tau) <= 0:
        return 0.0
    if np.ptp(v) == 0:
        return math.inf

    def log_gain(eps: float) -> float:
        u = 2 * eps * math.log(lam) * v
        return float(np.log(np.dot(alpha, np.exp(-u))) + np.log(np.dot(tau, np.exp(u))))

    hi = 1.0
    while log_gain(hi) < 0:
        hi *= 2
        if hi > 1e12:
            return math.inf
    lo = hi / 2 if log_gain(hi / 2) < 0 else 0.0
    if lo == 0.0:
        lo = hi
        while lo > 1e-300 and log_gain(lo) >= 0:
            lo /= 2
    return float(optimize.brentq(log_gain, lo, hi, xtol=1e-14, rtol=1e-14))
