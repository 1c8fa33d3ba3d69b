"""Guards found by the twelfth random mutation set (issue 11, benchmarks/mutations_random12.toml, seed
20261213): each test pins what a survivor of that set exposed, against an independent computation."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from attncert.solvers import grades as gs


def _solution(log_value: float) -> gs.ClippedSolution:
    return gs.ClippedSolution(
        math.exp(log_value), np.ones(1), np.array([0]), np.array([], dtype=int), True, "test", log_value=log_value
    )


@pytest.mark.parametrize("log_gain", [700.0, 709.0, math.log(sys.float_info.max)])
def test_token_gain_is_exact_up_to_the_largest_double(log_gain):
    """The token gain 1/Lambda*_C is e^{-ln Lambda*_C} wherever that is a double: a cut-off written
    as a rounded constant below ln(DBL_MAX) = 709.7827... returned inf for finite gains."""
    assert _solution(-log_gain).gain == pytest.approx(math.exp(log_gain), rel=1e-15)


@pytest.mark.parametrize("log_gain", [709.79, 710.0, 710.5, 800.0])
def test_token_gain_beyond_the_largest_double_is_inf_not_an_error(log_gain):
    """Past ln(DBL_MAX) the gain is reported as inf (the CLI then prints e^{...}), never an OverflowError."""
    assert _solution(-log_gain).gain == math.inf
