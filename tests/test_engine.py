"""Unit tests of the certificate engine: evidence rules, the runner's guards, the registry."""

import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
import sympy as sp

from attncert.certificates.engine import registry
from attncert.certificates.engine.evidence import all_exact, exact_zero, holds_exactly, printed, regenerate, rounding_rule, within
from attncert.certificates.engine.model import (
    Claim,
    Context,
    CrossCheck,
    Evidence,
    Method,
    Mutant,
    Provenance,
    Scope,
    Tier,
    Verdict,
)
from attncert.certificates.engine.runner import run_one

x = sp.Symbol("x", real=True)


def test_exact_zero_proves_identities_and_refutes_others():
    proved = exact_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, proved="ok", scope=Scope.GENERAL, assumptions=("x real",))
    assert proved.verdict is Verdict.PROVED
    assert proved.scope is Scope.GENERAL and proved.assumptions == ("x real",) and proved.expression
    refuted = exact_zero((x + 1) ** 2 - x**2 - 1, proved="ok", scope=Scope.GENERAL)
    assert refuted.verdict is Verdict.REFUTED
    assert "2*x" in refuted.summary


@pytest.mark.parametrize("check", [exact_zero, all_exact], ids=["exact_zero", "all_exact"])
def test_assumptions_given_as_one_string_are_refused(check):
    """("x real") is a string, not a tuple: it used to be split into one assumption per character."""
    fact = x - x if check is exact_zero else [("x = x", sp.Eq(x, x))]
    with pytest.raises(TypeError, match="not one string"):
        check(fact, proved="ok", scope=Scope.GENERAL, assumptions="x real")
    assert check(fact, proved="ok", scope=Scope.GENERAL, assumptions=("x real",)).assumptions == ("x real",)


def test_exact_zero_refuses_floats():
    with pytest.raises(TypeError):
        exact_zero(x - 0.5 * x, proved="ok", scope=Scope.GENERAL)


def test_exact_check_at_an_instance_is_verified_not_proved():
    ev = exact_zero(sp.Matrix([[1, 0], [0, 1]]) ** 2 - sp.eye(2), proved="J^2 = I", scope=Scope.INSTANCE, instance="n = 2")
    assert ev.verdict is Verdict.VERIFIED and ev.scope is Scope.INSTANCE
    assert "[exact at n = 2]" in ev.summary
    assert all_exact([("1 + 1 = 2", sp.Eq(sp.Integer(1) + 1, 2))], proved="ok", scope=Scope.INSTANCE).verdict is Verdict.VERIFIED
    ranged = all_exact([("1 + 1 = 2", sp.Eq(sp.Integer(1) + 1, 2))], proved="ok", scope=Scope.STATED_RANGE)
    assert ranged.verdict is Verdict.PROVED and ranged.scope is Scope.STATED_RANGE


@dataclass(frozen=True)
class _Decision:
    holds: bool
    how: str


@pytest.mark.parametrize("fact", [True, False, 1.0, np.bool_(True), np.float64(0.0), np.array([0.0]), sp.Eq(x, sp.Float(0.5))])
def test_holds_exactly_refuses_bools_floats_and_numpy(fact):
    with pytest.raises(TypeError):
        holds_exactly(fact)


def test_holds_exactly_decides_sympy_facts_and_exact_decisions():
    assert holds_exactly(sp.Eq(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1))
    assert holds_exactly(sp.Ge(x**2, 0))
    assert holds_exactly(sp.Matrix([[x - x]]))
    assert not holds_exactly(sp.Eq(x, x + 1))
    assert holds_exactly(_Decision(True, "z3 over the reals"))
    assert not holds_exactly(_Decision(False, "z3 over the reals"))
    with pytest.raises(TypeError):
        all_exact([("a bool computed elsewhere", True)], proved="ok", scope=Scope.GENERAL)


@pytest.mark.parametrize(
    ("value", "shown", "expected"),
    [
        (sp.Rational(2107, 1000) * 8 / 8, "2.11", "2.11"),
        (sp.Rational(1035, 1000), "1.04", "1.04"),  # half-up, not half-even
        (sp.Rational(1831, 10_000_000), "1.8e-4", "0.00018"),
        (sp.Integer(256) / sp.Rational(11, 10), "233", "233"),
        (1.0357837, "1.03", "1.04"),
    ],
)
def test_regenerate_rounds_half_up_to_the_printed_digits(value, shown, expected):
    assert regenerate(value, shown) == expected


def test_rounding_rule_reads_the_printed_digits():
    assert rounding_rule("0.787") == "round half-up to 3 decimals"
    assert rounding_rule("9.2e-5") == "round half-up to 2 significant digits"


def test_printed_reports_mismatch_rows():
    ev = printed([("a", sp.Rational(1, 3), "0.333"), ("b", sp.Rational(2, 3), "0.666")], what="t")
    assert ev.verdict is Verdict.MISMATCH
    assert [r["match"] for r in ev.details["rows"]] == [True, False]


def test_within_fails_on_nan_and_excess():
    assert within(0.0, tolerance=0.0, what="t").verdict is Verdict.VERIFIED
    assert within(math.nan, tolerance=1.0, what="t").verdict is Verdict.REFUTED
    assert within(2.0, tolerance=1.0, what="t", fail=Verdict.MISMATCH).verdict is Verdict.MISMATCH


def _proved(summary: str = "exact", scope: Scope | None = Scope.GENERAL, **fields) -> Evidence:
    return Evidence(Verdict.PROVED, summary, expression=fields.pop("expression", "x - x"), scope=scope, **fields)


def _cert(check, method=Method.SYMBOLIC, expected=Verdict.PROVED):
    from attncert.certificates.engine.model import Certificate

    return Certificate(
        id="psa.test_only",
        claim=Claim("psa", "test", "test", Provenance.DERIVED),
        method=method,
        expected=expected,
        check=check,
        params={"k": 1},
        mutant=Mutant("k = 2", {"k": 2}),
        tier=Tier.QUICK,
    )


def test_runner_turns_a_crash_into_error():
    def boom(ctx, *, k):
        raise RuntimeError("kaput")

    result = run_one(_cert(boom), Context())
    assert result.verdict is Verdict.ERROR
    assert "kaput" in result.outcome.evidence.summary


def test_runner_refuses_proved_from_a_numeric_method():
    result = run_one(_cert(lambda ctx, *, k: Evidence(Verdict.PROVED, "float"), method=Method.NUMERIC), Context())
    assert result.verdict is Verdict.ERROR
    assert "cannot yield PROVED" in result.outcome.evidence.summary


def test_runner_refuses_proved_from_a_table():
    result = run_one(_cert(lambda ctx, *, k: _proved(), method=Method.TABLE), Context())
    assert result.verdict is Verdict.ERROR
    assert "cannot yield PROVED" in result.outcome.evidence.summary


@pytest.mark.parametrize("scope", [Scope.INSTANCE, None])
def test_runner_refuses_proved_at_an_instance_or_without_scope(scope):
    result = run_one(_cert(lambda ctx, *, k: _proved(scope=scope)), Context())
    assert result.verdict is Verdict.ERROR
    assert "needs scope general or stated-range" in result.outcome.evidence.summary


def test_runner_refuses_proved_without_expression_or_interval():
    bare = run_one(_cert(lambda ctx, *, k: _proved(expression=None)), Context())
    assert bare.verdict is Verdict.ERROR
    assert "without an exact expression or interval" in bare.outcome.evidence.summary
    enclosed = run_one(_cert(lambda ctx, *, k: _proved(expression=None, interval=("0", "0"))), Context())
    assert enclosed.verdict is Verdict.PROVED
    assert run_one(_cert(lambda ctx, *, k: _proved(scope=Scope.STATED_RANGE)), Context()).verdict is Verdict.PROVED


def test_runner_refuses_proved_contradicted_by_cross_check():
    bad = CrossCheck("t", instances=1, max_abs_error=1.0, tolerance=1e-12, backend="numpy")
    result = run_one(_cert(lambda ctx, *, k: _proved(cross_check=bad)), Context())
    assert result.verdict is Verdict.ERROR


def test_negative_control_survivor_is_reported():
    result = run_one(_cert(lambda ctx, *, k: _proved("always")), Context(), negative_control=True)
    assert result.as_expected
    assert result.mutant_killed is False
    assert not result.ok


def test_crashing_mutant_does_not_count_as_killed():
    def check(ctx, *, k):
        if k == 2:
            raise ValueError("mutant crash")
        return _proved("fine")

    result = run_one(_cert(check), Context(), negative_control=True)
    assert result.mutant_killed is False


def test_select_by_paper_pattern_tag_and_tier():
    everything = registry.select()
    assert everything and all(c.paper in registry.PAPERS for c in everything)
    sym = registry.select(pattern="symplectic")
    assert sym and all("symplectic" in c.id for c in sym)
    assert all(c.id.startswith("psa.shear") for c in registry.select(pattern="psa.shear*"))
    assert all("C6" in c.tags for c in registry.select(tag="C6"))
    assert all(c.tier is Tier.QUICK for c in registry.select(tier=Tier.QUICK))


def test_certificate_ids_are_unique_and_well_formed():
    ids = [c.id for c in registry.all_certificates()]
    assert len(ids) == len(set(ids))
    for cert in registry.all_certificates():
        assert re.fullmatch(r"(plga|gllm|psa)\.[A-Za-z0-9_\-]+", cert.id), cert.id
        assert cert.claim.statement and cert.mutant.description
        assert set(cert.mutant.overrides) <= set(cert.params)


def test_duplicate_ids_are_rejected():
    first = registry.all_certificates()[0]
    with pytest.raises(ValueError, match="duplicate"):
        registry.certificate(
            first.id,
            claim=first.claim,
            method=first.method,
            expected=first.expected,
            mutant=first.mutant,
            params=dict(first.params),
        )(first.check)


def test_select_accepts_several_comma_separated_patterns():
    chosen = {c.id for c in registry.select(pattern="rope_preserves, *table11_*")}
    assert chosen == {"psa.rope_preserves_norms", "psa.table11_overhead_values"}
