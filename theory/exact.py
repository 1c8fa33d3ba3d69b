"""Exact decisions shared by the three papers' proofs.

Beside SymPy's canonical forms (a difference that reduces to 0, a relational that evaluates to true), the
``*_lemma`` functions of :mod:`attncert.theory.plga`, :mod:`~attncert.theory.gllm` and
:mod:`~attncert.theory.psa` use three exact procedures, each returning a :class:`Decision`: z3 over the reals
or integers (``z3_valid``), SymPy's evaluation from the symbols' assumptions alone (``evaluates_true``), and
SymPy's expansion of matrix expressions of symbolic size (``matrix_identity``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class Decision:
    """An exact decision: ``holds`` as decided by the procedure named in ``how``."""

    holds: bool
    how: str


def z3_valid(claim: object, hypotheses: Sequence = (), how: str = "") -> Decision:
    """Decide ``hypotheses => claim`` with z3 (exact real or integer arithmetic): valid iff the
    negation is unsatisfiable."""
    import z3

    solver = z3.Solver()
    solver.add(*hypotheses, z3.Not(claim))
    answer = solver.check()
    return Decision(answer == z3.unsat, f"z3: {how or claim} ({'valid' if answer == z3.unsat else answer})")


def stated_assumptions(symbols: Iterable[sp.Symbol]) -> str:
    """The sign and domain each symbol was declared with, read from the symbol itself (so the text cannot
    drift from the assumptions SymPy uses): ``h > 0 integer, j >= 0 integer, t > 0``."""
    signs = (("positive", "> 0"), ("nonnegative", ">= 0"), ("negative", "< 0"), ("nonpositive", "<= 0"))

    def stated(symbol: sp.Symbol) -> str:
        sign = next((f" {text}" for name, text in signs if symbol.assumptions0.get(name)), "")
        domain = " integer" if symbol.is_integer else "" if symbol.is_real else " (no assumptions)"
        return f"{symbol}{sign}{domain}"

    return ", ".join(stated(symbol) for symbol in sorted(symbols, key=str))


def evaluates_true(relation: object, symbols: Iterable[sp.Symbol]) -> Decision:
    """Decide a relation by SymPy's automatic evaluation alone, from the assumptions of ``symbols``: it holds
    iff constructing it already gave ``sp.true``. No simplify, so a relation the assumptions cannot settle
    fails at once instead of running for a time that depends on the hash seed."""
    how = f"SymPy evaluation from the assumptions ({stated_assumptions(symbols)}), no simplify"
    return Decision(relation is sp.true, how)


def matrix_identity(expr: sp.MatrixExpr, what: str) -> Decision:
    """Decide that a matrix expression of symbolic size is the zero matrix: SymPy's expansion of
    matrix products and sums (distributivity, transposes, inverses) must return the ZeroMatrix.
    The identity is for every size, so each symbolic size must be declared a positive integer: a size
    declared otherwise (real, nonpositive) would prove it over sizes no matrix has, and is refused."""
    sizes = {dim for node in sp.preorder_traversal(expr) if isinstance(node, sp.MatrixExpr) for dim in node.shape}
    loose = sorted((str(dim) for dim in sizes if not (dim.is_integer and dim.is_positive)), key=str)
    if loose:
        return Decision(False, f"{what}: the sizes {', '.join(loose)} are not declared positive integers")
    reduced = sp.expand(expr)
    return Decision(isinstance(reduced, sp.ZeroMatrix), f"sympy expand of matrix expressions: {what} -> {reduced}")
