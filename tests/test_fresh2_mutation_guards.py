"""Guards found by the second fresh mutation set (issue 11, benchmarks/mutations_fresh2.toml): each test
pins a value that a survivor of that set changed, against an independent computation from the spec."""

import numpy as np
import sympy as sp
from scipy import stats

from attncert.solvers import psa_operators as ops
from attncert.solvers.backend import get_backend
from attncert.theory import gllm, psa


def _sheared(stream: np.ndarray, gamma: float) -> np.ndarray:
    """x~_t = x_t + gamma (x_t - x_{t-1}) with p_0 = 0, so x~_0 = x_0 (psa.md §1.1), row by row."""
    out = stream.copy()
    for t in range(1, len(stream)):
        out[t] = stream[t] + gamma * (stream[t] - stream[t - 1])
    return out


def test_bilinear_induction_scores_shear_the_last_query_and_every_key():
    """s_j = q~_{T-1}^T W k~_j for the bilinear induction head (psa.md §1.1, Prop 1, Cor 68): the query is the
    last sheared token (lag one: x_{T-1} and x_{T-2}), the keys the sheared tokens 0..T-2."""
    rng = np.random.default_rng(11)
    batch, T, d = 3, 7, 5
    x, head = rng.standard_normal((batch, T, d)), rng.standard_normal((d, d))
    backend = get_backend("numpy")
    for gamma_k, gamma_q in ((0.0, 0.0), (0.0, 0.5), (1.0, 0.0), (0.7, 2.0)):
        scores = ops.bilinear_induction_scores(backend, backend.asarray(x), backend.asarray(head), gamma_k, gamma_q)
        got = backend.to_numpy(scores)
        want = np.empty((batch, T - 1))
        for b in range(batch):
            query = _sheared(x[b], gamma_q)[T - 1]
            keys = _sheared(x[b, : T - 1], gamma_k)
            want[b] = [query @ head @ keys[j] for j in range(T - 1)]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_standard_deviation_defaults_to_the_population_sd():
    """theory.psa.standard_deviation is the population s.d. unless ddof is given (its docstring; Table 51,
    erratum 21): for 1, 2, 3, 4 the population variance is 5/4 and the sample variance 5/3."""
    xs = [sp.Integer(v) for v in (1, 2, 3, 4)]
    assert sp.simplify(psa.standard_deviation(xs) - sp.sqrt(sp.Rational(5, 4))) == 0
    assert sp.simplify(psa.standard_deviation(xs, 1) - sp.sqrt(sp.Rational(5, 3))) == 0


def test_block_parameter_counts_match_an_enumeration_of_the_block():
    """Prop 1's pre-norm block (gllm.md §1.1, Eq. 6-9), its parameter tensors enumerated one by one: per head
    W_Q, W_K, W_V (d x d_k), W_O (H d_v x d); FFN W_1 (d x d_ff), b_1 (d_ff), W_2 (d_ff x d), b_2 (d); two
    RMSNorm gains (d each), with d_k = d_v = d / H and d_ff = 4 d."""
    for d, heads in ((12, 3), (64, 8), (10, 1)):
        d_k, d_ff = d // heads, 4 * d
        attention = heads * 3 * (d * d_k) + (heads * d_k) * d
        ffn = d * d_ff + d_ff * d
        rest = d_ff + d + 2 * d
        counts = gllm.block_parameter_counts(sp.Integer(d), sp.Integer(heads))
        assert counts == {"attention": attention, "ffn": ffn, "linear": rest}


def test_pooled_t_statistic_matches_scipy_student_t():
    """Table 84's statistic is Student's two-sample t with pooled variance on n_a + n_b - 2 degrees of freedom:
    theory.psa.pooled_t_statistic against scipy.stats.ttest_ind(equal_var=True) on unequal group sizes."""
    a = [sp.Rational(v) for v in ("0.5", "1.25", "-0.75", "2", "0.1")]
    b = [sp.Rational(v) for v in ("3", "1.5", "2.25", "4.5", "2", "3.75", "1.2", "2.9")]
    want = stats.ttest_ind([float(x) for x in a], [float(x) for x in b], equal_var=True).statistic
    assert abs(float(psa.pooled_t_statistic(a, b)) - want) < 1e-12 * abs(want)
