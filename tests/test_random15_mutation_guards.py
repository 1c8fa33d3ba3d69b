"""Guards from the fifteenth random mutation set (benchmarks/mutations_random15.toml): facts that
no test pinned until a mutant of the line survived. (The decoder's zero-initialised biases are
guarded in tests/test_plga_mutation_guards.py, beside the direct implementation they are compared with.)"""

import pytest
import sympy as sp

from attncert.theory import gllm
from attncert.theory import psa as th


@pytest.mark.parametrize(
    ("proof", "name"),
    [(gllm.lagrange_identity()[3], "d"), (gllm.polarisation_identity()[2], "H")],
    ids=["lagrange", "polarisation"],
)
def test_the_identities_are_inductions_over_the_positive_integers(proof, name):
    """Both identities are stated for every d (H) >= 1 and proved by a base at 1 and a step d -> d + 1;
    that covers the positive integers only, so the induction variable must be declared one."""
    assert proof.variable.name == name
    assert proof.variable.is_integer and proof.variable.is_positive
    assert proof.base == 0 and proof.step == 0


@pytest.mark.parametrize(
    "variable",
    [sp.Symbol("d", positive=True), sp.Symbol("d", integer=True), sp.Symbol("d", integer=True, nonnegative=True)],
    ids=["real", "any-integer", "from-zero"],
)
def test_an_induction_over_anything_but_the_positive_integers_is_refused(variable):
    with pytest.raises(ValueError, match="induction on d needs it declared a positive integer"):
        gllm.InductionProof("S(d) = 0", variable, sp.Integer(0), sp.Integer(0))


def test_smallest_positive_root_skips_zero_and_negative_roots():
    """'The smallest positive real root': a root at 0 or below is not one, a repeated root (which stalls
    nroots) is found through the square-free part, and a polynomial without one gives None."""
    g = th.gamma

    def close(value, exact) -> bool:
        return value is not None and abs(value - exact) < sp.Float(10) ** -28

    assert close(th.smallest_positive_root(g * (g - 1)), 1)
    assert close(th.smallest_positive_root((g + 1) * (g - 2) * g**2), 2)
    assert close(th.smallest_positive_root((g - 3) ** 2 * (g - 5)), 3)
    assert close(th.smallest_positive_root(g**2 - 2), sp.sqrt(2))
    assert th.smallest_positive_root(g**3 + g) is None  # roots 0 and +-i
    assert th.smallest_positive_root(g**3) is None
