"""Constructors for evidence: each one states its rule and picks the verdict from it.

- ``exact_zero`` / ``all_exact``: exact facts decided here (SymPy, or an exact decision procedure);
  PROVED at scope general or stated-range, VERIFIED at an instance, REFUTED otherwise.
- ``printed``: REPRODUCED when a regenerated value rounds to a printed one under the rule
  the printed digits imply, MISMATCH otherwise.
- ``within``: VERIFIED when a float residual is within a stated tolerance.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import sympy as sp

from attncert.certificates.engine.model import PROVING_SCOPES, CrossCheck, Evidence, Scope, Verdict


def reduces_to_zero(expr: sp.Expr | sp.MatrixBase) -> bool:
    """True iff SymPy proves ``expr`` identically zero (exact arithmetic, no floats)."""
    if isinstance(expr, sp.MatrixBase):
        return all(reduces_to_zero(e) for e in expr)
    expr = sp.sympify(expr)
    if expr.has(sp.Float):
        raise TypeError(f"exact check given a float expression: {expr}")
    if expr == 0:
        return True
    for reducer in (sp.expand, sp.simplify, lambda e: sp.radsimp(sp.together(e)), sp.trigsimp):
        if sp.simplify(reducer(expr)) == 0:
            return True
    return False


class ExactDecision(Protocol):
    """An exact decision made elsewhere by a procedure that is itself exact (e.g. z3 over the
    reals, an mpmath interval enclosure). ``holds`` is what it decided; ``how`` names the procedure."""

    holds: bool
    how: str


ExactFact = sp.Basic | sp.MatrixBase | ExactDecision


def holds_exactly(fact: ExactFact) -> bool:
    """Decide an exact fact here, never trusting a bare Python bool computed elsewhere.

    - a SymPy boolean (``sp.true``/``sp.false``) or relational (``sp.Eq``, ``sp.Le``...): it must
      evaluate to ``sp.true``; a relational SymPy cannot decide counts as not holding;
    - a SymPy expression or matrix: it must reduce to zero exactly;
    - an :class:`ExactDecision`: its exact procedure's answer.
    Floats anywhere, Python or numpy bools and numbers are refused (TypeError).
    """
    if isinstance(fact, bool) or type(fact).__module__.startswith("numpy"):
        raise TypeError(f"an exact check needs a SymPy object or an exact decision, not {type(fact).__name__} {fact!r}")
    if isinstance(fact, sp.MatrixBase):
        return reduces_to_zero(fact)
    if isinstance(fact, sp.logic.boolalg.Boolean):
        if fact.has(sp.Float):
            raise TypeError(f"exact check given a float relation: {fact}")
        if isinstance(fact, sp.Rel):
            try:
                if isinstance(fact, sp.Eq | sp.Le | sp.Ge) and isinstance(fact.lhs, sp.Expr) and isinstance(fact.rhs, sp.Expr):
                    if reduces_to_zero(fact.lhs - fact.rhs):
                        return True
                return fact.simplify() is sp.true
            except Exception:  # simplify can crash on what it cannot decide (Sum relations: StopIteration)
                return False
        return fact is sp.true
    if isinstance(fact, sp.Basic):
        return reduces_to_zero(fact)
    if hasattr(fact, "holds") and hasattr(fact, "how") and isinstance(fact.holds, bool):
        return fact.holds
    raise TypeError(f"an exact check needs a SymPy object or an exact decision, not {type(fact).__name__}")


def _exact_verdict(ok: bool, scope: Scope) -> Verdict:
    if not ok:
        return Verdict.REFUTED
    return Verdict.PROVED if scope in PROVING_SCOPES else Verdict.VERIFIED


def _scope_note(scope: Scope, where: str | None) -> str:
    if scope is Scope.INSTANCE:
        return f" [exact at {where}]" if where else " [exact at an instance]"
    return ""


def _assumption_list(assumptions: Sequence[str]) -> tuple[str, ...]:
    """The assumptions as a tuple of statements. A bare string is a Sequence[str] too, and tuple() would
    split it into characters (one certificate's report listed its assumption letter by letter)."""
    if isinstance(assumptions, str):
        raise TypeError(f"assumptions is a sequence of statements, not one string: write ({assumptions!r},)")
    return tuple(assumptions)


def exact_zero(
    expr: sp.Expr | sp.MatrixBase,
    *,
    proved: str,
    scope: Scope,
    assumptions: Sequence[str] = (),
    instance: str | None = None,
    refuted: str = "does not reduce to zero",
    cross_check: CrossCheck | None = None,
    details: Mapping[str, Any] | None = None,
) -> Evidence:
    """``expr`` reduces to zero exactly: PROVED at scope general or stated-range, VERIFIED at an
    instance (named by ``instance``, e.g. "d = 3"); REFUTED with the residual shown otherwise."""
    ok = reduces_to_zero(expr)
    shown = sp.sstr(expr if ok else sp.simplify(expr))
    return Evidence(
        verdict=_exact_verdict(ok, scope),
        summary=(proved + _scope_note(scope, instance)) if ok else f"{refuted}: residual {shown[:160]}",
        residual=0 if ok else shown,
        expression=sp.sstr(expr),
        cross_check=cross_check,
        details=dict(details or {}),
        scope=scope,
        assumptions=_assumption_list(assumptions),
    )


def all_exact(
    checks: Sequence[tuple[str, ExactFact]],
    *,
    proved: str,
    scope: Scope,
    assumptions: Sequence[str] = (),
    instance: str | None = None,
    cross_check: CrossCheck | None = None,
    details: Mapping[str, Any] | None = None,
) -> Evidence:
    """Every named exact fact holds (decided here by :func:`holds_exactly`): PROVED at scope
    general or stated-range, VERIFIED at an instance; REFUTED naming the first that fails."""
    decided = [(name, holds_exactly(fact)) for name, fact in checks]
    failed = [name for name, ok in decided if not ok]
    return Evidence(
        verdict=_exact_verdict(not failed, scope),
        summary=f"does not hold: {'; '.join(failed)}" if failed else proved + _scope_note(scope, instance),
        residual={name: ok for name, ok in decided},
        expression="; ".join(
            f"{name}: {sp.sstr(fact) if isinstance(fact, sp.Basic) else getattr(fact, 'how', '')}" for name, fact in checks
        )[:2000],
        cross_check=cross_check,
        details=dict(details or {}),
        scope=scope,
        assumptions=_assumption_list(assumptions),
    )


# --- printed numbers ---------------------------------------------------------------------
def rounding_rule(printed: str) -> str:
    """The rule a printed string implies: its decimals, or its significant digits in e-notation."""
    mantissa, _, _ = printed.lower().partition("e")
    if "e" in printed.lower():
        digits = len(mantissa.replace("-", "").replace(".", "").lstrip("0"))
        return f"round half-up to {digits} significant digits"
    decimals = len(mantissa.partition(".")[2])
    return f"round half-up to {decimals} decimals"


def _round_decimals_half_up(value: Any, printed: str) -> str:
    exact = decimal.Decimal(str(sp.N(sp.sympify(value), 40)))
    quantum = decimal.Decimal(1).scaleb(-len(printed.partition(".")[2]))
    return str(exact.quantize(quantum, rounding=decimal.ROUND_HALF_UP))


def _same_number(a: str, b: str) -> bool:
    return decimal.Decimal(a) == decimal.Decimal(b)


def _round_sig_half_up(value: Any, printed: str) -> str:
    exact = decimal.Decimal(str(sp.N(sp.sympify(value), 40)))
    mantissa = printed.lower().partition("e")[0]
    digits = len(mantissa.replace("-", "").replace(".", "").lstrip("0"))
    if exact == 0:
        return "0"
    shift = exact.adjusted() - digits + 1
    quantum = decimal.Decimal(1).scaleb(shift)
    return str(exact.quantize(quantum, rounding=decimal.ROUND_HALF_UP))


def regenerate(value: Any, printed: str) -> str:
    """``value`` rounded half-up as ``printed`` is written (decimals or significant digits)."""
    if "e" in printed.lower():
        return _round_sig_half_up(value, printed)
    return _round_decimals_half_up(value, printed)


def printed(
    rows: Iterable[tuple[str, Any, str]],
    *,
    what: str,
    details: Mapping[str, Any] | None = None,
) -> Evidence:
    """Compare regenerated values with printed ones, row by row.

    ``rows`` holds (row label, regenerated exact or float value, printed string). The rule
    for each row is the one its printed digits imply (half-up rounding).
    """
    table = []
    for label, value, shown in rows:
        got = regenerate(value, shown)
        table.append(
            {
                "row": label,
                "regenerated": sp.sstr(sp.N(sp.sympify(value), 8)),
                "rounded": got,
                "printed": shown,
                "rule": rounding_rule(shown),
                "match": _same_number(got, shown),
            }
        )
    bad = [r for r in table if not r["match"]]
    if bad:
        first = bad[0]
        summary = (
            f"{what}: {len(bad)}/{len(table)} rows differ, e.g. {first['row']}: "
            f"{first['regenerated']} rounds to {first['rounded']}, printed {first['printed']}"
        )
    else:
        summary = f"{what}: all {len(table)} printed values regenerated"
    return Evidence(
        verdict=Verdict.MISMATCH if bad else Verdict.REPRODUCED,
        summary=summary,
        measured=[r["rounded"] for r in table],
        reference=[r["printed"] for r in table],
        rounding="half-up to the printed digits",
        details={"rows": table, **dict(details or {})},
    )


# --- float checks ------------------------------------------------------------------------
def within(
    residual: float,
    *,
    tolerance: float,
    what: str,
    fail: Verdict = Verdict.REFUTED,
    measured: Any = None,
    reference: Any = None,
    details: Mapping[str, Any] | None = None,
) -> Evidence:
    """VERIFIED when ``residual <= tolerance`` (a NaN residual fails), else ``fail``."""
    residual = float(residual)
    ok = residual <= tolerance  # False for NaN
    return Evidence(
        verdict=Verdict.VERIFIED if ok else fail,
        summary=f"{what}: residual {residual:.3g} {'<=' if ok else '>'} tol {tolerance:.3g}",
        measured=measured,
        reference=reference,
        tolerance=tolerance,
        residual=residual,
        details=dict(details or {}),
    )
