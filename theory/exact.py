"""Exact decisions shared by the three papers' proofs.

Beside SymPy's canonical forms (a difference that reduces to 0, a relational that evaluates to true), the
``*_lemma`` functions of :mod:`attncert.theory.plga`, :mod:`~attncert.theory.gllm` and
:mod:`~attncert.theory.psa` use two exact procedures, each returning a :class:`Decision`: z3 over the reals
or integers (``z3_valid``) and SymPy's evaluation from the symbols' assumptions alone (``evaluates_true``).
"""

from __future__ import annotations

from collections.abc import Sequence
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


def evaluates_true(relation: object, assumptions: str) -> Decision:
    """Decide a relation by SymPy's automatic evaluation alone, from the symbols' ``assumptions``: it holds
    iff constructing it already gave ``sp.true``. No simplify, so a relation the assumptions cannot settle
    fails at once instead of running for a time that depends on the hash seed."""
    return Decision(relation is sp.true, f"SymPy evaluation from the assumptions ({assumptions}), no simplify")
