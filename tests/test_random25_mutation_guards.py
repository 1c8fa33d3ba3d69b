"""Guards from the twenty-fifth random mutation set (benchmarks/mutations_random25.toml): facts that
no test pinned until a mutant of the line survived."""

import pytest

from attncert.solvers.grades import bracketed_root


@pytest.mark.parametrize(
    ("f", "root"),
    [
        # f(lo) = -1e-200 beside f(hi) = 1: the secant (lo f(hi) - hi f(lo)) / (f(hi) - f(lo)) rounds to lo
        (lambda x: x - 1.0 - 1e-200, 1.0),
        # f(hi) = 1e-200 beside f(lo) = -1: the secant rounds to hi
        (lambda x: x - 2.0 + 1e-200, 2.0),
    ],
    ids=["secant-on-lo", "secant-on-hi"],
)
def test_bracketed_root_bisects_when_the_secant_lands_on_an_end(f, root):
    """A secant point equal to an end of the bracket would not shrink it: the Illinois step would halve the
    far value about 660 times before the point moved, past the 400-evaluation limit. It falls back to
    bisection instead, which takes 1 to 2e-14 in under 50 halvings."""
    calls = []

    def counted(x: float) -> float:
        calls.append(x)
        return f(x)

    assert bracketed_root(counted, 1.0, 2.0) == pytest.approx(root, rel=1e-14)
    assert len(calls) <= 55
