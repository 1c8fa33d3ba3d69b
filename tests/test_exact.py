"""theory/exact.py: the exact procedures the three papers' proofs share decide both ways."""

import sympy as sp
import z3

from attncert.theory import exact, psa


def test_z3_valid_answers_both_ways_and_uses_its_hypotheses():
    x = z3.Real("x")
    assert exact.z3_valid(x * x >= 1, [x >= 1], "x >= 1 => x^2 >= 1").holds
    assert not exact.z3_valid(x * x >= 1, [x >= 0], "false").holds
    assert not exact.z3_valid(x * x >= 1).holds  # x = 0 without a hypothesis
    assert exact.z3_valid(x * x >= 0).how == "z3: x*x >= 0 (valid)"


def test_evaluates_true_trusts_only_what_construction_decided():
    t = sp.Symbol("t", positive=True)
    assert exact.evaluates_true(sp.Gt(1 + t, 1), "t > 0").holds
    # undecided by the assumptions (t may be 1): not a pass, and no simplify is tried
    assert not exact.evaluates_true(sp.Gt(sp.log(t), 0), "t > 0").holds
    assert not exact.evaluates_true(sp.Lt(1 + t, 1), "t > 0").holds


def test_squared_scaling_preserves_order_is_decided_by_z3():
    """Thm 64 (1)'s order lemma holds for every gamma != 0; its z3 form is the one the certificate reads."""
    decision = psa.squared_scaling_preserves_order()
    assert decision.holds and decision.how.startswith("z3: gamma != 0 =>")
