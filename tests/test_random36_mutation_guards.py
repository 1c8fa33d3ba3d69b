"""Guards from the thirty-sixth random mutation set (benchmarks/mutations_random36.toml): the L-BFGS-B
cross-check's restart loop, whose stopping rule no test reached, and bracketed_root's final width test at
its boundary."""

import numpy as np
import pytest

from attncert.solvers import grades


def test_lbfgsb_restarts_while_each_restart_makes_progress(scripted_minimize):
    """`_lbfgsb` restarts from its own result until a restart makes no progress, at most 10 times by
    default (its docstring; set 38 drew 11): a run that only halves the distance to the optimum each time
    is restarted all 10 times (11 runs), ending at 2^-11. A loop that stops after the first restart, or
    after the first improving one, ends at 2^-2."""
    calls = scripted_minimize(lambda x: x / 2)
    res = grades._lbfgsb(None, np.array([1.0]), [(0.0, 1.0)])
    assert len(calls) == 11
    assert res.fun == 2.0**-11


def test_lbfgsb_stops_at_the_first_restart_without_progress_and_keeps_the_better_point(scripted_minimize):
    """A restart that ends where it began stops the loop (two runs); one that ends worse stops it too and
    the better, earlier point is returned."""
    calls = scripted_minimize(lambda x: x)
    assert grades._lbfgsb(None, np.array([0.5]), [(0.0, 1.0)], restarts=10).fun == 0.5
    assert len(calls) == 2

    calls = scripted_minimize(lambda x: x / 4 if x[0] == 1.0 else x * 3)
    res = grades._lbfgsb(None, np.array([1.0]), [(0.0, 1.0)], restarts=10)
    assert len(calls) == 2
    assert res.fun == 0.25


def test_bracketed_root_accepts_a_bracket_exactly_rtol_wide():
    """The answer is within rtol * |hi| of the zero, so a bracket exactly that wide is accepted (its
    midpoint returned), also when no evaluation is left; one a little wider is refused. Both widths are
    exact in binary: [1, 2] with rtol = 1/2 is 1 = rtol * 2."""
    assert grades.bracketed_root(lambda x: x - 1.25, 1.0, 2.0, rtol=0.5, max_evaluations=0) == 1.5
    assert grades.bracketed_root(lambda x: x - 1.25, 1.0, 2.0, rtol=0.5) == 1.5
    with pytest.raises(ArithmeticError, match=r"still wider than rtol = 0\.25"):
        grades.bracketed_root(lambda x: x - 1.25, 1.0, 2.0, rtol=0.25, max_evaluations=0)
