"""The statistics and arithmetic helpers of theory.psa against independent computations: SciPy's tests
and correlations, the standard library's exact ``statistics`` on fractions, hand-computed values and
the reference values of psa.md §3.6 (issue 11: each helper has a mutation that these tests kill)."""

import statistics
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from scipy import stats

from attncert.theory import psa as th

Q = sp.Rational
XS = [Q(1), Q(2), Q(4), Q(7)]  # mean 7/2, squared deviations 25/4 + 9/4 + 1/4 + 49/4 = 21


def _fractions(xs):
    return [Fraction(int(x.p), int(x.q)) for x in xs]


def _rational(f: Fraction) -> sp.Rational:
    return Q(f.numerator, f.denominator)


def test_mean_variance_and_standard_deviation_match_the_standard_library():
    fr = _fractions(XS)
    assert th.sample_mean(XS) == _rational(statistics.mean(fr)) == Q(7, 2)
    assert th.variance(XS) == _rational(statistics.pvariance(fr)) == Q(21, 4)
    assert th.variance(XS, 1) == _rational(statistics.variance(fr)) == 7
    assert th.standard_deviation(XS) == sp.sqrt(Q(21, 4))  # population s.d. by default (Table 51, erratum 21)
    assert th.standard_deviation(XS, 1) == sp.sqrt(7)


def test_relative_change_is_taken_against_the_old_value():
    assert th.relative_change(Q(53), Q(50)) == Q(3, 50)  # "+6.0%"
    assert th.relative_change(Q(45), Q(50)) == Q(-1, 10)


def test_student_and_pearson_p_values_match_scipy():
    for t, df in ((Q(5, 2), 7), (Q(-13, 10), 30)):
        assert float(th.student_t_two_sided_p(t, df)) == pytest.approx(2 * stats.t.sf(abs(float(t)), df), rel=1e-10)
    x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    y = [2.1, 1.9, 3.5, 3.0, 6.2, 5.1, 7.9, 6.4]
    r, p = stats.pearsonr(x, y)
    assert float(th.pearson_p_value(sp.Float(r, 30), len(x))) == pytest.approx(p, rel=1e-9)


def test_pooled_and_welch_t_match_scipy_on_unequal_groups():
    a = [Q(v) for v in (1, 2, 3, 4, 5)]
    b = [Q(v) for v in (2, 4, 7, 9, 12, 15, 3)]
    fa, fb = [float(v) for v in a], [float(v) for v in b]
    assert float(th.pooled_t_statistic(a, b)) == pytest.approx(stats.ttest_ind(fa, fb).statistic, rel=1e-12)
    welch = stats.ttest_ind(fa, fb, equal_var=False).statistic
    assert float(th.welch_t_statistic(a, b)) == pytest.approx(welch, rel=1e-12)


def test_spearman_rho_matches_scipy():
    x, y = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5]
    squared = sum((a - b) ** 2 for a, b in zip(x, y, strict=True))
    assert th.spearman_rho(squared, len(x)) == Q(29, 35)  # 1 - 6 * 6 / (6 * 35)
    assert float(th.spearman_rho(squared, len(x))) == pytest.approx(stats.spearmanr(x, y).statistic, rel=1e-12)


def test_step_ratio_limit_hand_values_and_a_simulated_stream():
    """sqrt(2 (1 - rho)): sqrt 2 for i.i.d. tokens (Table 31 at gamma = 0), 1 at rho = 1/2, 2 at rho = -1."""
    assert th.step_ratio_limit(0) == sp.sqrt(2)
    assert th.step_ratio_limit(Q(1, 2)) == 1
    assert th.step_ratio_limit(-1) == 2
    rho, rng = 0.3, np.random.default_rng(0)
    a = rng.standard_normal(200_000)
    b = rho * a + np.sqrt(1 - rho**2) * rng.standard_normal(a.size)
    assert float(th.step_ratio_limit(Q(3, 10))) == pytest.approx(np.sqrt(np.mean((a - b) ** 2) / np.mean(a**2)), rel=1e-2)


def test_task_difficulty_reference_and_hand_values():
    """Table 85 (psa.md §3.6): 1 at (l, V) = (24, 512); ln 25 cancels at l = 24, ln 512 at V = 512."""
    assert th.task_difficulty(sp.Integer(24), sp.Integer(512)) == 1
    assert sp.expand_log(th.task_difficulty(sp.Integer(24), sp.Integer(8)) ** 2, force=True) == Q(1, 3)
    assert sp.expand_log(th.task_difficulty(sp.Integer(3), sp.Integer(512)) ** 2, force=True) == sp.log(2) / sp.log(5)


def test_transformer_parameters_hand_counts_and_the_printed_sizes():
    """12 N d^2 + V d (tied) or + 2 V d (untied), psa.md §3.6: David (R2) about 98M, Goliath (R2) 319M, 91.2M tied."""
    david = 12 * 12 * 768**2 + 2 * 8192 * 768
    assert th.transformer_parameters(12, 768, 8192, tied=False) == david == 97_517_568
    assert th.transformer_parameters(24, 1024, 8192, tied=False) == 318_767_104
    assert th.transformer_parameters(12, 768, 8192, tied=True) == 91_226_112
    assert round(david / 1e6) == 98


def test_block_entries_keep_the_off_diagonal_entries_of_each_block():
    """A - A^T vanishes on the diagonal only: its generic entry (i, j) must stay A_ij - A_ji, or a check of
    G = G^T (the symmetric shears) would pass for every G; a zero block gives the entry 0."""
    n = sp.Symbol("n", integer=True, positive=True)
    a = sp.MatrixSymbol("A", n, n)
    i, j = sp.symbols("i j", integer=True)
    entries = th.block_entries(sp.BlockMatrix([[a - a.T, sp.ZeroMatrix(n, n)], [sp.ZeroMatrix(n, n), a]]))
    assert entries == sp.Matrix([[a[i, j] - a[j, i], 0], [0, a[i, j]]])
