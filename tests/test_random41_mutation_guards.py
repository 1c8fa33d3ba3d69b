"""Guards from the forty-first random mutation set (benchmarks/mutations_random41.toml): the per-point
mean over seeds when a protocol has one d_k. (The decoder's embedding init is pinned beside its other
init scales in tests/test_plga_mutation_guards.py.)"""

import math

import numpy as np
import pytest

from attncert.solvers import phase


def test_summary_means_over_seeds_with_one_d_k():
    """Per-point gamma_c is the mean over seeds, whatever the grid's shape: a protocol with two seeds and
    one d_k (gamma_c of shape (2, 1, 1)) reports the mean of both, 1.0, and their sample s.d."""
    one = phase.Protocol("one", d_ks=(64,), Ts=(10,), gammas=(0.0, 1.0), seeds=2, trials=100)
    gamma_c = np.array([[[0.9]], [[1.1]]])
    (point,) = phase.summarise(phase.Sweep(one, "mc", np.zeros((2, 1, 1, 2)), gamma_c)).points
    assert point.gamma_c_mean == pytest.approx(1.0, rel=1e-15)
    assert point.gamma_c_sd == pytest.approx(0.2 / math.sqrt(2), rel=1e-14)


def test_summary_of_one_seed_is_its_own_values():
    """With one seed the per-point mean is that seed's gamma_c, bit for bit, a point whose curves never
    cross stays NaN, and the s.d. is 0."""
    pair = phase.Protocol("pair", d_ks=(16, 64), Ts=(10,), gammas=(0.0, 1.0), seeds=1, trials=100)
    gamma_c = np.array([[[0.7], [math.nan]]])
    points = phase.summarise(phase.Sweep(pair, "mc", np.zeros((1, 2, 1, 2)), gamma_c)).points
    assert points[0].gamma_c_mean == 0.7 and math.isnan(points[1].gamma_c_mean)
    assert [pt.gamma_c_sd for pt in points] == [0.0, 0.0]
