"""Guards found by the fourth random mutation set (issue 11, benchmarks/mutations_random4.toml, seed
20261204): each test pins what a survivor of that set changed, against the spec or an independent
computation."""

import math

import numpy as np
import pytest

from attncert.solvers import grades
from attncert.solvers.plga import MetricLearner


def _swiglu_unit_by_hand(r: np.ndarray, unit: tuple[np.ndarray, ...]) -> np.ndarray:
    """One residual unit of Phi_res from its statement (plga.md §1.3): n_A SwiGLU blocks
    h <- (silu(h W1 + b1) * (h W2 + b2)) W3 + b3 in sequence, then LayerNorm(r + h), eps 1e-6."""
    h = r
    for w1, b1, w2, b2, w3, b3 in (unit[k : k + 6] for k in range(0, len(unit), 6)):
        gate = h @ w1 + b1
        h = (gate / (1 + np.exp(-gate)) * (h @ w2 + b2)) @ w3 + b3
    x = r + h
    mean = x.mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + 1e-6)


def test_metric_learner_is_the_residual_swiglu_stack_with_its_biases():
    """Random init has zero biases, which would hide any sign or placement of b1, b2, b3: here every
    bias is nonzero (a trained learner's are), two units of two blocks each, d_k = 3."""
    rng = np.random.default_rng(20261204)
    dk, dff = 3, 5
    shapes = [(dk, dff), (dff,), (dk, dff), (dff,), (dff, dk), (dk,)]
    units = tuple(tuple(rng.normal(size=s) for _block in range(2) for s in shapes) for _unit in range(2))
    rows = rng.normal(size=(4, dk))
    expected = _swiglu_unit_by_hand(_swiglu_unit_by_hand(rows, units[0]), units[1])
    np.testing.assert_allclose(MetricLearner(units)(rows), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    ("alpha", "tau"),
    [([math.nan, 0.5], [0.5, 0.5]), ([0.5, 0.5], [math.inf, 0.5]), ([0.5, -math.inf], [0.5, 0.5])],
)
def test_one_nonfinite_profile_is_enough_to_refuse(alpha, tau):
    """Either profile with a NaN or an infinity is refused, not only both at once."""
    with pytest.raises(ValueError, match="finite"):
        grades.solve_clipped(alpha, tau, 2.0)
