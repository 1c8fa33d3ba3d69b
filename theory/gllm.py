"""Hierarchical Grading in LLMs (Shaska, 2026): the gain functional and grade selection.

Spec: ``../shared/spec/gllm.md`` (§1.5-§1.11). Pure functions of exact (SymPy) or float
arguments; no I/O. Profiles are probability vectors alpha (target) and tau (data).
"""

from __future__ import annotations

from collections.abc import Sequence

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


def geometric_profiles(nu: sp.Expr, mu: sp.Expr, levels: int) -> tuple[list[sp.Expr], list[sp.Expr]]:
    """a_l = nu^{L-1-l}/Z_a (target, toward the deepest level), s_l = mu^l/Z_s (data) (§1.8)."""
    za = sum(nu**k for k in range(levels))
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
