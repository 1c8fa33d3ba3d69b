"""Guards from the twenty-seventh random mutation set (benchmarks/mutations_random27.toml): facts that
no test pinned until a mutant of the line survived."""

import math

import numpy as np
import pytest

from attncert.solvers import grades, phase


def _summary(Ts: tuple[int, ...]) -> phase.Statistics:
    """One seed of made-up gamma_c at d_k = 4 (condensed at every T here) and d_k = 64 (mean-field)."""
    protocol = phase.Protocol("three", d_ks=(4, 64), Ts=Ts, gammas=(0.0, 1.0), seeds=1, trials=100)
    assert [phase.branch(d, T) for d in protocol.d_ks for T in Ts] == ["condensed"] * len(Ts) + ["mean-field"] * len(Ts)
    gamma_c = np.array([[[0.95, 1.10, 1.18][: len(Ts)], [0.55, 0.70, 0.78][: len(Ts)]]])
    return phase.summarise(phase.Sweep(protocol, "mc", np.zeros((1, 2, len(Ts), 2)), gamma_c))


def test_three_points_per_branch_are_enough_for_the_correlations():
    """Pearson's r of a branch and Spearman's rho of the mean-field errors are computed from three points
    on (two would give r = +-1 whatever the data): at exactly three they are the statistics of those points."""
    stats = _summary((10, 20, 50))
    mf = [pt for pt in stats.points if pt.branch == "mean-field"]
    cond = [pt for pt in stats.points if pt.branch == "condensed"]
    assert len(mf) == len(cond) == 3
    assert stats.mf_pearson_r == phase.pearson_r([pt.mean_field for pt in mf], [pt.gamma_c_mean for pt in mf])
    c_hat = stats.c_hat
    assert stats.condensed_pearson_r == phase.pearson_r([c_hat * pt.freezing for pt in cond], [pt.gamma_c_mean for pt in cond])
    rho, p = phase.spearman_rho([pt.rel_error for pt in mf], [pt.proximity for pt in mf])
    assert (stats.spearman_rho, stats.spearman_p) == (rho, p)
    assert stats.spearman_rho == pytest.approx(0.5, rel=1e-12)  # error ranks (1, 3, 2) against proximity's (1, 2, 3)
    assert 0 < stats.spearman_p < 1
    assert all(math.isfinite(x) for x in (stats.mf_pearson_r, stats.condensed_pearson_r))


def test_two_points_per_branch_give_no_correlations():
    stats = _summary((10, 20))
    assert all(math.isnan(x) for x in (stats.mf_pearson_r, stats.condensed_pearson_r, stats.spearman_rho, stats.spearman_p))


@pytest.mark.parametrize("scale", [1e-3, 7.0])
def test_kkt_residuals_do_not_depend_on_the_scale_of_the_profiles(scale):
    """The clipped program is invariant under scaling either profile, so its KKT residuals are too."""
    rng = np.random.default_rng(3)
    alpha, tau = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    solution = grades.solve_clipped(alpha, tau, 1.5)
    base = grades.kkt_residuals(alpha, tau, solution, 1.5)
    scaled = grades.kkt_residuals(scale * alpha, tau / scale, solution, 1.5)
    assert base.worst < 1e-40 and scaled.worst < 1e-40
