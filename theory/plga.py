"""Power law graph attention / PLDR-LLM (Gokden, 2026): the mathematics.

Spec: ``../shared/spec/plga.md`` (§1). Exact where possible: RoPE frequencies are algebraic
numbers base^{-2(j-1)/d_k}, the NOTEARS function is h(M) = tr exp(M o M) - d, the twirl
constant is C_Theta = max 1/|sin(omega/2)| over the nonzero difference frequencies.
"""

from __future__ import annotations

import sympy as sp

u = sp.Symbol("u", real=True)


def iswiglu(x: sp.Expr = u) -> sp.Expr:
    """iSwiGLU(u) = u * silu(u) = u^2 sigmoid(u) (Def 3.1)."""
    return x**2 / (1 + sp.exp(-x))


def rope_frequencies(dk: int, base: int = 10_000) -> list[sp.Expr]:
    """theta_j = base^{-2(j-1)/d_k}, j = 1..d_k/2 (eq. 4.1), exact algebraic numbers."""
    return [sp.Integer(base) ** sp.Rational(-2 * j, dk) for j in range(dk // 2)]


def twirl_multiplier(omega: sp.Expr, S: int) -> sp.Expr:
    """mu_S(omega) = |sin(S omega/2)| / (S |sin(omega/2)|): the exact multiplier of frequency omega."""
    return sp.Abs(sp.sin(S * omega / 2)) / (S * sp.Abs(sp.sin(omega / 2)))


def twirl_constant(dk: int = 64, base: int = 10_000) -> sp.Expr:
    """C_Theta = 1/sin(omega_min/2) with omega_min = theta_{d/2 - 1} - theta_{d/2} (plga.md C25)."""
    thetas = rope_frequencies(dk, base)
    return 1 / sp.sin((thetas[-2] - thetas[-1]) / 2)


def notears(M: sp.Matrix) -> sp.Expr:
    """h(M) = tr exp(M o M) - d (Thm 4.4)."""
    n = M.shape[0]
    return (M.multiply_elementwise(M)).exp().trace() - n


def rank_one_generator(alpha: list[sp.Expr]) -> sp.Matrix:
    """A = 1 alpha^T: identical rows (Prop 3.9)."""
    return sp.ones(len(alpha), 1) * sp.Matrix([alpha])
