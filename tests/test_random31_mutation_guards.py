"""Guards from the thirty-first random mutation set (benchmarks/mutations_random31.toml): facts that no test
pinned until a mutant of the line survived."""

import statistics

import numpy as np
import pytest

from attncert.solvers import phase


def test_two_condensed_points_have_a_spread():
    """c-hat's spread (sample s.d. / mean of the condensed ratios gamma_c / gamma_freeze) needs two points,
    not three: with exactly two it is a number (one point gives NaN, tested with the twentieth set)."""
    pair = phase.Protocol("pair", d_ks=(4, 8, 64), Ts=(10,), gammas=(0.0, 1.0), seeds=2, trials=100)
    assert [phase.branch(d, 10) for d in pair.d_ks] == ["condensed", "condensed", "mean-field"]
    gamma_c = np.array([[[0.95], [1.10], [1.00]], [[0.97], [1.14], [1.02]]])
    stats = phase.summarise(phase.Sweep(pair, "mc", np.zeros((2, 3, 1, 2)), gamma_c))
    ratios = [0.96 / phase.freezing_point(10), 1.12 / phase.freezing_point(10)]
    assert stats.c_hat == pytest.approx(statistics.mean(ratios), rel=1e-14)
    # the s.d. of two numbers is their gap / sqrt 2: 0.16 / sqrt(2) / 1.04 (the freezing point cancels) = 0.1088
    assert stats.c_hat_spread == pytest.approx(statistics.stdev(ratios) / statistics.mean(ratios), rel=1e-12)
    assert stats.c_hat_spread == pytest.approx(0.16 / 2**0.5 / 1.04, rel=1e-12)
