"""Guards from the fourteenth random mutation set (benchmarks/mutations_random14.toml): facts that
no test pinned until a mutant of the line survived."""

import math

import numpy as np
import pytest
import sympy as sp
import z3

from attncert.solvers import grades
from attncert.theory import gllm, plga
from attncert.theory import psa as th

Y = sp.Symbol("y")


def test_phase_space_builders_default_to_width_one():
    """Without ``n`` each builder gives the n = 1 operator, i.e. the coefficient matrix C of its
    Kronecker lift kron(C, I_n) (Lemma 4's and Table 2's matrices as printed)."""
    g, gq, gk, phi, steps = th.gamma, th.gamma_q, th.gamma_k, th.theta, sp.Symbol("N")
    c, s = sp.cos(phi), sp.sin(phi)
    assert th.block2(1, 2, 3, 4) == sp.Matrix([[1, 2], [3, 4]])
    assert th.symplectic_form() == sp.Matrix([[0, 1], [-1, 0]])
    assert th.upper_shear() == sp.Matrix([[1, g], [0, 1]])
    assert th.lower_shear() == sp.Matrix([[1, 0], [g, 1]])
    assert th.phase_rotation(phi) == sp.Matrix([[c, s], [-s, c]])
    assert th.hamiltonian_vector_field() == sp.Matrix([[0, 1], [0, 0]])
    assert th.identity_operator() == sp.eye(2)
    assert th.position_projection() == sp.Matrix([[1, 0]])
    assert th.joint_shear() == sp.Matrix([[1, gq, 0, 0], [0, 1, 0, 0], [0, 0, 1, gk], [0, 0, 0, 1]])
    assert th.score_form(gq, gk) == sp.Matrix([[1, gk], [gq, gq * gk]])
    assert th.shear_power(g, steps) == sp.Matrix([[1, steps * g], [0, 1]])
    assert th.symplectic_defect(th.upper_shear()) == sp.zeros(2)
    assert th.symplectic_defect(th.lower_shear(), blocks=1) == sp.zeros(2)


def test_block_diagonal_follows_the_representation_of_its_blocks():
    """Explicit operators give an explicit direct sum; block matrices over Identity(n) give a 4 x 4 block
    matrix whose zero blocks are n x n, the n the operators carry."""
    assert th.block_diagonal(th.upper_shear(), th.symplectic_form()) == sp.Matrix(
        [[1, th.gamma, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, -1, 0]]
    )
    n, m = sp.symbols("n_1 m_1", integer=True, positive=True)
    joint = th.block_diagonal(th.upper_shear(th.gamma, n), th.symplectic_form(n))
    assert joint.blocks.shape == (4, 4) and joint.blocks[0, 2] == sp.ZeroMatrix(n, n)
    assert th.identity_coefficients(joint) == th.block_diagonal(th.upper_shear(), th.symplectic_form())
    # widths n and m: the zero blocks above the diagonal are n x m, those below m x n
    mixed = th.block_diagonal(th.upper_shear(th.gamma, n), th.symplectic_form(m))
    assert mixed.shape == (2 * n + 2 * m, 2 * n + 2 * m)
    assert all(mixed.blocks[i, j] == sp.ZeroMatrix(n, m) for i in (0, 1) for j in (2, 3))
    assert all(mixed.blocks[i, j] == sp.ZeroMatrix(m, n) for i in (2, 3) for j in (0, 1))


def test_identity_coefficients_refuse_a_scalar():
    """The lift lemma is about block matrices over Identity(n): a scalar (even 0) is no such operator."""
    with pytest.raises(ValueError, match="not a scalar multiple of the identity"):
        th.identity_coefficients(sp.Integer(0))


def test_cap_ratio_pairs_every_weight_with_its_grade():
    """Lemma 4 (iv)'s g_0^2 sum a_k g_k^-2 needs one grade per weight: unpaired lists are an error, not a
    sum over the shorter one."""
    one, two = sp.Integer(1), sp.Integer(2)
    assert gllm.cap_ratio([one, one], [one, two]) == sp.Rational(5, 4)
    with pytest.raises(ValueError):
        gllm.cap_ratio([1, 1, 1], [1, 2])
    with pytest.raises(ValueError):
        gllm.cap_ratio([1], [1, 2])


def test_lbfgsb_starts_at_the_box_centre_then_at_seeded_uniform_points(monkeypatch):
    """solve_lbfgsb's documented starts: u = ln C in every coordinate (the centre of [0, 2 ln C]), then
    uniform points of the box from seed 0, so that the same profile gives the same numbers."""
    starts = []
    real = grades._lbfgsb

    def spy(fun, x0, bounds, **kwargs):
        starts.append(np.array(x0, copy=True))
        return real(fun, x0, bounds, **kwargs)

    monkeypatch.setattr(grades, "_lbfgsb", spy)
    clip, d = 3.0, 4
    grades.solve_lbfgsb([4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0], clip=clip, starts=3)
    upper = 2 * math.log(clip)
    assert len(starts) == 3
    np.testing.assert_array_equal(starts[0], np.full(d, upper / 2))
    rng = np.random.default_rng(0)
    for start in starts[1:]:
        np.testing.assert_array_equal(start, rng.uniform(0, upper, d))


def test_z3_multivariate_is_the_polynomial_with_exact_coefficients():
    """The z3 term agrees with SymPy's polynomial in one symbol (rational coefficients exact) and rejects
    what is not a polynomial in the symbol."""
    y_sym, y = sp.Symbol("y"), z3.Real("y")
    poly = y_sym**3 - 3 * y_sym + sp.Rational(2, 3)
    term = plga.z3_multivariate(poly, {y_sym: y})
    for value in (sp.Rational(-7, 2), 0, 1, sp.Rational(5, 3)):
        assert z3.simplify(z3.substitute(term, (y, z3.RealVal(str(value))))) == z3.RealVal(str(poly.subs(y_sym, value)))
    assert plga.z3_valid(term == y * y * y - 3 * y + z3.Q(2, 3)).holds
    with pytest.raises(sp.PolynomialError):
        plga.z3_multivariate(1 / y_sym, {y_sym: y})


@pytest.mark.parametrize(
    ("expr", "holds"),
    [
        ((Y**3 - 3 * Y + 2) / (2 * Y), True),  # Lemma 5.11 (iii) in y: zero at y = 1
        ((Y - 1) ** 2 / (Y - 3), False),  # negative on (1, 3)
        ((Y - 2) / Y, False),  # negative on [1, 2)
        (1 / (Y - 1), False),  # a pole at y = 1: undefined there, not >= 0
        ((Y**2 - 4) / (Y - 2), False),  # the pole at y = 2 is not cancelled away (y + 2 would pass)
        (-(Y**3 - 3 * Y + 2) / (2 * Y), False),
        (sp.Integer(3), True),
    ],
)
def test_z3_rational_nonnegative_decides_the_sign_on_the_hypotheses(expr, holds):
    """expr >= 0 on y >= 1, decided as num * den >= 0 with den != 0: each false case fails one part."""
    y = z3.Real("y")
    assert plga.z3_rational_nonnegative(expr, Y, y, (y >= 1,)).holds is holds


def test_layer_norm_bound_is_decided_from_the_stated_inequality():
    """Lemma 5.11 (iii): the z3 decisions are made on f = x/2 - (1 - (1 + x)^(-1/2)) itself at x = y^2 - 1,
    so they are the claim's inequality (y^3 - 3y + 2 >= 0) and its derivative's, not a retyped copy."""
    facts = dict(plga.layer_norm_lemma(lambda d, v, e: d * v / (v + e)))
    bound = facts["1 - (1 + x)^(-1/2) <= x/2 on x >= 0, in y = sqrt(1 + x) >= 1"]
    slope = facts["f' >= 0 on x >= 0, in y = sqrt(1 + x) >= 1"]
    assert bound.holds and "(y**3 - 3*y + 2)/(2*y)" in bound.how
    assert slope.holds and "(y**3 - 1)/(2*y**3)" in slope.how
