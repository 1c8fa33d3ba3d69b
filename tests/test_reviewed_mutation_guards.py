"""Guards from the thirty-second session's review of the recorded equivalents (benchmarks/
fresh_mutation_results.md, "the recorded equivalents re-argued one by one"): mutants that every set had
judged equivalent, each of which changes what a caller sees on some input the API accepts. The guards of
the review's fixes (eps_max's precision, the tau-underflow probe, the plateau quadrature's step, fir_memory's
Dummy) sit beside the code they test, in test_grades.py, test_phase.py and test_psa_tables.py."""

import pytest
import sympy as sp

from attncert.solvers.backend import get_backend
from attncert.solvers.score_model import argmax_plateau_mc
from attncert.theory import plga, psa


@pytest.mark.parametrize(
    "angles",
    [
        [sp.Rational(1, 10**635)],  # the 640-digit box is [0, 2 10^-635]: sin's enclosure ends at 0, not past it
        [-sp.Rational(1, 10**635)],  # its mirror, ending at 0 from below
        [sp.Integer(10) ** -350, 2 * sp.Integer(10) ** -350],  # cosines 1.5e-700 apart, below 2195 bits near 1
        [sp.Rational(31, 10**332), sp.Rational(62, 10**332)],  # 1.4e-661 apart, within a factor 2 of one ulp
    ],
)
def test_commutant_count_refuses_what_its_last_rung_cannot_separate(angles):
    """At the last rung (640 digits, 3.33 * 640 + 64 working bits) an enclosure that touches 0 at an end, or
    a difference below the working precision, is not a decision: the count refuses. Sets 54, 83 and 86 took an
    end at exactly 0 as excluding 0, sets 67, 77 and 84 worked with more bits than the documented radius
    needs; both answered here."""
    with pytest.raises(ValueError, match="cannot decide"):
        plga.commutant_dimension(angles)


def test_rope_planes_refuses_a_symbolic_head_dimension():
    """A d_k of unknown parity is not a positive even integer: the documented ValueError, not SymPy's
    TypeError from deciding d_k <= 1 (set 41's mutant)."""
    with pytest.raises(ValueError, match="positive even integer"):
        plga.rope_planes(sp.Symbol("k", integer=True, positive=True))


def test_z3_multivariate_refuses_a_polynomial_without_its_symbols():
    """With no symbols named, Poly finds x itself and its exponents outnumber the (no) z3 twins: a refusal,
    where set 32's strict=False returned the wrong term 0 + 1 + 1."""
    x = sp.Symbol("x")
    with pytest.raises(ValueError):
        plga.z3_multivariate(x + 1, {})


def test_argmax_plateau_monte_carlo_is_the_same_number_for_the_same_seed():
    """Seeds are explicit and the same command gives the same numbers: 2,471 wins of 4,000 at d_k = 16,
    T = 15, sigma_t = 2, seed 7 (numpy's PCG64). Set 65's mirrored Z_0 (sqrt(d_k) - sigma_t Z_0) is the same
    estimator in law and gave 2,519."""
    p = argmax_plateau_mc(get_backend("numpy"), d_k=16, T=15, sigma_t=2.0, trials=4000, seed=7)
    assert p == 2471 / 4000


def test_symmetric_projection_lemma_names_the_wrong_component():
    """Lemma 5.9's projection facts are checked one by one, so a wrong projection is named by the part it
    gets wrong: c = b11 (should be (b11 + b22)/2) with the right s fails only the I-fact. Set 19's J taken as
    I + J made the J-fact fail with it (the verdict alone could not tell)."""
    facts = plga.symmetric_projection_lemma(lambda B: (B[0, 0], (B[1, 0] - B[0, 1]) / 2))
    assert [sp.simplify(value) == 0 for _, value in facts] == [False, True, True]


def test_smallest_positive_root_has_the_documented_thirty_digits():
    """The root comes to ``digits`` = 30 significant digits by default: sqrt 2 as the 30-digit Float
    1.41421356237309504880168872421, and the double root 1/3 of (gamma - 1/3)^2 (gamma + 1) as thirty 3s.
    Sets 76 and 86 (and the first undrawn set) drew 31 digits, which no caller's rounded root shows but the
    returned Float does: it prints 31 digits."""
    assert str(psa.smallest_positive_root(psa.gamma**2 - 2)) == "1.41421356237309504880168872421"
    double_root = (psa.gamma - sp.Rational(1, 3)) ** 2 * (psa.gamma + 1)
    assert str(psa.smallest_positive_root(double_root)) == "0." + "3" * 30
