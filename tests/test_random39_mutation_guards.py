"""Guards from the thirty-ninth random mutation set (benchmarks/mutations_random39.toml): bracketed_root's
documented default cap on evaluations, drawn as an unseen change in three sets."""

import pytest

from attncert.solvers import grades


def test_bracketed_root_gives_up_after_400_evaluations_by_default():
    """With rtol = 0 no bracket of two distinct floats is narrow enough, so the search uses every
    evaluation it is allowed: the two ends, then 400 (the documented default), and raises."""
    calls = []

    def f(x: float) -> float:
        calls.append(x)
        return x - 1 / 3

    with pytest.raises(ArithmeticError, match="after 400 evaluations"):
        grades.bracketed_root(f, 0.0, 1.0, rtol=0.0)
    assert len(calls) == 2 + 400
