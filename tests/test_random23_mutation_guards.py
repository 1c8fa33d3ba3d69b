"""Guards from the twenty-third random mutation set (benchmarks/mutations_random23.toml): facts that
no test pinned until a mutant of the line survived."""

import numpy as np
import pytest

from attncert.solvers.score_model import ScoreModel, chance
from attncert.solvers.score_quadrature import softmax_mass_quadrature

#: the float gamma at which the key-only distractor s.d. gamma sqrt(2) is exactly 1.0
_UNIT_SD_GAMMA = 0.7071067811865475


@pytest.mark.parametrize("d_k", [1, 64])
def test_quadrature_is_continuous_where_the_distractor_sd_is_exactly_one(d_k):
    """A(gamma) by quadrature has its chance shortcut at s = 0 only. At s = 1.0 exactly, where the phi
    table also switches from the plain trapezoid (s <= 1) to the split convolution (s > 1), A agrees with
    its neighbours one ulp of gamma away on either side to 1e-12, and stays far above chance."""
    model = ScoreModel(variant="key-only")
    assert model.distractor_sd(_UNIT_SD_GAMMA) == 1.0
    below, above = np.nextafter(_UNIT_SD_GAMMA, 0.0), np.nextafter(_UNIT_SD_GAMMA, 1.0)
    assert model.distractor_sd(below) < 1.0 < model.distractor_sd(above)
    Ts = [3, 8, 64]
    values = softmax_mass_quadrature(model, d_ks=[d_k], Ts=Ts, gammas=[below, _UNIT_SD_GAMMA, above, 0.0]).values[0]
    np.testing.assert_allclose(values[:, 1], values[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 1], values[:, 2], rtol=0, atol=1e-12)
    # at s = 1 the target leads by gamma sqrt(d_k): A is at least 1.2 times chance (1.25 at d_k = 1, T = 3)
    assert np.all(values[:, 1] > 1.2 * np.array([chance(T) for T in Ts]))
    assert values[:, 3].tolist() == [chance(T) for T in Ts]
