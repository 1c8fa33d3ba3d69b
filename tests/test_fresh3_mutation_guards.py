"""Guards found by the third fresh mutation set (issue 11, benchmarks/mutations_fresh3.toml): each test
pins a value that a survivor of that set changed, against the spec or an independent computation."""

import inspect
import math

import pytest
import sympy as sp

from attncert.certificates.engine.evidence import holds_exactly
from attncert.solvers import score_quadrature
from attncert.theory import gllm, plga


def test_layer_norm_proxy_lemma_default_is_the_rigorous_half():
    """Erratum E6 (plga.md): sqrt(1 + x) - 1 <= x/2 for every x >= 0, so the lemma's default constant is 1/2 and,
    called without arguments, every fact it returns holds. A smaller constant is false: at x = 1,
    sqrt(2) - 1 = 0.414... exceeds x/4."""
    assert inspect.signature(plga.layer_norm_proxy_lemma).parameters["constant"].default == sp.Rational(1, 2)
    facts = plga.layer_norm_proxy_lemma()
    assert all(holds_exactly(fact) for _, fact in facts)
    assert math.sqrt(2) - 1 > 1 / 4


def test_git_form_hand_values():
    """Prop 12 (i): F(t) = (sum_j alpha_j prod_{k != j} t_k)(sum_l tau_l t_l) - prod_k t_k, by hand at
    alpha = (1/2, 1/2), tau = (1/4, 3/4): at t = (1, 2), (1/2 * 2 + 1/2 * 1)(1/4 + 3/2) - 2 = 21/8 - 2 = 5/8; at
    t = (1, 1), F = 1 * 1 - 1 = 0; and with three coordinates alpha = (1/2, 1/3, 1/6), tau = (1/3, 1/3, 1/3),
    t = (1, 2, 3): (1/2 * 6 + 1/3 * 3 + 1/6 * 2)(1 + 2 + 3)/3 - 6 = (13/3)(2) - 6 = 8/3."""
    half, quarter = sp.Rational(1, 2), sp.Rational(1, 4)
    assert gllm.git_form([half, half], [quarter, 3 * quarter], [1, 2]) == sp.Rational(5, 8)
    assert gllm.git_form([half, half], [quarter, 3 * quarter], [1, 1]) == 0
    third = sp.Rational(1, 3)
    assert gllm.git_form([half, third, sp.Rational(1, 6)], [third, third, third], [1, 2, 3]) == sp.Rational(8, 3)


@pytest.mark.parametrize(("d_k", "T"), [(16, 15), (64, 10), (4, 3)])
def test_noiseless_plateau_is_the_spec_closed_form(d_k, T):
    """psa.md §1.7: with sigma_t = 0 the plateau is the closed form Phi(sqrt(d_k)/2)^m, m = T - 2 distractors
    (the deterministic target sqrt(d_k) beats each 2 Z_j independently); Phi from math.erf here. The sigma_t -> 0
    limit of the general quadrature path agrees with it."""
    m = T - 2
    phi = 0.5 * (1 + math.erf(math.sqrt(d_k) / 2 / math.sqrt(2)))
    assert score_quadrature.plateau_quadrature(d_k, T, 0.0) == pytest.approx(phi**m, rel=1e-13)
    assert score_quadrature.plateau_quadrature(d_k, T, 1e-6) == pytest.approx(phi**m, abs=1e-6)
