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


def rotation(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def rope_matrix(thetas: list[sp.Expr], n: int | sp.Expr) -> sp.Matrix:
    """R_n = (+)_j Rot(n theta_j), interleaved adjacent pairs (2a, 2a+1)."""
    return sp.diag(*[rotation(n * t) for t in thetas])


def commutant_projection_block(block: sp.Matrix) -> sp.Matrix:
    """Frobenius projection of a 2x2 block onto {c I + s J}: c = (B11 + B22)/2, s = (B21 - B12)/2."""
    c = (block[0, 0] + block[1, 1]) / 2
    s = (block[1, 0] - block[0, 1]) / 2
    return sp.Matrix([[c, -s], [s, c]])


def difference_frequencies(thetas: list[sp.Expr], ordered: bool = True) -> list[sp.Expr]:
    """The nonzero frequencies of the twirl: each 2 theta_a once and |theta_a - theta_b|,
    theta_a + theta_b for every ordered (or unordered) pair a != b (plga.md C25, E2)."""
    out = [2 * t for t in thetas]
    n = len(thetas)
    pairs = (
        [(a, b) for a in range(n) for b in range(n) if a != b] if ordered else [(a, b) for a in range(n) for b in range(a + 1, n)]
    )
    for a, b in pairs:
        out += [sp.Abs(thetas[a] - thetas[b]), thetas[a] + thetas[b]]
    return out


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
