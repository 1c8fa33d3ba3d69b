"""Guards from the thirtieth random mutation set (benchmarks/mutations_random30.toml): facts that no test
pinned until a mutant of the line survived."""

import numpy as np
import pytest

from attncert.solvers import grades

ALPHA, TAU = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
LOG_ALPHA, LOG_TAU = np.log(ALPHA), np.log(TAU)


@pytest.mark.parametrize(
    ("linear", "logs"),
    [
        ((ALPHA, TAU), {"log_alpha": LOG_ALPHA}),  # half in logs beside linear profiles
        ((None, None), {"log_tau": LOG_TAU}),  # half in logs alone
    ],
    ids=["beside-linear", "alone"],
)
def test_half_of_the_profiles_in_logarithms_is_refused(linear, logs):
    """log_alpha without log_tau (or the reverse) used to be ignored beside linear profiles: the solver
    then solved alpha, tau and dropped the log profile it was given without a word."""
    with pytest.raises(ValueError, match="log_alpha and log_tau go together"):
        grades.solve_clipped(*linear, 2.0, **logs)


@pytest.mark.parametrize("linear", [(ALPHA, TAU), (ALPHA, None), (None, TAU)], ids=["both", "alpha", "tau"])
def test_profiles_given_twice_are_refused(linear):
    """Linear and log profiles together are ambiguous (the log ones used to win silently)."""
    with pytest.raises(ValueError, match="give the profiles once"):
        grades.solve_clipped(*linear, 2.0, log_alpha=LOG_ALPHA, log_tau=LOG_TAU)


def test_either_form_alone_gives_the_same_solution():
    linear = grades.solve_clipped(ALPHA, TAU, 2.0)
    logs = grades.solve_clipped(None, None, 2.0, log_alpha=LOG_ALPHA, log_tau=LOG_TAU)
    assert logs.value == pytest.approx(linear.value, rel=1e-14)
    np.testing.assert_allclose(logs.g, linear.g, rtol=1e-14)
