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
    decision = exact.evaluates_true(sp.Gt(1 + t, 1), (t,))
    assert decision.holds and decision.how == "SymPy evaluation from the assumptions (t > 0), no simplify"
    # undecided by the assumptions (t may be 1): not a pass, and no simplify is tried
    assert not exact.evaluates_true(sp.Gt(sp.log(t), 0), (t,)).holds
    assert not exact.evaluates_true(sp.Lt(1 + t, 1), (t,)).holds


def test_stated_assumptions_are_read_from_the_symbols():
    """The text a decision cites is the symbols' own declaration, every sign and domain kind."""
    symbols = (
        sp.Symbol("j", integer=True, nonnegative=True),
        sp.Symbol("h", integer=True, positive=True),
        sp.Symbol("a", negative=True),
        sp.Symbol("b", nonpositive=True, integer=True),
        sp.Symbol("r", real=True),
        sp.Symbol("z"),
    )
    assert exact.stated_assumptions(symbols) == "a < 0, b <= 0 integer, h > 0 integer, j >= 0 integer, r, z (no assumptions)"


def test_matrix_identity_decides_both_ways():
    """(Q M)(K M)^T = Q M^2 K^T for symmetric M, and not Q M K^T: the GLLM logits identity of Sec 3.1."""
    n, k = sp.symbols("n d_k", integer=True, positive=True)
    q, key, m = sp.MatrixSymbol("Q", n, k), sp.MatrixSymbol("K", n, k), sp.MatrixSymbol("M", k, k)
    graded = q * m * m * key.T
    assert exact.matrix_identity(graded - q * m**2 * key.T, "Q M M K^T - Q M^2 K^T").holds
    decision = exact.matrix_identity(graded - q * m * key.T, "Q M M K^T - Q M K^T")
    assert not decision.holds and decision.how.endswith("-> Q*M**2*K.T - Q*M*K.T")


def test_squared_scaling_preserves_order_is_decided_by_z3():
    """Thm 64 (1)'s order lemma holds for every gamma != 0; its z3 form is the one the certificate reads."""
    decision = psa.squared_scaling_preserves_order()
    assert decision.holds and decision.how.startswith("z3: gamma != 0 =>")
