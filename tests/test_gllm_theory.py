"""GLLM theory: the general-d lemmas and their machinery, the exact decisions and the tiny reference models."""

import math

import numpy as np
import pytest
import sympy as sp

from attncert.solvers import gllm_models as gm
from attncert.theory import gllm as th


def test_induction_proofs_close():
    for proof in (th.lagrange_identity()[3], th.polarisation_identity()[2]):
        assert proof.base == 0 and proof.step == 0, proof.statement


def test_sum_identity_is_sound_on_a_false_identity():
    p = th.indexed_profiles()
    i = p.i
    # sum alpha_i^2 = (sum alpha_i)^2 is false: its residual must not vanish
    assert th.sum_identity(p.total(p.alpha[i] ** 2), p.total(p.alpha[i]) ** 2) != 0
    assert th.sum_identity(p.total(2 * p.alpha[i] + p.tau[i]), 2 * p.total(p.alpha[i]) + p.total(p.tau[i])) == 0


def test_linearize_sums_counts_a_sum_of_ones():
    p = th.indexed_profiles()
    assert th.linearize_sums(p.total(sp.Integer(3))) == 3 * p.d


def test_optimal_multipliers_reach_bc_squared_numerically():
    rng = np.random.default_rng(3)
    a, t = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    g = [float(x) for x in th.optimal_multipliers(list(a), list(t))]
    assert abs(float(th.gain(list(a), list(t), g)) - float(th.bhattacharyya(list(a), list(t))) ** 2) < 1e-12


def test_compiled_mhsa_matches_eg_mhsa_and_mask_is_causal():
    rng = np.random.default_rng(5)
    n, d, heads = 4, 8, 2
    x, wq, wk, wv, wo = (rng.normal(size=s) for s in ((n, d), (d, d), (d, d), (d, d), (d, d)))
    grades = rng.uniform(0, 3, (heads, d // heads))
    lam = np.exp(0.25)
    graded = gm.eg_mhsa(x, wq, wk, wv, wo, heads, grades, lam)
    compiled = gm.mhsa(x, *(gm.compile_graded(w, heads, grades, lam) for w in (wq, wk, wv)), wo, heads)
    assert np.allclose(graded, compiled, atol=1e-12)
    weights = gm.softmax_rows(rng.normal(size=(n, n)), causal=True)
    assert np.allclose(np.triu(weights, 1), 0) and np.allclose(weights.sum(axis=1), 1)


def test_grading_overhead_matches_the_spec_sums():
    assert th.grading_overhead(*th.GLLM_MEDIUM[:4]) == 1_124_433
    assert th.grading_overhead(*th.GLLM_7B[:4]) == 16_944_384


def test_general_git_form_agrees_with_the_listed_form_at_d_3():
    p = th.indexed_profiles()
    t = sp.IndexedBase("t", positive=True)
    form, _ = th.git_form_general(p, t)
    a, s, x = (list(sp.symbols(f"{n}1:4", positive=True)) for n in ("a", "s", "x"))
    values = {**{p.alpha[j + 1]: a[j] for j in range(3)}, **{p.tau[j + 1]: s[j] for j in range(3)}}
    values.update({t[j + 1]: x[j] for j in range(3)})
    concrete = form.subs(p.d, 3).doit().xreplace(values)
    assert sp.expand(concrete - th.git_form(a, s, x)) == 0


def test_gllm_reference_models_hand_values():
    """solvers.gllm_models against hand values (gllm.md §1.1, §1.4: Eq. 7, M_{q,lambda}, GeGLU, FFN_ell)."""
    np.testing.assert_allclose(gm.softmax_rows(np.zeros((2, 2)), causal=True), [[1, 0], [0.5, 0.5]], rtol=1e-15)
    with pytest.raises(ValueError, match="square"):  # Eq. 7's mask is n x n: a 2 x 3 score matrix has no reading
        gm.softmax_rows(np.zeros((2, 3)), causal=False)
    q = np.array([[0.0, 0, 0, 0], [4.0, 0, 0, 0]])
    k = np.array([[0.0, 0, 0, 0], [1.0, 0, 0, 0]])
    out = gm.attention(q, k, np.array([[1.0], [0.0]]))  # scores of row 1: (0, 4 / sqrt(4)) = (0, 2)
    np.testing.assert_allclose(out, [[1.0], [1 / (1 + math.e**2)]], rtol=1e-14)
    np.testing.assert_allclose(gm.grading_matrix([1, 2], 3.0), np.diag([3.0, 9.0]), rtol=1e-15)
    gelu_one = 0.5 * (1 + math.tanh(math.sqrt(2 / math.pi) * 1.044715))
    assert math.isclose(float(gm.gelu(np.array(1.0))), gelu_one, rel_tol=1e-15)
    assert math.isclose(gelu_one, 0.8411920, abs_tol=1e-7)
    # at x = 1 every power of x is 1 (x^3 = x^-3): the cubic term needs a second point, x = 2
    gelu_two = 0.5 * 2 * (1 + math.tanh(math.sqrt(2 / math.pi) * (2 + 0.044715 * 8)))
    assert math.isclose(float(gm.gelu(np.array(2.0))), gelu_two, rel_tol=1e-15)
    assert math.isclose(gelu_two, 2 * 0.5 * (1 + math.erf(2 / math.sqrt(2))), abs_tol=1e-3)  # the tanh form approximates x Phi(x)
    one = np.array([[1.0]])
    np.testing.assert_allclose(gm.geglu(one, one, 2 * one, 3 * one), [[6 * gelu_one]], rtol=1e-15)
    e1 = np.array([[1.0], [0.0]])
    np.testing.assert_allclose(gm.level_ffn(np.array([[1.0, 5.0]]), [e1], [lambda z: 2 * z]), [[2.0, 0.0]], rtol=1e-15)
