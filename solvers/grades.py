"""Grade selection for GLLM (gllm.md §1.7-§1.10): the clipped program and its cross-checks.

The program: minimise Lambda(g) = (sum alpha_j g_j^-2)(sum tau_j g_j^2) over g_j in [1, C].

``solve_clipped`` is the exact active-set solver (default). The KKT conditions force every
minimiser into the saturated family g_j^2 = clip(k w_j, 1, C^2), w_j = sqrt(alpha_j/tau_j), with
k = sqrt(T0/A0) fixed by the saturated sets, and the value (sum_interior sqrt(alpha_j tau_j) +
sqrt(A0 T0))^2. As k grows the partition changes only at the 2d breakpoints 1/w_j and C^2/w_j,
so scanning the intervals between sorted breakpoints with prefix and suffix sums (accumulated in
logarithms, so that neither cancellation nor underflow loses a small term) finds the optimum in
O(d log d). ``solve_cvxpy`` (geometric program in t = g^2) and ``solve_lbfgsb`` (box-constrained
L-BFGS-B in u = log g^2) are independent cross-checks. ``kkt_residuals`` re-evaluates the
KKT conditions (first-order signs and the box) in mpmath at 50 digits.

Scale safety. Lambda is invariant under scaling alpha or tau, so every solver works from the
profiles' logarithms normalised by log-sum-exp (``log_alpha``/``log_tau`` may be passed directly,
e.g. for profiles whose entries span more than the double range); the ratios w_j and the scale k
are handled as logarithms, and every reported value is Lambda recomputed in the log domain at the
reported grading, so the optimum is attained by the grading reported with it. A zero alpha_j
(zero policy ``keep_clipped``, gllm.md E7) saturates at g_j = 1 in every bounded mode.
"""

from __future__ import annotations

import bisect
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import mpmath
import numpy as np


@dataclass(frozen=True)
class ClippedSolution:
    """The clipped optimum. ``g`` is the canonical minimiser (min g = 1 when the optimum is a segment).

    ``log_g`` is ln g (finite even where g overflows a double, in the unclipped mode);
    ``attained`` is False for an infimum that no grading attains (unclipped mode with alpha zeros,
    gllm.md §4.3 rule 2), where g is the limit of a minimising sequence (0 on the zero coordinates).
    """

    value: float  # Lambda*_C
    g: np.ndarray
    lo: np.ndarray  # indices with g = 1
    hi: np.ndarray  # indices with g = C
    unique: bool | None  # None: not decided (the numeric cross-check solvers L-BFGS-B and cvxpy)
    solver: str
    diagnostics: dict = field(default_factory=dict)
    log_g: np.ndarray | None = None
    attained: bool = True
    log_value: float | None = None  # ln Lambda*_C, finite where the value underflows

    @property
    def gain(self) -> float:
        """1 / Lambda*_C, math.inf where it overflows a double (the reported value underflows)."""
        log_value = math.log(self.value) if self.log_value is None else self.log_value
        try:
            return math.exp(-log_value)
        except OverflowError:
            return math.inf

    @property
    def log_grading(self) -> np.ndarray:
        return np.log(self.g) if self.log_g is None else self.log_g


def log_sum_exp(x: np.ndarray) -> float:
    """log sum exp(x), -inf for an empty or all -inf vector."""
    top = float(np.max(x)) if x.size else -math.inf
    if not math.isfinite(top):
        return top
    with np.errstate(over="ignore"):  # x - top <= 0 overflows only to -inf, whose exp is the right 0
        return top + math.log(float(np.sum(np.exp(x - top))))


def log_mean_exp(log_w: np.ndarray, x: np.ndarray, *, w: np.ndarray | None = None) -> float:
    """ln(sum_j w_j e^{x_j} / sum_j w_j) for weights w = e^{log_w} (ln 0 = -inf), at least one of them
    nonzero. Near a mean of 1 it is log1p(sum_j w_j expm1(x_j) / sum_j w_j): a departure from 1 far below
    the rounding of 1 (a weight of 1e-20 that moves) survives there, where the log of the sum rounds it
    away. Elsewhere, or where expm1 overflows, it is the log-sum-exp difference, exact to rounding.
    ``w``: the weights e^{log_w} (any common scale) when a loop has them already."""
    log_w, x = np.asarray(log_w, dtype=float), np.asarray(x, dtype=float)
    w = np.exp(log_w - np.max(log_w)) if w is None else w
    with np.errstate(over="ignore", invalid="ignore"):  # inf or 0 * inf: the departure fails the test below
        departure = float(np.dot(w, np.expm1(x)) / np.sum(w))
    if abs(departure) < 0.5:  # False for NaN and inf
        return math.log1p(departure)
    return log_sum_exp(log_w + x) - log_sum_exp(log_w)


def gain(alpha: np.ndarray, tau: np.ndarray, g: np.ndarray) -> float:
    """Lambda(g) in float64."""
    g2 = np.asarray(g, dtype=float) ** 2
    return float(np.dot(alpha, 1.0 / g2) * np.dot(tau, g2))


def log_gain(log_alpha: np.ndarray, log_tau: np.ndarray, log_g: np.ndarray) -> float:
    """ln Lambda(g) from ln alpha, ln tau and ln g: LSE(ln alpha - 2 ln g) + LSE(ln tau + 2 ln g) -
    LSE(ln alpha) - LSE(ln tau). Finite for every finite ln g (no overflow in g or Lambda);
    coordinates with alpha_j = 0 (ln alpha_j = -inf) drop out of the first sum."""
    la, lt, lg = (np.asarray(x, dtype=float) for x in (log_alpha, log_tau, log_g))
    with np.errstate(invalid="ignore"):  # -inf - (-inf) on a zero alpha at g = 0: the term is 0
        first = np.where(np.isneginf(la), -math.inf, la - 2 * lg)
    return log_sum_exp(first) + log_sum_exp(lt + 2 * lg) - log_sum_exp(la) - log_sum_exp(lt)


def bhattacharyya(alpha: np.ndarray, tau: np.ndarray) -> float:
    """BC(alpha, tau) = sum_j sqrt(alpha_j tau_j) of two normalised profiles (Lambda* = BC^2, Prop 7)."""
    return float(np.sum(np.sqrt(alpha * tau)))


def _on_the_simplex(log_x: np.ndarray) -> np.ndarray:
    """ln x - LSE(ln x): the logarithms of x / sum(x) (ln 0 = -inf)."""
    with np.errstate(over="ignore"):  # x - LSE(x) <= 0 overflows only to -inf: a weight below e^-max is 0
        return log_x - log_sum_exp(log_x)


def log_profiles(alpha: Sequence[float], tau: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """ln alpha and ln tau normalised to the simplex (ln 0 = -inf)."""
    with np.errstate(divide="ignore"):
        la, lt = np.log(np.asarray(alpha, dtype=float)), np.log(np.asarray(tau, dtype=float))
    return _on_the_simplex(la), _on_the_simplex(lt)


def _check_profiles(
    alpha, tau, clip: float | None, log_alpha: np.ndarray | None = None, log_tau: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(alpha, tau, ln alpha, ln tau), all normalised to the simplex, after the input checks. The profiles
    come once: linear (alpha, tau) or in logarithms (log_alpha, log_tau), never half of each. ``clip`` is
    the clip C to check, or None for a program without one."""
    if (log_alpha is None) != (log_tau is None):
        raise ValueError("log_alpha and log_tau go together: give both, or neither (then alpha and tau)")
    if log_alpha is not None and (alpha is not None or tau is not None):
        raise ValueError("give the profiles once: alpha and tau, or log_alpha and log_tau, not both")
    if log_alpha is None:
        alpha, tau = np.asarray(alpha, dtype=float), np.asarray(tau, dtype=float)
        if alpha.shape != tau.shape or alpha.ndim != 1 or alpha.size == 0:
            raise ValueError("alpha and tau must be 1-D arrays of the same nonzero length")
        if not (np.all(np.isfinite(alpha)) and np.all(np.isfinite(tau))):
            raise ValueError("profiles must be finite")
        if np.any(alpha < 0) or np.any(tau <= 0) or not np.any(alpha > 0):
            raise ValueError("the solver needs alpha >= 0, not all zero, and tau > 0 (apply the zero policy first)")
        log_alpha, log_tau = log_profiles(alpha, tau)
    else:
        log_alpha, log_tau = np.asarray(log_alpha, dtype=float), np.asarray(log_tau, dtype=float)
        if log_alpha.shape != log_tau.shape or log_alpha.ndim != 1 or log_alpha.size == 0:
            raise ValueError("alpha and tau must be 1-D arrays of the same nonzero length")
        if np.any(np.isnan(log_alpha)) or np.any(log_alpha == math.inf) or not np.all(np.isfinite(log_tau)):
            raise ValueError("the solver needs alpha >= 0 and tau > 0 (apply the zero policy first)")
        if np.all(log_alpha == -math.inf):
            raise ValueError("the solver needs alpha not all zero (every log_alpha is -inf)")
        log_alpha, log_tau = _on_the_simplex(log_alpha), _on_the_simplex(log_tau)
    if clip is not None and not (math.isfinite(clip) and clip >= 1):
        raise ValueError(f"the clip C must be a finite number >= 1, not {clip}")
    return np.exp(log_alpha), np.exp(log_tau), log_alpha, log_tau


def _solution(
    la, lt, log_g, lo, hi, *, unique: bool | None, solver: str, diagnostics: dict, attained: bool = True
) -> ClippedSolution:
    """A solution whose value is Lambda recomputed (in the log domain) at the reported grading."""
    log_g = np.asarray(log_g, dtype=float)
    with np.errstate(over="ignore"):
        g = np.exp(log_g)
    log_value = log_gain(la, lt, log_g)
    value = math.exp(log_value)
    return ClippedSolution(value, g, lo, hi, unique, solver, diagnostics, log_g=log_g, attained=attained, log_value=log_value)


def solve_clipped(
    alpha: Sequence[float] | None,
    tau: Sequence[float] | None,
    clip: float = 2.0,
    *,
    log_alpha: np.ndarray | None = None,
    log_tau: np.ndarray | None = None,
) -> ClippedSolution:
    """Exact active-set solution of min_{g in [1, C]^d} Lambda(g), in logarithms (scale-safe).

    An interior coordinate sits at ln g_j = (ln k + ln w_j) / 2, w_j = sqrt(alpha_j / tau_j), formed in
    floating point: once ulp(ln w_j) exceeds ln C^2 (|ln w_j| beyond about 2^52 ln C^2, 6e15 at C = 2,
    reachable only through ``log_alpha``/``log_tau``) that sum cannot fall inside (0, ln C^2), and the
    coordinate lands on a face."""
    _, _, la, lt = _check_profiles(alpha, tau, clip, log_alpha, log_tau)
    d = la.size
    log_c2 = 2 * math.log(clip)
    with np.errstate(invalid="ignore"):
        lw = 0.5 * (la - lt)  # ln w_j; -inf where alpha_j = 0
    if np.all(np.isfinite(lw)) and float(lw.max() - lw.min()) <= log_c2:
        # the unclipped optimum fits in the box: a segment of minimisers along the gauge; take min g = 1
        log_g = 0.5 * (lw - lw.min())
        lo, hi = np.flatnonzero(log_g <= 1e-15), np.flatnonzero(log_g >= math.log(clip) - 1e-15)
        log_g[lo], log_g[hi] = 0.0, math.log(clip)  # ties to rounding sit exactly on the faces
        return _solution(
            la,
            lt,
            log_g,
            lo,
            hi,
            # max rho / min rho = C (to 1e-15 in ln g): the segment has shrunk to this one point
            unique=bool(hi.size),
            solver="active-set",
            diagnostics={"log_k": -float(lw.min()), "closed_form": float(np.exp(log_sum_exp(0.5 * (la + lt)) * 2))},
        )
    order = np.argsort(lw, kind="stable")
    ws, la_s, lt_s = lw[order], la[order], lt[order]
    # ln of the sums of the first n and of the last n sorted entries, accumulated in logarithms: a
    # suffix taken as a difference of prefix sums lost tau_j = e^-150 beside 1 (so T0 = 0 and a
    # wrong partition), and linear entries underflow below e^-745
    pre_a, pre_t = (np.concatenate([[-math.inf], np.logaddexp.accumulate(x)]) for x in (la_s, lt_s))
    suf_a, suf_t = (np.concatenate([[-math.inf], np.logaddexp.accumulate(x[::-1])]) for x in (la_s, lt_s))

    # a tau_j that normalisation underflowed to 0 (ln w_j = +inf, reachable through log_tau) is on the
    # upper face for every k > 0: the probe at k = 0 (log_k = -inf) must not count it on the lower one
    n_below_inf = int(np.searchsorted(ws, math.inf, side="left"))

    # each coordinate's upper breakpoint; `breaks` takes its finite ones from here, so the strict test
    # below compares log_k with the very doubles it is (NaN where alpha_j = 0 and tau_j underflowed:
    # such a coordinate is counted on the upper face, as it sorts last)
    with np.errstate(invalid="ignore"):
        upper_breaks = log_c2 - ws

    def sums(log_k: float, *, strict: bool = False) -> tuple[int, int, float, float]:
        """(n_lo, n_hi, ln A0, ln T0) of the saturated family at scale k = e^log_k; A0 and T0 in
        logarithms, so that C^2 may exceed the double range. ``strict`` leaves out a coordinate whose
        breakpoint log_k is (k w_j = 1 or C^2 exactly)."""
        if strict:
            n_lo = min(int(np.searchsorted(ws, -log_k, side="left")), n_below_inf)  # k w_j < 1
            n_hi = min(int(np.count_nonzero(~(upper_breaks >= log_k))), d - n_lo)  # k w_j > C^2
        else:
            n_lo = min(int(np.searchsorted(ws, -log_k, side="right")), n_below_inf)  # k w_j <= 1
            n_hi = min(d - int(np.searchsorted(ws, log_c2 - log_k, side="left")), d - n_lo)  # k w_j >= C^2
        log_a0 = float(np.logaddexp(pre_a[n_lo], suf_a[n_hi] - log_c2))
        log_t0 = float(np.logaddexp(pre_t[n_lo], suf_t[n_hi] + log_c2))
        return n_lo, n_hi, log_a0, log_t0

    def excess_nonnegative(log_k: float) -> bool:
        # k^2 A(k) - T(k) = k^2 A0 - T0 along the saturated family: it is nondecreasing in k (its
        # derivative is 2(k A - B) >= 0) and d log Lambda(g(k))/dk has its sign, so the optimum
        # is its zero crossing; compared in logarithms so that k may be huge or tiny (T0 = 0, ln T0 = -inf,
        # reads as >= 0 as it should, with no case of its own: log_k is a finite breakpoint). At its own
        # breakpoint a coordinate's term (k^2 alpha_j - tau_j, or k^2 alpha_j / C^2 - C^2 tau_j) is 0;
        # taken into the sums it leaves their rounding, 1e-16 of tau_j, which outweighs smaller saturated
        # weights (alpha = 1e-22 and tau = 1e-17 beside thirds; an e^-1000 beside a tau that underflowed), made the
        # excess non-monotone and stopped the search away from the crossing, on a grading off a face.
        # Left out (strict), the excess there has the other terms' sign
        _, _, log_a0, log_t0 = sums(log_k, strict=True)
        return 2 * log_k + log_a0 >= log_t0

    finite = np.isfinite(ws)
    breaks = np.sort(np.concatenate([-ws[finite], upper_breaks[finite]]))
    # the first breakpoint where the excess is >= 0 (it is nondecreasing, so False < True in order);
    # the optimum lies in the interval just below it, where the partition is fixed and k* = sqrt(T0/A0).
    # The standard library's bisection: a hand-written one that stepped wrongly looped for ever
    lo_i = bisect.bisect_left(breaks, True, key=lambda log_k: excess_nonnegative(float(log_k)))
    # the partition is fixed on the open interval (left, right). Past the last breakpoint it is open
    # to the right: a zero alpha_j with a heavy tau_j puts the optimum there, and a finite right end
    # would clamp k below sqrt(T0/A0). Probed at the midpoint, or at the infinite end itself, where
    # sums() gives the partition of the whole unbounded interval. Not one past the finite end: past
    # |ln w| ~ 2^53, left + 1.0 rounds back to left, where ln C^2 - ln w_j may have rounded to -ln w_j,
    # and sums() there counts a coordinate far above its upper face on its lower one
    left = float(breaks[lo_i - 1]) if lo_i > 0 else -math.inf
    right = float(breaks[lo_i]) if lo_i < breaks.size else math.inf
    probe = 0.5 * (left + right) if math.isfinite(left + right) else (left if math.isinf(left) else right)
    n_lo, n_hi, log_a0, log_t0 = sums(probe)
    b = math.exp(log_sum_exp(0.5 * (la_s + lt_s)[n_lo : d - n_hi]))  # sum_interior sqrt(alpha_j tau_j)
    finite_sums = math.isfinite(log_a0) and math.isfinite(log_t0)
    log_k = 0.5 * (log_t0 - log_a0) if finite_sums else right
    log_k = min(max(log_k, left), right)  # the zero of the excess lies in [left, right]
    lo, hi = order[:n_lo], order[d - n_hi :]
    if log_k in (left, right):
        # the zero sits on a breakpoint (to rounding): the coordinate whose face starts there is on
        # it, and the active sets must say so; left out, the KKT rebuild from them would put it
        # off the box (k w_j > C^2 by e^25 on a profile spanning e^135)
        with np.errstate(invalid="ignore"):
            lo = np.union1d(lo, np.flatnonzero(-lw == log_k))
            hi = np.setdiff1d(np.union1d(hi, np.flatnonzero(log_c2 - lw == log_k)), lo)
    with np.errstate(invalid="ignore"):
        log_g = 0.5 * np.clip(log_k + lw, 0.0, log_c2)
    # exactly on the faces, whatever log_k + lw rounded to; a zero alpha_j (ln w_j = -inf, where
    # log_k + lw may be NaN) sorts first, below every probe, so it is always in lo
    log_g[lo], log_g[hi] = 0.0, 0.5 * log_c2
    return _solution(
        la,
        lt,
        log_g,
        np.sort(lo),
        np.sort(hi),
        unique=True,
        solver="active-set",
        diagnostics={"log_k": log_k, "closed_form": float((b + math.exp(0.5 * (log_a0 + log_t0))) ** 2)},
    )


def solve_unclipped(
    alpha: Sequence[float] | None,
    tau: Sequence[float] | None,
    *,
    log_alpha: np.ndarray | None = None,
    log_tau: np.ndarray | None = None,
) -> ClippedSolution:
    """min over g > 0: g*_j = (alpha_j/tau_j)^{1/4} with min g = 1, value BC^2 (Prop 7 (iii)).

    With zeros in alpha (zero policy ``delete``) the infimum BC^2 is approached as g_j -> 0 on the
    zero coordinates but not attained (gllm.md §4.3 rule 2, E7); tau is not renormalised."""
    _, _, la, lt = _check_profiles(alpha, tau, None, log_alpha, log_tau)
    support = np.isfinite(la)
    # on alpha's zeros la = -inf and lt is finite, so ln g_j = -inf (g_j -> 0) without a warning
    log_g = 0.25 * (la - lt)
    log_g -= log_g[support].min()
    attained = bool(support.all())
    sol = _solution(
        la,
        lt,
        log_g,
        np.flatnonzero(log_g == 0.0),
        np.array([], dtype=int),
        unique=False,
        solver="closed-form",
        diagnostics={"closed_form": math.exp(2 * log_sum_exp(0.5 * (la[support] + lt[support])))},
        attained=attained,
    )
    return sol


def _log_objective(la: np.ndarray, lt: np.ndarray, u: np.ndarray) -> tuple[float, np.ndarray]:
    """ln Lambda at u = ln g^2 (normalised profiles) and its gradient, without overflow."""
    xa, xt = la - u, lt + u
    ma, mt = float(np.max(xa)), float(np.max(xt))
    ea, et = np.exp(xa - ma), np.exp(xt - mt)
    sa, st = float(ea.sum()), float(et.sum())
    return ma + math.log(sa) + mt + math.log(st), et / st - ea / sa


def _lbfgsb(objective, x0: np.ndarray, bounds: list, restarts: int = 10, deadline: float = math.inf):
    """L-BFGS-B, restarted from its own result (at most ``restarts`` times, 10 by default) until a
    restart makes no progress: along the gauge direction the objective is nearly flat at a face of
    the box, where one run can stop early (relative reduction below ftol) well before the optimum.
    Iterations stop at ``deadline`` (time.monotonic()), keeping the best point so far."""
    options = {"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000}

    def stop_at_deadline(intermediate_result) -> None:
        if time.monotonic() > deadline:
            raise StopIteration

    from scipy import optimize  # a cross-check only: the default path does not pay for importing SciPy

    def run(x: np.ndarray):
        return optimize.minimize(
            objective, x, jac=True, method="L-BFGS-B", bounds=bounds, options=options, callback=stop_at_deadline
        )

    res = run(x0)
    for _ in range(restarts):
        if time.monotonic() > deadline:
            break
        again = run(res.x)
        if not again.fun < res.fun - 1e-13 * max(1.0, abs(res.fun)):
            res = again if again.fun < res.fun else res
            break
        res = again
    return res


def solve_lbfgsb(
    alpha: Sequence[float] | None,
    tau: Sequence[float] | None,
    clip: float = 2.0,
    starts: int = 3,
    *,
    log_alpha: np.ndarray | None = None,
    log_tau: np.ndarray | None = None,
    time_limit_s: float = 10.0,
) -> ClippedSolution:
    """log Lambda minimised over u = log g^2 in [0, 2 ln C]^d by L-BFGS-B from ``starts`` starts:
    the box centre first, then uniform points of the box (seed 0). No start or restart begins
    after ``time_limit_s`` seconds (``diagnostics["time_limited"]``); the README states both defaults."""
    _, _, la, lt = _check_profiles(alpha, tau, clip, log_alpha, log_tau)
    upper = 2 * math.log(clip)
    rng = np.random.default_rng(0)
    best = None
    deadline = time.monotonic() + time_limit_s
    for s in range(starts):
        if best is not None and time.monotonic() > deadline:
            break
        u0 = np.full(la.size, upper / 2) if s == 0 else rng.uniform(0, upper, la.size)
        res = _lbfgsb(lambda u: _log_objective(la, lt, u), u0, [(0, upper)] * la.size, deadline=deadline)
        if best is None or res.fun < best.fun:
            best = res
    u = best.x - best.x.min()
    return _solution(
        la,
        lt,
        u / 2,
        np.flatnonzero(u < 1e-9),
        np.flatnonzero(u > upper - 1e-9),
        unique=None,  # a local search cannot tell a segment of minimisers from a point
        solver="L-BFGS-B",
        diagnostics={"time_limited": time.monotonic() > deadline},
    )


def solve_cvxpy(
    alpha: Sequence[float] | None,
    tau: Sequence[float] | None,
    clip: float = 2.0,
    *,
    log_alpha: np.ndarray | None = None,
    log_tau: np.ndarray | None = None,
) -> ClippedSolution:
    """The geometric program min (sum alpha_j / t_j)(sum tau_j t_j) s.t. 1 <= t_j <= C^2, solved by
    cvxpy in its convex form in u = ln t: LSE(ln alpha - u) + LSE(ln tau + u) over 0 <= u <= 2 ln C
    (exponential cones; vectorised, so cvxpy has nothing to warn about). Zero alpha_j are left out
    of the first LSE; their u_j stay in the box, so the problem is the same as the exact solver's.
    Warnings from cvxpy are returned in ``diagnostics["warnings"]``, not printed. An interior-point
    solution lies near the box faces, not on them, so it does not name the active sets: ``lo`` and ``hi``
    are empty (``solve_clipped`` gives them exactly); this solver cross-checks the value."""
    import cvxpy as cp

    _, _, la, lt = _check_profiles(alpha, tau, clip, log_alpha, log_tau)
    u = cp.Variable(la.size)
    on = np.flatnonzero(np.isfinite(la))
    objective = cp.log_sum_exp(la[on] - u[on]) + cp.log_sum_exp(lt + u)
    problem = cp.Problem(cp.Minimize(objective), [u >= 0, u <= 2 * math.log(clip)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        problem.solve(solver=cp.CLARABEL)
    if u.value is None:
        raise ValueError(f"cvxpy returned no solution (status {problem.status})")
    log_g = 0.5 * np.clip(np.asarray(u.value, dtype=float), 0.0, 2 * math.log(clip))
    log_g = log_g - log_g.min()
    return _solution(
        la,
        lt,
        log_g,
        np.array([], dtype=int),
        np.array([], dtype=int),
        unique=None,  # nor can an interior-point solution
        solver="cvxpy-gp",
        diagnostics={"status": problem.status, "warnings": [" ".join(str(w.message).split()) for w in caught]},
    )


def solve_regularized(
    alpha: np.ndarray | None,
    tau: np.ndarray | None,
    nu: float,
    log_lam: float,
    clip: float | None,
    *,
    log_alpha: np.ndarray | None = None,
    log_tau: np.ndarray | None = None,
    dims: np.ndarray | None = None,
) -> ClippedSolution:
    """Cor 4: min LSE(log alpha - u) + LSE(log tau + u) + nu/(4 log^2 lam) sum_j d_j u_j^2 over u >= 0
    (u <= 2 ln C when clipped). Convex in u; a geometric program only when nu = 0 (gllm.md E2).

    The penalty of gllm.md §1.10 is nu ||q||^2 over the d embedding coordinates. ``dims`` (default
    all 1: one entry per coordinate) gives d_l, the coordinates each entry stands for when the
    entries are levels (alpha = a, tau = s): under within-level uniformity q_j = v_l on level l, so
    ||q||^2 = sum_l d_l v_l^2 and this level solve equals the d-coordinate solve (Prop 11, §4.3 rule 3).

    Solved in v = s u with s = max(1, sqrt(nu max d) / (2 log lam)), so the largest penalty weight is
    at most 1 and nothing overflows even for nu_mag near the double maximum."""
    _, _, la, lt = _check_profiles(alpha, tau, clip, log_alpha, log_tau)
    w = np.ones(la.size) if dims is None else np.asarray(dims, dtype=float)
    if w.shape != la.shape or not np.all(np.isfinite(w)) or not np.all(w > 0):
        raise ValueError("dims must be finite, positive and one per profile entry")
    root = math.sqrt(nu) * math.sqrt(float(w.max())) / (2 * log_lam)  # sqrt of the largest penalty weight
    s = max(1.0, root)
    # (root_j / s)^2 per entry, written without root / s, which is inf / inf when root overflows
    weight = min(1.0, root) ** 2 * (w / w.max())

    def objective(v):
        value, grad = _log_objective(la, lt, v / s)
        return value + float(weight @ (v * v)), grad / s + 2 * weight * v

    upper = 2 * math.log(clip) * s if clip is not None else None
    res = _lbfgsb(objective, np.zeros(la.size), [(0, upper)] * la.size)
    u = res.x / s
    low = u < 1e-9
    return _solution(
        la,
        lt,
        u / 2,
        np.flatnonzero(low),
        # at C = 1 both faces are u = 0: a coordinate is counted once, at g = 1
        np.array([], dtype=int) if clip is None else np.flatnonzero((u > 2 * math.log(clip) - 1e-9) & ~low),
        unique=True if nu > 0 else None,  # strictly convex with the penalty; without it a segment is possible
        solver="L-BFGS-B (Cor 4)",
        diagnostics={"objective": float(res.fun)},
    )


@dataclass(frozen=True)
class KKTResiduals:
    """KKT conditions of log Lambda in u = log g^2 on the box 0 <= u <= 2 log C, evaluated in mpmath.

    ``stationarity``: max |grad| over interior coordinates; ``lower_sign``: max(0, -grad) over
    coordinates at g = 1 (must be >= 0 there); ``upper_sign``: max(0, grad) over g = C;
    ``feasibility``: how far the rebuilt grading leaves the box, max(0, -u_j, u_j - 2 log C). The
    first three alone accept wrong active sets whose interior lands outside the box (the unclipped
    optimum passes them at every C). Every field is inf when the active sets fix no scale k
    (alpha or tau vanishes on both faces), so that no grading can be rebuilt from them."""

    stationarity: float
    lower_sign: float
    upper_sign: float
    feasibility: float
    digits: int

    @property
    def worst(self) -> float:
        return max(self.stationarity, self.lower_sign, self.upper_sign, self.feasibility)


def kkt_residuals(
    alpha,
    tau,
    solution: ClippedSolution,
    clip: float,
    digits: int = 50,
    *,
    log_alpha: np.ndarray | None = None,
    log_tau: np.ndarray | None = None,
) -> KKTResiduals:
    """KKT residuals of ``solution`` for the clipped program at ``clip``, rebuilt from its active sets
    alone at ``digits`` digits: the saturated coordinates exactly on their faces, the interior at
    g_j^2 = k w_j with k = sqrt(T0 / A0), or for a segment the canonical g_j^2 = w_j / min w. The
    profiles are given as for ``solve_clipped`` (linear, or ``log_alpha``/``log_tau``). ValueError for
    a solution whose uniqueness is not decided (the numeric cross-check solvers)."""
    if solution.unique is None:
        raise ValueError(f"kkt_residuals needs a solution whose uniqueness is decided (exact solver), not {solution.solver}")
    _, _, la, lt = _check_profiles(alpha, tau, clip, log_alpha, log_tau)
    with mpmath.workdps(digits):
        a = [mpmath.exp(mpmath.mpf(float(x))) if math.isfinite(x) else mpmath.mpf(0) for x in la]
        # not normalised: the program and every residual below are invariant under scaling either
        # profile (k and the gradient's two ratios absorb the factor)
        t = [mpmath.exp(mpmath.mpf(float(x))) for x in lt]
        big = mpmath.mpf(clip) ** 2
        # the grading is rebuilt from the active sets at `digits` digits (the float grading is not
        # read): the saturated coordinates exactly on the faces, the interior on k w_j
        lo, hi = set(solution.lo.tolist()), set(solution.hi.tolist())
        if solution.unique:
            a0 = mpmath.fsum(a[j] for j in lo) + mpmath.fsum(a[j] for j in hi) / big
            t0 = mpmath.fsum(t[j] for j in lo) + big * mpmath.fsum(t[j] for j in hi)
            # a0, t0 > 0 at an optimum: tau > 0 and the canonical grading puts a coordinate on
            # g = 1; if alpha vanished on both faces, scaling the interior up would lower Lambda, so
            # no interior point would be optimal and alpha would vanish everywhere
            if a0 == 0 or t0 == 0:
                return KKTResiduals(math.inf, math.inf, math.inf, math.inf, digits)
            k = mpmath.sqrt(t0 / a0)
            g2 = [mpmath.mpf(1) if j in lo else big if j in hi else k * mpmath.sqrt(a[j] / t[j]) for j in range(len(a))]
        else:
            # the segment case: g_j^2 = w_j / min w, w_j = sqrt(alpha_j / tau_j)
            w = [mpmath.sqrt(a[j] / t[j]) for j in range(len(a))]
            g2 = [x / min(w) for x in w]
        ea = [x / y for x, y in zip(a, g2, strict=True)]
        et = [x * y for x, y in zip(t, g2, strict=True)]
        sea, set_ = mpmath.fsum(ea), mpmath.fsum(et)
        grad = [et[j] / set_ - ea[j] / sea for j in range(len(a))]
        interior = [abs(grad[j]) for j in range(len(a)) if j not in lo and j not in hi]
        outside = [max(0, -mpmath.log(x), mpmath.log(x / big)) for x in g2]
        return KKTResiduals(
            stationarity=float(max(interior, default=0)),
            lower_sign=float(max([max(0, -grad[j]) for j in lo], default=0)),
            upper_sign=float(max([max(0, grad[j]) for j in hi], default=0)),
            feasibility=float(max(outside)),
            digits=digits,
        )


def bracketed_root(f, lo: float, hi: float, *, rtol: float = 1e-14, max_evaluations: int = 400) -> float:
    """The zero of a continuous ``f`` with ``f(lo) < 0 <= f(hi)``, to ``rtol`` relative to ``hi``.

    Regula falsi with the Illinois modification (superlinear, and both ends of the bracket move),
    falling back to bisection when the secant leaves the bracket. The bracket always holds the
    zero, so the answer is within ``rtol * hi`` of it: the precision SciPy's brentq was asked for
    here, without importing SciPy on the default path. A bracket still wider than that after
    ``max_evaluations`` evaluations (400 by default) raises ArithmeticError rather than return a
    cruder value (epsilon_max's one-binade brackets take at most 57 evaluations on 1,975 random
    profiles)."""
    flo, fhi = f(lo), f(hi)
    if not (flo < 0 <= fhi):
        raise ValueError("bracketed_root needs f(lo) < 0 <= f(hi)")
    side = 0
    for _ in range(max_evaluations):
        if hi - lo <= rtol * abs(hi):
            break
        x = (lo * fhi - hi * flo) / (fhi - flo)
        if not lo < x < hi:
            x = 0.5 * (lo + hi)
        fx = f(x)
        if fx < 0:
            lo, flo = x, fx
            if side == -1:
                fhi /= 2
            side = -1
        else:
            hi, fhi = x, fx
            if side == 1:
                flo /= 2
            side = 1
    if hi - lo > rtol * abs(hi):
        raise ArithmeticError(
            f"bracketed_root: the bracket [{lo!r}, {hi!r}] is still wider than rtol = {rtol} after {max_evaluations} evaluations"
        )
    return 0.5 * (lo + hi)


def first_order_certificate(alpha: np.ndarray, tau: np.ndarray, q: np.ndarray) -> float | np.ndarray:
    """<q, alpha - tau> with alpha and tau on the simplex (the first-order certificate, Prop 8);
    alpha and tau may also be B x n replicates (one certificate per row).

    Evaluated as <q - m 1, alpha - tau>, m the midrange of q: the same number, since
    sum(alpha - tau) = 0, but without the rounding of q's constant part. A constant q (a uniform
    grading, Lambda = 1 exactly) gives exactly 0, where the plain dot product leaves a rounding
    residue of either sign (+5.6e-17 on Table 3's (0.7, 0.3) profile with q = (1, 1, 1, 1)). The
    centred q is scaled by its half-range so that huge grades cannot overflow before the end."""
    q = np.asarray(q, dtype=float)
    alpha, tau = np.asarray(alpha, dtype=float), np.asarray(tau, dtype=float)
    diff = alpha / alpha.sum(axis=-1, keepdims=True) - tau / tau.sum(axis=-1, keepdims=True)
    top, bottom = float(np.max(q)), float(np.min(q))
    half = top / 2 - bottom / 2  # halves first: top - bottom may overflow
    unit = np.zeros_like(q) if half == 0 else (q / 2 - (top / 4 + bottom / 4)) / (half / 2)  # in [-1, 1]
    return half * (diff @ unit)


def epsilon_max(alpha: np.ndarray, tau: np.ndarray, v: np.ndarray, lam: float, *, log_lam: float | None = None) -> float:
    """sup{eps > 0 : Lambda(eps v) < 1} along direction v (grades), finite when v is not constant;
    0 when <v, alpha - tau> <= 0 (the ray does not enter Q+), so 0 for a constant v, along which
    Lambda = 1 (``first_order_certificate``). Prop 8 (iv).

    Solved for s = 2 eps ln(lam) max|v| along the unit direction v / max|v|, in the log domain, so
    huge or tiny grades and bases lam near 1 neither overflow nor stop the search early. The
    result may be inf when it exceeds the double range (then ``ValueError``).

    Precision: the root is where the computed log Lambda changes sign, so log Lambda must keep its
    relative precision where Lambda is near 1, even when small weights hold the whole departure (a
    geometric profile's deepest levels). It is computed as two log-mean-exps of ln g shifted to 0 on the
    heaviest coordinate (see ``f``): against a 60-digit mpmath root, 800 random profiles with weights down to 1e-25
    (``benchmarks/epsilon_max_precision.py``) were within 4e-14 relative. The log of sums near 1 it
    replaces was 20 % off at a weight of 5e-16 and answered 0 at 1e-20. Where alpha and tau differ on
    their heavy coordinates only by delta, the root rests on that difference, and the weights' own rounding
    (1e-16) moves it by about 1e-16/delta relative: 1e-4 at alpha = (1/2 + 2^-40, 1/2 - 2^-40), tau uniform.
    The report prints 4 digits."""
    v = np.asarray(v, dtype=float)
    alpha, tau = np.asarray(alpha, dtype=float), np.asarray(tau, dtype=float)
    log_lam = math.log(lam) if log_lam is None else log_lam
    scale = float(np.max(np.abs(v)))
    if not math.isfinite(scale):
        return math.nan
    if first_order_certificate(alpha, tau, v) <= 0:
        return 0.0
    unit = v / scale
    if np.all(unit[alpha > 0] == unit.max()):
        # alpha lives where v is largest: Lambda(eps v) = A sum_k tau_k lam^(2 eps (v_k - max v)) falls
        # from 1 along the whole ray. A shortcut: the search below also answers inf here (f, shifted,
        # stays negative), but only after doubling its bracket about 1,000 times up to the 1e300 cut-off
        return math.inf
    la, lt = log_profiles(alpha, tau)

    # f(s) = ln Lambda at ln g = s unit / 2 (log_gain's value), as two log-mean-exps: near the root Lambda
    # is 1 + a departure that small weights hold far below 1e-16 (geometric profiles), which the log of a
    # sum near 1 would round away. Lambda is blind to a common factor of g, so ln g is shifted to 0 on the
    # heaviest coordinate: its weight then adds nothing to either factor, where its two O(s) terms would
    # cancel between them. The shift is one of unit's own values: a shift from outside (the profiles' mean)
    # rounds away the differences of unit's tiny entries, which decide eps_max at the top of the range
    wa, wt = np.exp(la), np.exp(lt)
    shifted = unit - unit[int(np.argmax(wa + wt))]

    def f(s: float) -> float:
        return log_mean_exp(la, -s * shifted, w=wa) + log_mean_exp(lt, s * shifted, w=wt)

    hi = 1.0
    while f(hi) < 0:
        hi *= 2
        if hi > 1e300:
            return math.inf
    lo = hi / 2
    while f(lo) >= 0:
        lo /= 2
        if lo < 1e-300:
            return 0.0  # the admissible part of the ray is below double resolution
    s_max = bracketed_root(f, lo, hi, rtol=1e-14)
    eps = s_max / (2 * log_lam) / scale
    if not math.isfinite(eps):
        raise ValueError("eps_max exceeds the double range")
    return eps
