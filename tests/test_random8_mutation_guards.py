"""Guards found by the eighth random mutation set (issue 11, benchmarks/mutations_random8.toml, seed
20261208): each test pins what a survivor of that set changed, against an independent computation."""

from __future__ import annotations

import numpy as np
import pytest

from attncert.solvers.score_model import _mean_groups


@pytest.mark.parametrize(
    ("means", "groups"),
    [
        ([0.0, 600.0], [[0, 1]]),
        ([0.0, 600.5], [[0], [1]]),
        ([600.5, 0.0, 300.0], [[1, 2], [0]]),
        ([5.0], [[0]]),
        ([5000.0, 5001.0], [[0, 1]]),
        ([200.0, -500.0], [[1], [0]]),
    ],
)
def test_mean_groups_split_where_the_span_passes_600(means, groups):
    """_mean_groups promises e^{ref - mu} in [e^-300, e^300] within a group (ref the group's
    midrange): a group spans at most 600, so means 600.5 apart are two groups. The span is a
    difference of means: large means 1 apart share a group, and -500 and 200 (700 apart) do not
    (set 71: every other case starts at a mean of 0, where a sum of means reads the same)."""
    assert _mean_groups(means) == groups


def test_mean_groups_keep_every_factor_within_e_to_the_300():
    """Random target means (the d_k grid's sqrt(d_k)/2 scale up to 10^4): the groups partition the
    indices, each in increasing order of mean, and |ref - mu| <= 300 for every member."""
    rng = np.random.default_rng(20261208)
    for _ in range(200):
        means = list(rng.uniform(0, 10 ** rng.uniform(1, 4), size=int(rng.integers(1, 30))))
        groups = _mean_groups(means)
        assert sorted(i for g in groups for i in g) == list(range(len(means)))
        for g in groups:
            ref = 0.5 * (means[g[0]] + means[g[-1]])
            assert [means[i] for i in g] == sorted(means[i] for i in g)
            assert max(abs(ref - means[i]) for i in g) <= 300
