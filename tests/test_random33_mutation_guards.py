"""Guards from the thirty-third random mutation set (benchmarks/mutations_random33.toml): a documented contract
that only its caller's invariance had exercised."""

import numpy as np
from scipy import stats

from attncert.solvers import phase


def test_ranks_are_scipys_average_ranks():
    """`_ranks` promises ranks 1..n with ties at their average rank (scipy.stats.rankdata's default).
    Spearman's rho, its only caller, ignores any affine map of the ranks, so three sets drew a shifted or
    scaled rank (ranks -1..n-2, 2..n+1, 4r - 3) that no test saw."""
    x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0]
    assert np.array_equal(phase._ranks(x), stats.rankdata(x))
    assert np.array_equal(phase._ranks([2.0, 2.0, 2.0]), [2.0, 2.0, 2.0])
    assert np.array_equal(phase._ranks([0.5]), [1.0])
