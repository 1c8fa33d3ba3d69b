"""Guards from the twentieth random mutation set (benchmarks/mutations_random20.toml): facts that
no test pinned until a mutant of the line survived."""

import math
import warnings

import numpy as np
import pytest
from conftest import regularized_kkt_violation

from attncert.solvers import grades as gs
from attncert.solvers import phase


@pytest.mark.parametrize("nu", [1e-4, 1e-3, 0.01, 1.0])
@pytest.mark.parametrize("clip", [1.1, 2.0])
def test_regularized_clipped_solution_satisfies_its_kkt_conditions(nu, clip):
    """Cor 4 on the box 0 <= u <= 2 ln C, checked directly in u: the gradient vanishes inside and
    points outwards on the faces. The solver works in v = s u, s = max(1, sqrt(nu) / (2 ln lambda)),
    so its box is [0, 2 s ln C]; a box of 2 ln C / s in v went unseen wherever s = 1 (a light penalty)
    and clipped the optimum (u_0 = 0.0387 at nu = 0.01, C = 1.1) under a heavy one."""
    la, lt, log_lam = np.log([0.9, 0.1]), np.log([0.1, 0.9]), 1 / 64
    u = 2 * gs.solve_regularized(None, None, nu, log_lam, clip, log_alpha=la, log_tau=lt).log_g
    assert np.all((u >= 0) & (u <= 2 * math.log(clip) * (1 + 1e-12)))
    assert regularized_kkt_violation(la, lt, u, nu=nu, log_lam=log_lam, clip=clip) < 1e-6


def test_one_condensed_point_has_no_spread_and_no_warning():
    """c-hat's spread (s.d. / mean over the condensed points) needs two points; with one it is NaN,
    computed without numpy's 'degrees of freedom <= 0' warning reaching the user."""
    tiny = phase.Protocol("tiny", d_ks=(4, 64), Ts=(10,), gammas=(0.0, 1.0), seeds=2, trials=100)
    assert [phase.branch(d, 10) for d in tiny.d_ks] == ["condensed", "mean-field"]
    gamma_c = np.array([[[0.95], [1.00]], [[0.97], [1.02]]])
    sweep = phase.Sweep(tiny, "mc", np.zeros((2, 2, 1, 2)), gamma_c)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stats = phase.summarise(sweep)
    assert math.isnan(stats.c_hat_spread)
    assert stats.c_hat == pytest.approx(0.96 / phase.freezing_point(10), rel=1e-14)
