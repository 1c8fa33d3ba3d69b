"""Deterministic quadrature of the score-model observable A(gamma) and of the plateau p_inf.

With target mu + tau Z_0 (tau = sigma_t s / 2) and distractors s Z_j (s = distractor s.d.),

    A = E_{Z_0}[ F(mu + tau Z_0) ],   F(a) = E[1 / (1 + e^{-a} S)],   S = sum_{j<=m} e^{s Z_j}.

Route (psa.md §3.4, issue 5): 1/(1 + X) = int_0^oo e^{-t(1 + X)} dt, so with y = ln t - a

    F(a) = int exp(y + a - e^{y + a}) phi(y)^m dy,     phi(y) = E_Z exp(-e^{y + s Z}),

and phi depends only on (gamma, y): it is tabulated once per gamma on a uniform y-grid, as its
complement 1 - phi so that phi^m keeps its precision up to m = 10^6, and shared by every (d_k, T).
The outer average over Z_0 is a trapezoid in Z_0 while the target noise tau is at most max(1, s),
the scale on which F climbs; beyond it (sigma_t > 2) it is taken over the target score
a = mu + tau Z_0 instead (``_average_over_the_target_score``). All integrals are trapezoid sums on
uniform grids of smooth, rapidly decaying integrands (spectrally accurate); the error estimate is
the change when every grid spacing is doubled, which sees neither rounding (a few units in the last
place of A: up to 5e-16 at s = 512, against tests/test_phase.py's ``swapped_order_a``) nor a truncation
(or a bias of the node positions, see ``_conditional_masses``).
Truncations are therefore placed where the neglected mass is at most 4e-18: phi = 1 for
y < -10.5s - 60 (1 - phi < 1e-25 there, so phi^m = 1 to 1e-19 for every m <= 10^6), phi = 0 for
y > 9s + 5, the t-window is y + a in [-40, 4.5] (4e-18), and the outer Z_0 integral stops at 9 s.d.
(2e-19).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import integrate, special

from attncert.solvers.score_model import ScoreModel, chance

_V_HI = 4.5  # exp(-e^v) is 0 above (to 1e-39)
# lower end of the remainder rho ~ e^v in _phi_complement_table: it drops mass e^-50 = 2e-22 from
# q, which phi^m multiplies by m <= 10^6 (at -40, 4e-18 from q moved A by 4e-13 at T = 10^6)
_V_LO = -50.0
_RHO_HI = 9.5  # 1 - exp(-e^v) - Phi(v) is below 2e-21 beyond this
_Z_MAX = 9.0  # standard normal mass beyond 9 s.d. is 1e-19
# lower end of the phi table in y, -(_Z_LEFT s + _Y_LEFT): below it q = 1 - phi < 1e-25 (q(y) <= P(Z > -y/s)
# + e^{y + s^2/2} P(Z < -y/s - s): 4e-26 from the normal tail at large s, e^-60 = 9e-27 at small s), which
# phi^m multiplies by m <= 10^6. From -9s - 45, phi(y0)^m was 1 - 5e-14 at s = 512 and 1 - 3e-14 as s -> 0,
# and A as far off at T = 10^6 wherever the t-window sat just below the table (set 136).
_Z_LEFT = 10.5
_Y_LEFT = 60.0
# the outer Z_0 integral's reach, whose integrand is at most 1: neglected mass 2e-19. At 8 s.d. (1e-15) A was
# up to 7.8e-16 below a route that averages over the target score first (tests/test_phase.py,
# swapped_order_a), seven times the printed error estimate: a truncation bias, which step doubling cannot see
_Z0_MAX = 9.0
# lower end of the t-window in y + a: neglected mass 1 - exp(-e^-40) = 4e-18. The truncation biases
# A one way and step doubling cannot see it, so it must sit below the printed error estimate
# (at -23 the bias, 1e-10, was seven times the estimate on the fig7 grid).
_W_LO = -40.0


@dataclass(frozen=True)
class QuadratureResult:
    """A(gamma) on the grid, shape (len(d_ks), len(Ts), len(gammas)), with its error estimate."""

    values: np.ndarray
    error_estimate: np.ndarray


def _normal_pdf(x: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _symmetric_nodes(half_width: float, spacing: float) -> np.ndarray:
    """Trapezoid nodes k * spacing, |k| <= ceil(half_width / spacing): exactly the spacing the
    weights assume. np.arange(-half_width, ..., spacing) steps by (-half_width + spacing) +
    half_width instead, up to 1.4e-14 wider at spacing 0.05, which biased every sum by as much."""
    reach = math.ceil(half_width / spacing)
    return spacing * np.arange(-reach, reach + 1)


def _table_ends(s: float) -> tuple[float, float]:
    """The y-range [-10.5s - 60, 9s + 5] of the phi table: phi^m is 1 below it (to 1e-19 for
    m <= 10^6) and phi is 0 above it (to 1e-19)."""
    return -(_Z_LEFT * s + _Y_LEFT), _Z_MAX * s + 5.0


def _target_score_ends(s: float) -> tuple[float, float]:
    """[a_lo, a_hi] = [-9s - 45, 10.5s + 65]: the phi table's ends seen through the t-window. Below a_lo
    the window lies above the table, where phi^m <= 1e-19, so F_m(a) is 0; above a_hi it lies below the
    table, where phi^m = 1, so F_m(a) is the window's Gumbel mass F_0(a) = 1 - 4e-18."""
    lo, hi = _table_ends(s)
    return _W_LO - hi, 5.0 - lo


def _phi_complement_table(s: float, h: float) -> tuple[float, np.ndarray]:
    """q(y) = 1 - phi(y) = E[1 - exp(-e^{y + s Z})] on y = y0 + h k over [-10.5s - 60, 9s + 5]
    (``_table_ends``); returns (y0, values).

    The complement, not phi: phi^m is taken as exp(m log1p(-q)) (_padded_powers), and with
    m = T - 2 up to 10^6 an absolute rounding of phi near 1 (1e-16) would be raised to the m-th
    power, moving A by up to 9.9e-11 at T = 10^6; q keeps its relative precision there."""
    lo, hi = _table_ends(s)
    y0 = math.floor(lo / h) * h
    y = y0 + h * np.arange(math.ceil((hi - y0) / h) + 1)
    if s <= 1.0:
        # 1 - exp(-e^{y + s z}) varies on the z-scale 1/s >= 1: a plain trapezoid in z
        z = _symmetric_nodes(_Z_MAX, h / 2)
        weights = _normal_pdf(z) * (h / 2)
        values = -np.expm1(-np.exp(y[:, None] + s * z[None, :])) @ weights
        return y0, np.clip(values, 0.0, 1.0)
    # v = y + s z: q(y) = int f(v) N((v - y)/s)/s dv with f(v) = 1 - exp(-e^v). f tends to 1 on the
    # right, so split off the smooth step Phi(v), whose convolution is Phi(y/sqrt(s^2 + 1)): the
    # remainder rho = f - Phi(v), positive, decays at both ends (like e^v on the left, like a Gaussian
    # on the right), so its trapezoid sum has no endpoint error.
    j_lo, j_hi = math.ceil((_V_LO - y0) / h), math.floor((_RHO_HI - y0) / h)
    v = y0 + h * np.arange(j_lo, j_hi + 1)
    rho = -np.expm1(-np.exp(v)) - special.ndtr(v)
    # The kernel spans the largest |j - k| between rho's window and the grid, so that window is the
    # only cut. Cut at 9 s.d. instead, it dropped up to 1e-19 rho from q: 7e-13 of q at s = 2,
    # y = -20, which m = 10^6 distractors raised to 2.7e-15 in A (against a long-double route).
    reach = max(j_hi, len(y) - 1 - j_lo)
    kernel = _normal_pdf(h * np.arange(-reach, reach + 1) / s) / s
    # q_k = h sum_j rho_j K((j - k) h): a discrete convolution with the symmetric kernel;
    # conv index i corresponds to the y-index k = j_lo + i - reach, so every k has one
    conv = np.convolve(rho, kernel) * h
    values = special.ndtr(y / math.sqrt(s * s + 1.0)) + conv[np.arange(len(y)) - j_lo + reach]
    return y0, np.clip(values, 0.0, 1.0)


def _padded_powers(q: np.ndarray, ms: Sequence[int]) -> dict[int, np.ndarray]:
    """phi^m = exp(m log1p(-q)) for each m, q = 1 - phi (_phi_complement_table), padded with 1
    below the table and 0 above it, where phi is 1 and 0: one table per gamma, shared by every
    block of target scores and every d_k."""
    with np.errstate(divide="ignore"):  # phi = 0 (q = 1): log phi = -inf, and phi^m = 0
        log_phi = np.log1p(-q)
    tables = {}
    for m in ms:
        # phi^0 = 1 even where phi = 0, where m log phi would be 0 * -inf = NaN
        power = np.exp(m * log_phi) if m else np.ones_like(q)
        tables[m] = np.concatenate(([1.0], power, [0.0]))
    return tables


def _conditional_masses(a: np.ndarray, tables: dict[int, np.ndarray], y0: float, h: float) -> dict[int, np.ndarray]:
    """F_m(a) = int exp(y + a - e^{y + a}) phi(y)^m dy for each a and each m of ``tables``
    (_padded_powers), a trapezoid on the phi grid.

    The t-window is y + a in [W_LO, V_HI]: the weight's mass below it is 1 - exp(-e^{W_LO}) = 4e-18."""
    window = math.ceil((_V_HI - _W_LO) / h) + 1
    start = np.ceil((_W_LO - a - y0) / h).astype(np.int64)
    idx = start[:, None] + np.arange(window)[None, :]
    # the weight e^w exp(-e^w) at the nodes w = y0 + h idx + a: e^w is formed as e^{y0 + h start + a} e^{h j}
    # (j = idx - start) from long-double exponents, which places every node to 1e-16. In double, y0 + h idx
    # carried the rounding of |y0| (7e-15 at s = 2) into every node, and F_1 was up to 1.0e-15 low (a bias)
    ld = np.longdouble
    e_w = np.exp(ld(y0) + ld(h) * start + a.astype(ld)).astype(float)[:, None] * np.exp(ld(h) * np.arange(window)).astype(float)
    weight = h * e_w * np.exp(-e_w)
    # table index: y-index + 1, clipped to the padding at both ends (phi^m = 1 below, 0 above: _table_ends)
    padded = np.minimum(np.maximum(idx + 1, 0), len(next(iter(tables.values()))) - 1)
    return {m: np.sum(weight * table[padded], axis=1) for m, table in tables.items()}


def work_and_memory(
    model: ScoreModel, d_ks: Sequence[int], Ts: Sequence[int], gammas: Sequence[float], spacing: float = 0.1
) -> tuple[float, int]:
    """(operations, peak bytes) of ``softmax_mass_quadrature``: the phi table spans
    19.5 s + 65 in y and its convolution kernel 21 s + 139, s the distractor s.d. at the largest gamma;
    each (gamma, d_k) then costs a Z_0-nodes x t-window table per distractor count, or, for
    sigma_t > 2, each gamma a target-scores x t-window table, whichever is more."""
    s = max(model.distractor_sd(g) for g in gammas)
    lo, hi = _table_ends(s)
    n_y = (hi - lo) / spacing
    # twice the largest |v - y| between rho's window [V_LO, RHO_HI] and the grid (_phi_complement_table)
    kernel = 2 * max(_RHO_HI - lo, hi - _V_LO) / spacing
    rho = (_RHO_HI - _V_LO) / spacing
    nodes, window = 2 * _Z0_MAX / spacing + 1, (_V_HI - _W_LO) / spacing + 1
    per_gamma = rho * (kernel + 1) + n_y + len(d_ks) * nodes * window * (4 + len(set(Ts)))
    # the y-grid arrays and a padded phi^m table per distractor count (_padded_powers)
    memory = 8 * ((4 + len(set(Ts))) * n_y + 2 * kernel + 6 * nodes * window)
    if model.sigma_t > 2:
        # some gamma may take _average_over_the_target_score (tau > max(1, s) needs sigma_t > 2):
        # F_m on (19.5 s + 110) / spacing target scores, in blocks of the Z_0 route's size, then one
        # dot product per d_k and T
        a_lo, a_hi = _target_score_ends(s)
        n_a = (a_hi - a_lo) / spacing
        by_score = rho * (kernel + 1) + n_y + n_a * (window * (4 + len(set(Ts))) + len(d_ks) * (3 + len(Ts)))
        per_gamma = max(per_gamma, by_score)
        memory += 8 * (len(set(Ts)) + 3) * n_a
    return 1.5 * len(gammas) * per_gamma, int(1.5 * memory)


def _observable(model: ScoreModel, d_ks, Ts, gammas, h: float, on_gamma=None) -> np.ndarray:
    out = np.zeros((len(d_ks), len(Ts), len(gammas)))
    z0 = _symmetric_nodes(_Z0_MAX, h)  # Z_0 nodes; the mass beyond 9 s.d. is 2e-19
    w0 = _normal_pdf(z0) * h
    ms = sorted({T - 2 for T in Ts})
    for g_i, gamma in enumerate(gammas):
        s = model.distractor_sd(gamma)
        tau = model.sigma_t * s / 2
        if s == 0.0:
            out[:, :, g_i] = [chance(T) for T in Ts]
        elif tau > max(1.0, s):
            out[:, :, g_i] = _average_over_the_target_score(model, gamma, d_ks, Ts, s, tau, h)
        else:
            y0, q = _phi_complement_table(s, h)
            tables = _padded_powers(q, ms)
            nodes, weights = (z0, w0) if tau > 0 else (np.zeros(1), np.ones(1))
            for d_i, d_k in enumerate(d_ks):
                masses = _conditional_masses(model.target_mean(gamma, d_k) + tau * nodes, tables, y0, h)
                for t_i, T in enumerate(Ts):
                    out[d_i, t_i, g_i] = weights @ masses[T - 2]
        # every gamma counts, the chance point too: progress must reach its total
        if on_gamma is not None:
            on_gamma()
    return out


def _average_over_the_target_score(model: ScoreModel, gamma: float, d_ks, Ts, s: float, tau: float, h: float) -> np.ndarray:
    """A at one gamma, shape (len(d_ks), len(Ts)), integrated over the target score a = mu + tau Z_0.

    F_m climbs on the a-scale max(1, s), a Z_0-width of max(1, s)/tau: once tau exceeds max(1, s)
    (sigma_t > 2) the Z_0-trapezoid loses accuracy: it was off by 1e-2 at sigma_t = 1000 and 2e-2
    at 10^4, as its error estimate said. In a, F_m is 0 below a_lo = -9s - 45 and 1 above
    a_hi = 10.5s + 65 (``_target_score_ends``), and it is shared by every
    d_k. The smooth step H(a) = Phi((a - c)/w), with a_lo and a_hi at -9 and +9 of its s.d., has
    the Gaussian average Phi((mu - c)/sqrt(w^2 + tau^2)); the rest F_m - H vanishes at both ends of
    the window, so its trapezoid sum against the N(mu, tau^2) density has no endpoint error."""
    y0, q = _phi_complement_table(s, h)
    tables = _padded_powers(q, sorted({T - 2 for T in Ts}))
    a_lo, a_hi = _target_score_ends(s)
    c, w = (a_lo + a_hi) / 2, (a_hi - a_lo) / (2 * _Z_MAX)
    a = c + _symmetric_nodes(a_hi - c, h)
    step = special.ndtr((a - c) / w)
    # F_m in blocks of as many target scores as the Z_0 route has nodes: the same peak memory
    block = len(_symmetric_nodes(_Z0_MAX, h))
    rest = {m: np.full_like(a, np.nan) for m in tables}  # NaN, not empty: a node the blocks missed shows
    for lo in range(0, len(a), block):
        for m, mass in _conditional_masses(a[lo : lo + block], tables, y0, h).items():
            rest[m][lo : lo + block] = mass - step[lo : lo + block]
    out = np.empty((len(d_ks), len(Ts)))
    for d_i, d_k in enumerate(d_ks):
        mu = model.target_mean(gamma, d_k)
        density = _normal_pdf((a - mu) / tau) * (h / tau)
        smooth = special.ndtr((mu - c) / math.hypot(w, tau))
        out[d_i] = [smooth + density @ rest[T - 2] for T in Ts]
    return out


def softmax_mass_quadrature(
    model: ScoreModel,
    *,
    d_ks: Sequence[int],
    Ts: Sequence[int],
    gammas: Sequence[float],
    spacing: float = 0.1,
    on_gamma: Callable[[], None] | None = None,
) -> QuadratureResult:
    """A(gamma) by quadrature with grid ``spacing``; the error estimate is |A(h) - A(2h)|.
    ``on_gamma()`` is called after each gamma of each of the two passes (progress)."""
    if min(Ts) < 3:
        raise ValueError(f"T must be >= 3 (one target and at least one distractor), not {min(Ts)}")
    fine = _observable(model, d_ks, Ts, gammas, spacing, on_gamma)
    coarse = _observable(model, d_ks, Ts, gammas, 2 * spacing, on_gamma)
    return QuadratureResult(values=fine, error_estimate=np.abs(fine - coarse))


def plateau_quadrature(d_k: float, T: int, sigma_t: float = 2.0) -> float:
    """p_inf(d_k, m) = int phi(z) Phi((sqrt(d_k) + sigma_t z)/2)^m dz (Eq. 51), m = T - 2, by
    adaptive Gauss-Kronrod (scipy.integrate.quad) to 1e-12 absolute.

    Phi^m is taken as exp(m log Phi): Phi rounded near 1 and raised to m = 10^6 was 1e-11 off
    (d_k = 256, sigma_t = 1), ten times the tolerance; log_ndtr keeps log Phi's relative precision."""
    m = T - 2
    if sigma_t == 0:
        return math.exp(m * special.log_ndtr(math.sqrt(d_k) / 2))
    value, _ = integrate.quad(
        lambda z: math.exp(m * special.log_ndtr((math.sqrt(d_k) + sigma_t * z) / 2) - 0.5 * z * z) / math.sqrt(2 * math.pi),
        -12.0,
        12.0,
        epsabs=1e-12,
        epsrel=1e-12,
        limit=200,
        points=_step_points(d_k, m, sigma_t),
    )
    return float(value)


def _step_points(d_k: float, m: int, sigma_t: float) -> list[float] | None:
    """Where Phi((sqrt(d_k) + sigma_t z)/2)^m climbs from 0 to 1: the z at which it is 1e-15 and
    1 - 1e-15, kept inside (-12, 12) as quad's documentation asks (quad drops the others itself).

    The climb is about 4/sigma_t wide in z; from sigma_t ~ 100 on, every Gauss-Kronrod node of quad's
    first halves missed it and p_inf came out 0.5 for 0.5095 (d_k = 1000, T = 10^4, sigma_t = 1000).
    Breaking the interval at both ends of the climb puts nodes on it; either end alone left p_inf up
    to 5e-3 off, and a third break point at Phi^m = 1/2 changed nothing."""
    if m == 0:
        return None  # Phi^0 = 1: no step
    x = [
        float(special.ndtri(1e-15 ** (1 / m))),
        -float(special.ndtri(-math.expm1(math.log1p(-1e-15) / m))),  # Phi(x) = (1 - 1e-15)^(1/m), without 1 - tiny
    ]
    z = sorted({(2 * xi - math.sqrt(d_k)) / sigma_t for xi in x})
    return [zi for zi in z if -12.0 < zi < 12.0] or None
