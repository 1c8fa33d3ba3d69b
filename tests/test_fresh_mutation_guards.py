"""Guards found by the fresh mutation set (issue 11, last acceptance item; benchmarks/mutations_fresh.toml):
each test asserts values of a theory or solver function against an independent computation, where no
certificate can see the mutation (see benchmarks/fresh_mutation_results.md)."""

import inspect
import statistics

import numpy as np
import sympy as sp
from scipy import stats

from attncert.certificates.engine.evidence import holds_exactly
from attncert.theory import plga
from attncert.theory import psa as th


def test_standard_deviation_default_is_the_population_sd():
    """psa.md Table 51 / erratum 21: th.standard_deviation without ddof is the population s.d. (ddof = 0)."""
    xs = [sp.Integer(v) for v in (1, 2, 3, 4, 5)]
    assert th.standard_deviation(xs) == sp.sqrt(2)
    assert th.variance(xs) == 2
    values = [74.4, 72.7, 58.7, 79.4, 60.2]  # Table 51, PSA-1L
    assert abs(float(th.standard_deviation(values)) - statistics.pstdev(values)) < 1e-12
    assert abs(float(th.standard_deviation(values, 1)) - statistics.stdev(values)) < 1e-12


def test_two_sample_t_statistics_match_scipy():
    """Table 84's pooled-variance t (na + nb - 2 d.o.f.) and the Welch alternative against scipy.stats.ttest_ind."""
    rng = np.random.default_rng(11)
    for na, nb in ((24, 72), (5, 7), (3, 3)):
        a, b = rng.normal(0.0, 1.0, na).tolist(), rng.normal(0.4, 2.0, nb).tolist()
        pooled = stats.ttest_ind(a, b, equal_var=True).statistic
        welch = stats.ttest_ind(a, b, equal_var=False).statistic
        assert abs(float(th.pooled_t_statistic(a, b)) - pooled) < 1e-12 * max(1.0, abs(pooled))
        assert abs(float(th.welch_t_statistic(a, b)) - welch) < 1e-12 * max(1.0, abs(welch))


def test_softmax_jacobian_lemma_default_is_the_sharp_constant():
    """plga.md Lemma 5.6 / E5: the lemma's default constant is the sharp 1/2, and every fact it returns then holds."""
    assert inspect.signature(plga.softmax_jacobian_lemma).parameters["constant"].default == sp.Rational(1, 2)
    assert all(holds_exactly(fact) for _, fact in plga.softmax_jacobian_lemma())
