"""Guards from the twenty-second random mutation set (benchmarks/mutations_random22.toml): facts that
no test pinned until a mutant of the line survived."""

import math

import numpy as np
import pytest
import sympy as sp

from attncert.certificates.engine.evidence import holds_exactly
from attncert.solvers import grades as gs
from attncert.theory import plga

_DECAY = "log(theta_j / theta_0) = -2 j log(base)/d_k has sign -sign(j): <= 0, and 0 only at j = 0"
_BASES = "the family base = 1 + t, t > 0, holds every base > 1: it reaches base -> 1 as t -> 0"


def test_frequency_lemma_decides_the_sign_of_the_decay_and_the_whole_base_range():
    """Prop 4.1's 'theta_j <= theta_0' is decided as a sign, so a bound such as <= 1 cannot stand in for
    it, and the symbolic base ranges over every base > 1 (base = 1 + t, t > 0), not a narrower family."""
    facts = dict(plga.frequency_structure_lemma())
    assert holds_exactly(facts[_DECAY])
    assert holds_exactly(facts[_BASES])
    # frequencies that grow from theta_0 (base < 1 in effect) have theta_j > theta_0 for j > 0
    growing = dict(plga.frequency_structure_lemma(lambda j, dk, base: base ** (2 * sp.sympify(j) / dk)))
    assert not holds_exactly(growing[_DECAY])
    # theta_j = e^{j/(j+1)} rises above theta_0 = 1 while log(theta_j / theta_0) = j/(j+1) stays <= 1, which
    # SymPy decides: a bound put in place of the sign would pass this law
    above = dict(plga.frequency_structure_lemma(lambda j, dk, base: sp.exp(sp.sympify(j) / (j + 1))))
    assert not holds_exactly(above[_DECAY])


@pytest.mark.parametrize("clip", [1.5, 2.0, 1e3])
@pytest.mark.parametrize("seed", [1, 2])
def test_cvxpy_grades_are_canonical_and_inside_the_box(clip, seed):
    """``solve_cvxpy`` returns the canonical grading, min g = 1 exactly, with every g in [1, C]. The
    interior-point solution stays strictly inside u > 0 (by about 1e-10, and by far more where the
    optimum is a segment), so the shift to min g = 1 is what puts it on the face; a shift the wrong way
    leaves min g above 1 and g above C."""
    rng = np.random.default_rng(seed)
    for d in (3, 8, 50):
        alpha, tau = rng.dirichlet(np.ones(d)), rng.dirichlet(np.ones(d))
        sol = gs.solve_cvxpy(alpha, tau, clip)
        assert sol.log_g.min() == 0.0
        assert sol.log_g.max() <= math.log(clip)
        exact = gs.solve_clipped(alpha, tau, clip)
        assert sol.value == pytest.approx(exact.value, rel=1e-7)
