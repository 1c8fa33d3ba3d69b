"""Guards of the PSA operators (issue 11, mutation testing): ``solvers.psa_operators`` against
independent NumPy computations written from psa.md §1.1-§1.3 (x~_t = (1 + gamma) x_t - gamma x_{t-1},
p_0 = 0; causal softmax attention with scores q~_t . k~_j / sqrt(d_k) over j <= t; Prop 73), and the
explicit-width operators of ``theory.psa`` against its symbolic-width ones (§1.2)."""

import numpy as np
import sympy as sp
from conftest import reference_psa_attention

from attncert.solvers import psa_operators as ops
from attncert.solvers.backend import get_backend
from attncert.theory import psa as th


def test_causal_and_incremental_attention_match_an_independent_reference():
    backend = get_backend("numpy")
    rng = np.random.default_rng(73)
    q, k, v = (rng.standard_normal((12, 4)) for _ in range(3))
    for gamma_q, gamma_k in ((0.5, 0.5), (0.0, 1.0), (2.0, 0.3)):
        expected = reference_psa_attention(q, k, v, gamma_q, gamma_k)
        full = backend.to_numpy(ops.causal_attention(backend, *(backend.asarray(a) for a in (q, k, v)), gamma_q, gamma_k))
        inc = backend.to_numpy(ops.incremental_decode(backend, *(backend.asarray(a) for a in (q, k, v)), gamma_q, gamma_k))
        np.testing.assert_allclose(full, expected, rtol=0, atol=1e-12)
        np.testing.assert_allclose(inc, expected, rtol=0, atol=1e-12)
    # the first token attends only to itself
    np.testing.assert_array_equal(expected[0], v[0])


def test_float_operators_are_the_stated_block_matrices():
    backend = get_backend("numpy")
    eye = np.eye(3)
    shear = backend.to_numpy(ops.shear_matrix(backend, 0.5, 3))
    np.testing.assert_array_equal(shear, np.block([[eye, 0.5 * eye], [0 * eye, eye]]))
    j = backend.to_numpy(ops.symplectic_matrix(backend, 3))
    np.testing.assert_array_equal(j, np.block([[0 * eye, eye], [-eye, 0 * eye]]))
    # rectangular blocks, so that no zero block can take its shape from the wrong side
    a, b = np.arange(6.0).reshape(2, 3), 10 + np.arange(12.0).reshape(4, 3)
    diag = backend.to_numpy(ops.block_diag(backend, backend.asarray(a), backend.asarray(b)))
    np.testing.assert_array_equal(diag, np.block([[a, np.zeros((2, 3))], [np.zeros((4, 3)), b]]))
    kron = backend.to_numpy(ops.kron_block(backend, [[1.0, 2.0], [3.0, 4.0]], 3))
    np.testing.assert_array_equal(kron, np.kron(np.array([[1.0, 2.0], [3.0, 4.0]]), eye))


def test_explicit_width_operators_are_the_symbolic_width_ones_lifted():
    """theory.psa builds each operator twice (explicit at an integer width, blocks over Identity(n) at a
    symbolic one): at n = 2 the explicit matrix is kron(coefficients, I_2) of the symbolic one, and
    Pi = [I 0] reads the position (psa.md §1.2)."""
    g, gq, gk, phi = th.gamma, th.gamma_q, th.gamma_k, th.theta
    builders = {
        "J": lambda n: th.symplectic_form(n),
        "M": lambda n: th.upper_shear(g, n),
        "M_l": lambda n: th.lower_shear(g, n),
        "R": lambda n: th.phase_rotation(phi, n),
        "X_H": lambda n: th.hamiltonian_vector_field(n),
        "Pi": lambda n: th.position_projection(n),
        "M (+) M": lambda n: th.joint_shear(gq, gk, n),
    }
    for name, build in builders.items():
        lifted = sp.kronecker_product(th.identity_coefficients(build(th.dim)), sp.eye(2))
        assert build(2) == lifted, name
    assert th.position_projection(2) == sp.Matrix([[1, 0, 0, 0], [0, 1, 0, 0]])


def test_induction_task_places_the_earlier_query_before_its_target():
    """Prop 1 task: the query A (last token) occurs exactly once earlier, at p in [0, T - 3], so that the target
    p + 1 is an earlier key (at most T - 2), never the query itself; every p of the range is drawn."""
    T, vocab = 6, 5
    tokens, p = ops.induction_task(1, batch=4000, T=T, vocab=vocab)
    query = tokens[:, -1]
    assert ((tokens[:, :-1] == query[:, None]).sum(axis=1) == 1).all()
    assert (tokens[np.arange(len(p)), p] == query).all()
    assert set(p.tolist()) == set(range(T - 2))
    assert ((0 <= tokens) & (tokens < vocab)).all()
    assert set(query.tolist()) == set(range(vocab))  # the query is uniform over the whole vocabulary, token 0 too


def test_bilinear_induction_scores_match_sheared_keys_explicitly():
    """Cor 68 / Prop 1 scores s_j = q~^T W k~_j, with q~ = (1 + g_q) x_{T-1} - g_q x_{T-2} and the key shear
    k~_j = (1 + g_k) x_j - g_k x_{j-1} (p_0 = 0: k~_0 = x_0), computed key by key."""
    backend = get_backend("numpy")
    rng = np.random.default_rng(68)
    x, head = rng.standard_normal((3, 7, 4)), rng.standard_normal((4, 4))
    gamma_q, gamma_k = 0.7, 1.5
    got = backend.to_numpy(ops.bilinear_induction_scores(backend, backend.asarray(x), backend.asarray(head), gamma_k, gamma_q))
    for b in range(3):
        q_tilde = (1 + gamma_q) * x[b, -1] - gamma_q * x[b, -2]
        for j in range(6):
            k_tilde = (1 + gamma_k) * x[b, j] - gamma_k * x[b, max(j - 1, 0)]
            assert abs(got[b, j] - q_tilde @ head @ k_tilde) < 1e-12
