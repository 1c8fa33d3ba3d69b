"""Hierarchical Grading in LLMs (Shaska, 2026): the gain functional and grade selection.

Spec: ``../shared/spec/gllm.md`` (§1.5-§1.11). Pure functions of exact (SymPy) or float
arguments; no I/O. Profiles are probability vectors alpha (target) and tau (data).

Two forms of the same objects: over explicit coordinates (lists, for instances and solvers), and
over a symbolic dimension d (``IndexedProfiles``: sums ``Sum(..., (i, 1, d))``), with the tools
the general proofs use: ``linearize_sums``/``sum_identity`` (linearity of finite sums),
``InductionProof`` (base case and step d -> d + 1, e.g. Lagrange's identity behind Prop 7 (iii)),
``lumped`` (two coordinates and the rest, for partial derivatives) and exact decisions (z3 over the
reals, SymPy matrix-expression canonical forms).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp


def gain(alpha: Sequence, tau: Sequence, g: Sequence) -> sp.Expr:
    """Lambda(g) = (sum_j alpha_j g_j^-2)(sum_j tau_j g_j^2) (Prop 7)."""
    return sum(a / x**2 for a, x in zip(alpha, g, strict=True)) * sum(t * x**2 for t, x in zip(tau, g, strict=True))


def gain_in_grades(alpha: Sequence, tau: Sequence, q: Sequence, lam: sp.Expr) -> sp.Expr:
    """Lambda(q) = (sum alpha_j lam^{-2 q_j})(sum tau_j lam^{2 q_j}), g_j = lam^{q_j}."""
    return gain(alpha, tau, [lam**qj for qj in q])


def log_gain(alpha: Sequence, tau: Sequence, u: Sequence) -> sp.Expr:
    """Phi(u) = log(sum alpha_j e^{-u_j}) + log(sum tau_j e^{u_j}), u_j = 2 q_j log lam."""
    return sp.log(sum(a * sp.exp(-x) for a, x in zip(alpha, u, strict=True))) + sp.log(
        sum(t * sp.exp(x) for t, x in zip(tau, u, strict=True))
    )


def bhattacharyya(alpha: Sequence, tau: Sequence) -> sp.Expr:
    """BC(alpha, tau) = sum_j sqrt(alpha_j tau_j)."""
    return sum(sp.sqrt(a * t) for a, t in zip(alpha, tau, strict=True))


def optimal_multipliers(alpha: Sequence, tau: Sequence) -> list[sp.Expr]:
    """g*_j = alpha_j^{1/4} tau_j^{-1/4} (any positive multiple is optimal too)."""
    return [(a / t) ** sp.Rational(1, 4) for a, t in zip(alpha, tau, strict=True)]


def tilted(p: Sequence, u: Sequence, sign: int) -> list[sp.Expr]:
    """p^(u)_j = p_j e^{sign u_j} / sum_k p_k e^{sign u_k}."""
    weights = [pj * sp.exp(sign * x) for pj, x in zip(p, u, strict=True)]
    total = sum(weights)
    return [w / total for w in weights]


def covariance_matrix(p: Sequence) -> sp.Matrix:
    """C(p) = diag(p) - p p^T."""
    col = sp.Matrix(p)
    return sp.diag(*p) - col * col.T


def geometric_level_terms(nu: sp.Expr, mu: sp.Expr, levels: sp.Expr, level: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(a_l, s_l) = (nu^{L-1-l}/Z_a, mu^l/Z_s) with Z_a = sum_{k<L} nu^k, Z_s = sum_{k<L} mu^k (§1.8);
    ``levels`` and ``level`` may be symbolic."""
    k = sp.Symbol("k", integer=True, nonnegative=True)
    za = sp.Sum(nu**k, (k, 0, levels - 1))
    zs = sp.Sum(mu**k, (k, 0, levels - 1))
    return nu ** (levels - 1 - level) / za, mu**level / zs


def geometric_profiles(nu: sp.Expr, mu: sp.Expr, levels: int) -> tuple[list[sp.Expr], list[sp.Expr]]:
    """a_l = nu^{L-1-l}/Z_a (target, toward the deepest level), s_l = mu^l/Z_s (data) (§1.8)."""
    za = sum(nu**k for k in range(levels))  # the sums of geometric_level_terms at an integer L
    zs = sum(mu**k for k in range(levels))
    return [nu ** (levels - 1 - k) / za for k in range(levels)], [mu**k / zs for k in range(levels)]


def geometric_bc_closed_form(nu: sp.Expr, mu: sp.Expr, levels: sp.Expr) -> sp.Expr:
    """BC(a, s) = nu^{(L-1)/2} / sqrt(Z_a Z_s) * (1 - r^L)/(1 - r), r = sqrt(mu/nu) (Cor 3)."""
    r = sp.sqrt(mu / nu)
    za = (1 - nu**levels) / (1 - nu)
    zs = (1 - mu**levels) / (1 - mu)
    return nu ** ((levels - 1) / sp.Integer(2)) / sp.sqrt(za * zs) * (1 - r**levels) / (1 - r)


def geometric_limit_constant(nu: sp.Expr, mu: sp.Expr) -> sp.Expr:
    """lim_{L -> oo} Lambda* / nu^L = (1 - nu)(1 - mu) / (nu (1 - r)^2) (Cor 3)."""
    r = sp.sqrt(mu / nu)
    return (1 - nu) * (1 - mu) / (nu * (1 - r) ** 2)


def git_form(alpha: Sequence, tau: Sequence, t: Sequence) -> sp.Expr:
    """F(t) = (sum_j alpha_j prod_{k != j} t_k)(sum_l tau_l t_l) - prod_k t_k (Prop 12 (i))."""
    if not len(alpha) == len(tau) == len(t):
        # alpha is read by index into t, so a longer or shorter alpha would give a wrong form silently
        raise ValueError(f"alpha, tau and t must have one length, not {len(alpha)}, {len(tau)} and {len(t)}")
    total = sp.Mul(*t)
    lead = sum(a * sp.Mul(*[tk for k, tk in enumerate(t) if k != j]) for j, a in enumerate(alpha))
    return sp.expand(lead * sum(tl * x for tl, x in zip(tau, t, strict=True)) - total)


def clipped_optimum_from_partition(
    alpha: Sequence, tau: Sequence, clip: sp.Expr, lo: set[int], hi: set[int]
) -> tuple[sp.Expr, list[sp.Expr]]:
    """(Lambda*_C, g^2) for a given active-set partition (§1.9, derived from the KKT conditions):
    interior g_j^2 = k sqrt(alpha_j / tau_j), k = sqrt(T0 / A0),
    Lambda*_C = (sum_interior sqrt(alpha_j tau_j) + sqrt(A0 T0))^2."""
    d = len(alpha)
    a0 = sum(alpha[j] for j in lo) + sum(alpha[j] for j in hi) / clip**2
    t0 = sum(tau[j] for j in lo) + clip**2 * sum(tau[j] for j in hi)
    k = sp.sqrt(t0 / a0)
    g2 = [sp.Integer(1) if j in lo else clip**2 if j in hi else k * sp.sqrt(alpha[j] / tau[j]) for j in range(d)]
    interior = sum(sp.sqrt(alpha[j] * tau[j]) for j in range(d) if j not in lo and j not in hi)
    return (interior + sp.sqrt(a0 * t0)) ** 2, g2


# --- published parameters (one place; gllm.md §1.2, §3.1) ------------------------------------
#: The planned clip C = lambda^{q_max} = 2 (Sec. 7.6, Table 3; GLLM-Medium also sweeps 1.5, 2, 4).
PUBLISHED_CLIP = sp.Integer(2)
#: Table 3: L = 4 levels, d_k = 64 for the q column, and its four (nu, mu) rows; (0.7, 0.3) is [R?].
TABLE3_LEVELS = 4
TABLE3_D_K = 64
TABLE3_ROWS: tuple[tuple[sp.Rational, sp.Rational], ...] = tuple(
    (sp.Rational(nu), sp.Rational(mu)) for nu, mu in (("0.8", "0.4"), ("0.7", "0.3"), ("0.6", "0.3"), ("0.5", "0.2"))
)


# --- general dimension: indexed profiles and sums over a symbolic d ---------------------------
@dataclass(frozen=True)
class IndexedProfiles:
    """Profiles alpha, tau in R^d_{>0} for a symbolic dimension d: ``alpha[i]``, ``tau[i]``, i = 1..d."""

    d: sp.Symbol
    i: sp.Symbol
    alpha: sp.IndexedBase
    tau: sp.IndexedBase

    def total(self, body: sp.Expr) -> sp.Sum:
        """sum_{i=1}^d body."""
        return sp.Sum(body, (self.i, 1, self.d))

    @property
    def simplex(self) -> dict[sp.Sum, sp.Integer]:
        """Substitution for the simplex constraints sum alpha_i = sum tau_i = 1."""
        return {self.total(self.alpha[self.i]): sp.Integer(1), self.total(self.tau[self.i]): sp.Integer(1)}


def indexed_profiles() -> IndexedProfiles:
    """Positive profiles of symbolic length d (Def. 2)."""
    return IndexedProfiles(
        d=sp.Symbol("d", integer=True, positive=True),
        i=sp.Symbol("i", integer=True, positive=True),
        alpha=sp.IndexedBase("alpha", positive=True),
        tau=sp.IndexedBase("tau", positive=True),
    )


def _split_sum(s: sp.Sum) -> sp.Expr:
    """Linearity of a finite (possibly multiple) sum: expand the summand, split it and pull out the
    factors free of every summation index."""
    indices = [lim[0] for lim in s.limits]
    total = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(s.function)):
        const, dep = term.as_independent(*indices, as_Add=False)
        if dep == 1 and len(s.limits) == 1:  # a sum of ones counts its range
            total += const * (s.limits[0][2] - s.limits[0][1] + 1)
        else:
            total += const * sp.Sum(dep, *s.limits)
    return total


_INDEX = sp.Symbol("i", integer=True, positive=True)


def _canonical(s: sp.Sum) -> sp.Sum:
    """Rename the bound index of a single sum to ``i`` (bound variables are dummies)."""
    if len(s.limits) != 1:
        return s
    idx, lo, hi = s.limits[0]
    return s if idx == _INDEX else sp.Sum(s.function.xreplace({idx: _INDEX}), (_INDEX, lo, hi))


def linearize_sums(expr: sp.Expr) -> sp.Expr:
    """Normal form of an expression in finite sums: every sum split by linearity (a canonical
    linear combination of sums of monomials, bound index renamed to ``i``), then expanded. Valid
    for any symbolic bound."""
    split = sp.expand(expr).replace(lambda e: isinstance(e, sp.Sum), _split_sum)
    return sp.expand(split.replace(lambda e: isinstance(e, sp.Sum), _canonical))


def sum_identity(lhs: sp.Expr, rhs: sp.Expr, given: dict | None = None) -> sp.Expr:
    """The residual of lhs = rhs as a polynomial in atoms: both sides in the linear normal form of
    :func:`linearize_sums` (then ``given`` substituted, e.g. the simplex), every remaining sum
    replaced by a fresh symbol. It expands to 0 when the identity holds by linearity alone (sound:
    distinct atoms are treated as independent, so a nonzero residual only means "not shown")."""
    diff = linearize_sums(lhs) - linearize_sums(rhs)
    if given:
        diff = sp.expand(diff.subs(given))
    sums = sorted(diff.atoms(sp.Sum), key=sp.default_sort_key)
    return sp.expand(diff.xreplace({s: sp.Symbol(f"Sigma{n}") for n, s in enumerate(sums)}))


def gain_general(p: IndexedProfiles, g_i: sp.Expr, alpha_i: sp.Expr | None = None, tau_i: sp.Expr | None = None) -> sp.Expr:
    """Lambda(g) = (sum_i alpha_i g_i^-2)(sum_i tau_i g_i^2) for symbolic d (Prop 7); ``g_i`` (and
    optionally the profiles' terms) are expressions in the index ``p.i``."""
    a = p.alpha[p.i] if alpha_i is None else alpha_i
    t = p.tau[p.i] if tau_i is None else tau_i
    return p.total(a / g_i**2) * p.total(t * g_i**2)


def bhattacharyya_general(p: IndexedProfiles) -> sp.Expr:
    """BC(alpha, tau) = sum_i sqrt(alpha_i tau_i) for symbolic d."""
    return p.total(sp.sqrt(p.alpha[p.i] * p.tau[p.i]))


def tilted_general(p: IndexedProfiles, weight: sp.Expr, u_i: sp.Expr, sign: int) -> sp.Expr:
    """The tilted profile's i-th term weight_i e^{sign u_i} / sum_k weight_k e^{sign u_k}, symbolic d."""
    return weight * sp.exp(sign * u_i) / p.total(weight * sp.exp(sign * u_i))


def log_gain_along_ray(p: IndexedProfiles, v: sp.IndexedBase, eps: sp.Symbol, log_lam: sp.Symbol) -> sp.Expr:
    """log Lambda(eps v) = log sum alpha_i lam^{-2 eps v_i} + log sum tau_i lam^{2 eps v_i}, symbolic d (Prop 8)."""
    i = p.i
    return sp.log(p.total(p.alpha[i] * sp.exp(-2 * log_lam * eps * v[i]))) + sp.log(
        p.total(p.tau[i] * sp.exp(2 * log_lam * eps * v[i]))
    )


@dataclass(frozen=True)
class InductionProof:
    """An identity S(d) = 0 for every d >= 1: ``base`` is S(1), ``step`` is S(d+1) - S(d) in normal form,
    ``variable`` is d. Induction covers the positive integers only, so d must be declared one: a step taken
    in a real d would be an algebraic identity, not the induction step the proof cites."""

    statement: str
    variable: sp.Symbol
    base: sp.Expr
    step: sp.Expr

    def __post_init__(self) -> None:
        if not (self.variable.is_integer and self.variable.is_positive):
            raise ValueError(f"{self.statement}: induction on {self.variable} needs it declared a positive integer")


def _peel(s: sp.Sum) -> sp.Expr:
    """sum_{k=lo}^{hi} f(k) = sum_{k=lo}^{hi-1} f(k) + f(hi) on the outermost index (the definition of a
    finite sum)."""
    *inner, (idx, lo, hi) = s.limits
    top = sp.Sum(s.function, *inner).subs(idx, hi) if inner else s.function.subs(idx, hi)
    if hi - lo == 0:  # the remaining range is empty: the sum is its top term
        return top
    return sp.Sum(s.function, *inner, (idx, lo, hi - 1)) + top


def lagrange_identity() -> tuple[sp.IndexedBase, sp.IndexedBase, sp.Symbol, InductionProof]:
    """Lagrange's identity (sum x_i^2)(sum y_i^2) - (sum x_i y_i)^2 = sum_{i<j} (x_i y_j - x_j y_i)^2,
    proved by induction on d: base d = 1, and the step d -> d + 1 (peel the top index of every sum,
    then linearity). Returns (x, y, d, proof)."""
    x, y = sp.IndexedBase("x", real=True), sp.IndexedBase("y", real=True)
    d = sp.Symbol("d", integer=True, positive=True)
    i, j = sp.symbols("i j", integer=True, positive=True)

    def residual(n: sp.Expr) -> sp.Expr:
        sx = sp.Sum(x[i] ** 2, (i, 1, n))
        sy = sp.Sum(y[i] ** 2, (i, 1, n))
        sxy = sp.Sum(x[i] * y[i], (i, 1, n))
        pairs = sp.Sum(sp.Sum((x[i] * y[j] - x[j] * y[i]) ** 2, (i, 1, j - 1)), (j, 1, n))
        return sx * sy - sxy**2 - pairs

    # at d = 1 every sum is its top term plus an empty sum; the double one (which SymPy holds as one Sum of
    # two limits, beyond doit since its inner bound j - 1 is the outer index) needs the peel
    base = residual(sp.Integer(1)).replace(lambda e: isinstance(e, sp.Sum), _peel).doit()
    upper = residual(d + 1).replace(lambda e: isinstance(e, sp.Sum) and e.limits[-1][2] == d + 1, _peel)
    step = linearize_sums(sp.expand(upper.doit(deep=False)) - residual(d))
    return x, y, d, InductionProof("Lagrange identity", d, base, step)


def lagrange_pair_term(alpha_i: sp.Expr, alpha_j: sp.Expr, tau_i: sp.Expr, tau_j: sp.Expr, g_i: sp.Expr, g_j: sp.Expr) -> sp.Expr:
    """x_i y_j - x_j y_i with x = sqrt(alpha)/g, y = sqrt(tau) g: the pair term of Lambda(g) - BC^2."""
    return sp.sqrt(alpha_i) / g_i * sp.sqrt(tau_j) * g_j - sp.sqrt(alpha_j) / g_j * sp.sqrt(tau_i) * g_i


def balance(alpha_j: sp.Expr, tau_j: sp.Expr, g_j: sp.Expr) -> sp.Expr:
    """h_j = g_j^2 sqrt(tau_j / alpha_j): Lambda(g) = BC^2 iff h is constant (Prop 7 (iii) equality case)."""
    return g_j**2 * sp.sqrt(tau_j / alpha_j)


def lumped(name: str) -> list[sp.Symbol]:
    """[R, p_j, p_k]: a profile seen from two coordinates j != k, all others lumped into one term R >= 0
    with u = 0 (R = sum_{i != j, k} p_i e^{-+u_i} does not depend on u_j, u_k). Every partial derivative
    in (u_j, u_k) of Phi only sees this structure, so identities for it hold for every d >= 2."""
    rest = sp.Symbol(f"R_{name}", nonnegative=True)
    return [rest, *sp.symbols(f"{name}_j {name}_k", positive=True)]


def variance_general(p: IndexedProfiles, weights: sp.IndexedBase, v: sp.IndexedBase) -> tuple[sp.Expr, sp.Expr]:
    """(v^T C(p) v, sum_i p_i (v_i - m)^2) with m = sum p_i v_i, for symbolic d: the quadratic form of
    C(p) = diag(p) - p p^T and the variance as a sum of nonnegative terms (they agree on the simplex)."""
    i = p.i
    k = sp.Symbol("k", integer=True, positive=True)
    mean = sp.Sum(weights[k] * v[k], (k, 1, p.d))
    return p.total(weights[i] * v[i] ** 2) - mean**2, p.total(weights[i] * (v[i] - mean) ** 2)


def grading_overhead(d: int, layers: int, heads: int, vocab: int) -> int:
    """Parameters a GLLM adds (Sec. 8.1.3): d^2 (the level bases P) + K H d_k (per-layer head grades) + d (level
    grades) + |V| (output grades), with d_k = d / H and K layers."""
    return d**2 + layers * heads * (d // heads) + d + vocab


#: Sec. 8.1.3 configurations: (d, layers K, heads H, |V|, total parameters).
GLLM_MEDIUM = (1024, 24, 16, 50_257, 345 * 10**6)
GLLM_7B = (4096, 32, 32, 32_000, 7 * 10**9)


# --- Sec. 2 background: CLM loss, parameter and operation counts, compute-optimal allocation ---------
def cross_entropy(total, p_i: sp.Expr, q_i: sp.Expr) -> sp.Expr:
    """-sum_i p_i log q_i (the expected CLM loss of one position, Lemma 1); ``total`` sums over the index."""
    return -total(p_i * sp.log(q_i))


def entropy(total, p_i: sp.Expr) -> sp.Expr:
    """H(p) = -sum_i p_i log p_i."""
    return -total(p_i * sp.log(p_i))


def kl_divergence(total, p_i: sp.Expr, q_i: sp.Expr) -> sp.Expr:
    """D_KL(p || q) = sum_i p_i log(p_i / q_i)."""
    return total(p_i * sp.log(p_i / q_i))


def block_parameter_counts(d: sp.Expr, heads: sp.Expr, ffn_factor: int = 4) -> dict[str, sp.Expr]:
    """Parameters of one pre-norm block (Prop 1): attention H (3 d d_k) + H d_v d = 4 d^2 with d_k = d_v = d/H;
    FFN 2 d d_ff = 8 d^2 with d_ff = 4 d; the O(d) rest (biases b_1, b_2, two RMSNorm gains)."""
    d_k = d / heads
    d_ff = ffn_factor * d
    return {
        "attention": heads * 3 * d * d_k + heads * d_k * d,
        "ffn": 2 * d * d_ff,
        "linear": d_ff + d + 2 * d,
    }


def layer_operation_counts(n: sp.Expr, d: sp.Expr, heads: sp.Expr, graded: bool = False) -> dict[str, sp.Expr]:
    """Multiply-accumulate counts of one layer (Prop 2; Prop 4 with ``graded``): Q, K, V and output projections
    4 n d^2; scores and weighted values H * 2 n^2 d_k = 2 n^2 d; FFN 2 n d d_ff = 8 n d^2; softmax and norms
    O(n^2 H + n d). EG-MHSA adds the column scalings Q M, K M, V M: 3 n d."""
    d_k = d / heads
    counts = {
        "projections": 4 * n * d**2,
        "attention": heads * 2 * n**2 * d_k,
        "ffn": 8 * n * d**2,
        "softmax_and_norms": heads * n**2 + 2 * n * d,
    }
    if graded:
        counts["grading"] = 3 * n * d
    return counts


def compute_optimal_allocation(
    alpha: sp.Expr, beta: sp.Expr, a: sp.Expr, b: sp.Expr, compute: sp.Expr
) -> tuple[sp.Expr, sp.Expr]:
    """(N*, D*) minimising A/N^alpha + B/D^beta subject to 6 N D = C (Prop 3, Eq. 10): the stationary point
    alpha A N^-alpha = beta B D^-beta with D = C/(6N)."""
    n = (alpha * a / (beta * b)) ** (1 / (alpha + beta)) * (compute / 6) ** (beta / (alpha + beta))
    return n, compute / (6 * n)


#: Chinchilla exponents of Eq. 10 (Prop 3).
CHINCHILLA_ALPHA = sp.Rational(34, 100)
CHINCHILLA_BETA = sp.Rational(28, 100)


# --- Sec. 5: the weighted loss, the graded softmax and the penalties ---------------------------------
def weighted_loss_minimiser(total, w_i: sp.Expr, p_i: sp.Expr) -> sp.Expr:
    """argmin over the simplex of -sum_v w_v p_v log q_v: q_v = w_v p_v / sum_u w_u p_u (Prop 9)."""
    return w_i * p_i / total(w_i * p_i)


def graded_softmax(total, z_i: sp.Expr, q_i: sp.Expr, kappa: sp.Expr) -> sp.Expr:
    """softmax(z + kappa q_out)_i (Eq. 18)."""
    return sp.exp(z_i + kappa * q_i) / total(sp.exp(z_i + kappa * q_i))


def polarisation_identity() -> tuple[sp.IndexedBase, sp.Symbol, InductionProof]:
    """sum_{h<h'} (x_h - x_h')^2 = H sum_h x_h^2 - (sum_h x_h)^2 (Sec. 5.2; coordinatewise, so it holds for vector
    grades q_h), by induction on H: base H = 1, step H -> H + 1 (peel the top index, then linearity)."""
    x = sp.IndexedBase("x", real=True)
    heads = sp.Symbol("H", integer=True, positive=True)
    h, k = sp.symbols("h k", integer=True, positive=True)

    def residual(n: sp.Expr) -> sp.Expr:
        pairs = sp.Sum(sp.Sum((x[h] - x[k]) ** 2, (h, 1, k - 1)), (k, 1, n))
        return pairs - n * sp.Sum(x[h] ** 2, (h, 1, n)) + sp.Sum(x[h], (h, 1, n)) ** 2

    def peel_top(e: sp.Expr, n: sp.Expr) -> sp.Expr:
        return e.replace(lambda s: isinstance(s, sp.Sum) and s.limits[-1][2] == n, _peel)

    base = peel_top(residual(sp.Integer(1)), sp.Integer(1)).doit()
    step = linearize_sums(sp.expand(peel_top(residual(heads + 1), heads + 1)) - residual(heads))
    return x, heads, InductionProof("polarisation identity", heads, base, step)


def grade_base(d_k: sp.Expr) -> sp.Expr:
    """lambda = e^{1/d_k} (§1.2)."""
    return sp.exp(1 / d_k)


def max_grade(d_k: sp.Expr, clip: sp.Expr) -> sp.Expr:
    """q_max = d_k ln C, so that lambda^{q_max} = C (§1.2)."""
    return d_k * sp.log(clip)


def git_form_general(p: IndexedProfiles, t: sp.IndexedBase) -> tuple[sp.Expr, sp.Expr]:
    """(F(t), prod_k t_k) for symbolic d (Prop 12 (i)): F = (sum_j alpha_j prod_{k != j} t_k)(sum_l tau_l t_l) - prod t,
    with prod_{k != j} t_k written as prod_{k < j} t_k * prod_{k > j} t_k."""
    k, j = sp.Symbol("k", integer=True, positive=True), p.i
    others = sp.Product(t[k], (k, 1, j - 1)) * sp.Product(t[k], (k, j + 1, p.d))
    total = sp.Product(t[k], (k, 1, p.d))
    return p.total(p.alpha[j] * others) * p.total(p.tau[j] * t[j]) - total, total


def split_products(expr: sp.Expr, total: sp.Product) -> sp.Expr:
    """prod_{k < j} t_k * prod_{k > j} t_k = (prod_k t_k) / t_j for 1 <= j <= d: the definition of a finite product
    split at j, applied inside every sum over j of ``expr``."""
    (k, lo, hi) = total.limits[0]

    def inside(s: sp.Sum) -> sp.Sum:
        j = s.limits[0][0]
        pair = sp.Product(total.function, (k, lo, j - 1)) * sp.Product(total.function, (k, j + 1, hi))
        return sp.Sum(s.function.subs(pair, total / total.function.subs(k, j)), *s.limits)

    return expr.replace(lambda e: isinstance(e, sp.Sum), inside)


# --- Sec. 4.3: the minimax window of Lemma 4 / Thm 4.1 (§1.11) ----------------------------------------
#: c_0 = ln 2 / 64 (Lemma 3); Lemma 4's c_4 = min{c_0/8, c_5 c_0/32} <= c_0/8.
MINIMAX_C0 = sp.log(2) / 64


def saturation_size(d: sp.Expr, levels: sp.Expr, s0: sp.Expr, sigma_xi: sp.Expr) -> sp.Expr:
    """m_sat = d_0 sigma_xi^2 / cap^unif_0 = d^2 sigma_xi^2 / (L^2 s_0) with d_l = d/L (§1.11)."""
    return sp.sympify(d) ** 2 * sigma_xi**2 / (levels**2 * s0)


def window_top(d: sp.Expr, levels: sp.Expr, s0: sp.Expr, sigma_xi: sp.Expr = 1) -> sp.Expr:
    """The largest m of the window W = {m in N : 4 <= m <= m_sat / 2} (Thm 4.1)."""
    return sp.floor(saturation_size(d, levels, s0, sigma_xi) / 2)


def cap_ratio(a: Sequence, g: Sequence):
    """cap^gr_0 / cap^unif_0 = g_0^2 sum_k a_k g_k^-2 (Lemma 4 (iv))."""
    return g[0] ** 2 * sum(ak / gk**2 for ak, gk in zip(a, g, strict=True))


# --- Sec. 4.1: the MLGE grading operator and Prop 6's two readings ------------------------------------
def level_grading_operator(bases: Sequence, level_grades: Sequence, lam):
    """G = sum_l P_l M_{q_l, lambda} P_l^T (Eq. 13) for SymPy matrices or numpy arrays P_l (d x d_l) and per-level
    grade vectors q_l."""
    terms = []
    for p_l, q_l in zip(bases, level_grades, strict=True):
        scale = [lam**q for q in q_l]
        scaled = p_l * sp.Matrix([scale]) if isinstance(p_l, sp.MatrixBase) else p_l * scale  # P_l M (columns scaled)
        terms.append(scaled @ p_l.T)
    return sum(terms[1:], terms[0])


def prop6_view(basis, operator, reading: str):
    """The matrix Prop 6 compares with the block matrix (+)_l M_{q_l}: the Gram reading P^T G P or the
    change-of-basis reading P^{-1} G P, with P = [P_0 | ... | P_{L-1}] (erratum E5)."""
    if reading == "gram":
        return basis.T @ operator @ basis
    inverse = basis.inv() if isinstance(basis, sp.MatrixBase) else np.linalg.inv(basis)
    return inverse @ operator @ basis
