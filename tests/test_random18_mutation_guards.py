"""Guards from the eighteenth random mutation set (benchmarks/mutations_random18.toml): facts that
no test pinned until a mutant of the line survived."""

import math

import numpy as np
import pytest

from attncert.solvers import grades as gs
from attncert.solvers import score_quadrature as sq
from attncert.solvers.score_model import ScoreModel


def test_kkt_residuals_reject_the_unclipped_optimum_outside_the_box():
    """alpha = (0.9, 0.1), tau = (0.1, 0.9), C = 2: the active sets lo = {1}, hi = {} rebuild the
    unclipped optimum g^2 = (9, 1), where every first-order sign holds (the gradient vanishes) but
    g_0^2 = 9 > C^2 = 4. Only the box says so: u_0 - 2 log C = log(9/4)."""
    a, t = np.array([0.9, 0.1]), np.array([0.1, 0.9])
    wrong = gs.ClippedSolution(1.0, np.array([3.0, 1.0]), np.array([1]), np.array([], dtype=int), True, "test")
    res = gs.kkt_residuals(a, t, wrong, 2.0)
    assert max(res.stationarity, res.lower_sign, res.upper_sign) < 1e-40
    assert res.feasibility == pytest.approx(math.log(9 / 4), rel=1e-14)
    assert res.worst == res.feasibility
    # the solver's own active sets (g = (2, 1)) lie on the box
    assert gs.kkt_residuals(a, t, gs.solve_clipped(a, t, 2.0), 2.0).feasibility == 0.0


def test_kkt_residuals_of_a_segment_optimum_rebuild_its_canonical_grading():
    """In the segment case the residuals rebuild g_j^2 = w_j / min w, which lies in [1, C^2]; the
    scale is not free (Lambda is invariant under it, but the box is not): w_j * min w puts
    coordinate 0 at g^2 = min w^2 = 6/7 < 1, outside the box by log(7/6)."""
    a, t = np.array([0.3, 0.3, 0.4]), np.array([0.35, 0.3, 0.35])
    sol = gs.solve_clipped(a, t, 4.0)
    assert not sol.unique
    res = gs.kkt_residuals(a, t, sol, 4.0)
    assert res.feasibility == 0.0 and res.worst < 1e-40


@pytest.mark.parametrize("s", [0.01, 0.3, 2.0, 40.0, 512.0])
@pytest.mark.parametrize("h", [0.1, 0.05])
def test_phi_table_spans_its_documented_range(s, h):
    """_phi_complement_table tabulates q = 1 - phi on a uniform grid covering [-10.5s - 60, 9s + 5] and
    no more than one step beyond; outside it phi^m is taken as 1 (left) and 0 (right), which the end
    values bear out: q(y0) below 5e-26, so that m <= 10^6 distractors leave phi^m within 5e-20 of 1 (from
    -9s - 45, 10^6 q(y0) was 5e-14 at s = 512, set 136). At s <= 1 the left end once read phi = 1 - 1.4e-14:
    its z-nodes came from np.arange with a float step, spaced 1.4e-14 wider than the trapezoid weights
    assumed."""
    y0, q = sq._phi_complement_table(s, h)
    y_end = y0 + h * (len(q) - 1)
    assert -10.5 * s - 60 - h < y0 <= -10.5 * s - 60
    assert 9 * s + 5 <= y_end < 9 * s + 5 + h + 1e-9
    assert q[0] <= 5e-26 and q[-1] >= 1 - 1e-15


@pytest.mark.parametrize("gamma", [0.5, 2.0, 6.0])
def test_one_token_besides_the_target_gets_all_the_mass(gamma):
    """With no distractor (m = 0) F = 1 for every target score, so A is the outer trapezoid's total
    weight over the Z_0 nodes, which must be 1: the nodes must be spaced exactly as the weights
    assume (np.arange with a float step put them 3.6e-15 too close at spacing 0.1)."""
    values = sq._observable(ScoreModel(), [64], [2], [gamma], 0.1)
    assert values[0, 0, 0] == pytest.approx(1.0, abs=1.5e-15)


def test_kkt_residuals_of_active_sets_that_fix_no_scale_are_infinite():
    """alpha vanishes on the only face coordinate, so A0 = 0 and no k = sqrt(T0 / A0) exists: the
    residuals say 'no KKT point' (inf) rather than dividing by zero."""
    a, t = np.array([0.0, 0.5, 0.5]), np.array([0.2, 0.3, 0.5])
    wrong = gs.ClippedSolution(1.0, np.ones(3), np.array([0]), np.array([], dtype=int), True, "test")
    res = gs.kkt_residuals(a, t, wrong, 2.0)
    assert (res.stationarity, res.lower_sign, res.upper_sign, res.feasibility) == (math.inf,) * 4


def test_exact_solver_keeps_a_tiny_tau_on_the_upper_face():
    """ln alpha = (-42.76, -42.09), ln tau = (-76.13, 73.95), C = 1e10: tau_0 / tau_1 = e^-150, and
    the optimum is g = (C, 1) with ln Lambda = -0.41245 (L-BFGS-B agrees). A suffix sum taken as a
    difference of prefix sums lost tau_0, gave T0 = 0 on the partition {0 on the face, 1 inside},
    and the solver returned g = (C, C) with Lambda = 1."""
    la, lt = np.array([-42.759307924744405, -42.08695867013801]), np.array([-76.13320543103235, 73.94585283485844])
    sol = gs.solve_clipped(None, None, 1e10, log_alpha=la, log_tau=lt)
    ref = gs.solve_lbfgsb(None, None, 1e10, log_alpha=la, log_tau=lt)
    assert (sol.lo.tolist(), sol.hi.tolist()) == ([1], [0])
    assert sol.log_g.tolist() == [math.log(1e10), 0.0]
    assert sol.log_value == pytest.approx(-0.4124459221, abs=1e-9) and sol.log_value <= ref.log_value + 1e-12
    assert gs.kkt_residuals(None, None, sol, 1e10, log_alpha=la, log_tau=lt).worst < 1e-30


def test_exact_solver_puts_a_coordinate_that_meets_its_face_at_a_breakpoint_on_it():
    """ln alpha = (109.3, -26.3, 60.2), ln tau = (-30.5, -23.7, 11.1), C = 1e10: the zero of the
    excess sits on the breakpoint where k w_0 = C^2, so g_0 = C; the hi set once left it out, and
    the KKT rebuild from the reported sets put coordinate 0 at e^25 above the box."""
    la, lt = np.array([109.3, -26.3, 60.2]), np.array([-30.5, -23.7, 11.1])
    sol = gs.solve_clipped(None, None, 1e10, log_alpha=la, log_tau=lt)
    assert (sol.lo.tolist(), sol.hi.tolist()) == ([1], [0])
    assert sol.log_g[0] == math.log(1e10)
    assert gs.kkt_residuals(None, None, sol, 1e10, log_alpha=la, log_tau=lt).worst < 1e-30


def test_log_profiles_with_alpha_all_zero_are_refused():
    with pytest.raises(ValueError, match="alpha not all zero"):
        gs.solve_clipped(None, None, 2.0, log_alpha=np.array([-math.inf, -math.inf]), log_tau=np.zeros(2))


def test_a_coordinate_added_to_the_upper_face_at_a_breakpoint_sits_exactly_at_c():
    """Here the zero of the excess is the breakpoint ln k = ln C^2 - ln w_0, and in floats
    (ln C^2 - ln w_0) + ln w_0 falls 7e-15 short of ln C^2: the solver sets the face coordinates
    exactly, so that hi means g = C as ClippedSolution documents."""
    la = np.array([139.56385430744416, -136.5102742120455, -68.1771901348877])
    lt = np.array([38.035009020033385, -294.4794859226854, 45.71508627405274])
    sol = gs.solve_clipped(None, None, 1e10, log_alpha=la, log_tau=lt)
    assert 0 in sol.hi.tolist()
    assert np.all(sol.log_g[sol.hi] == math.log(1e10)) and np.all(sol.log_g[sol.lo] == 0.0)


def test_segment_coordinates_tied_with_the_minimum_sit_exactly_at_one():
    """ln alpha = (0, 0, -1), ln tau = (0, -1, -1): w_0 = w_2 = min w, but after normalisation
    ln w_2 comes out 5.6e-17 above ln w_0; the segment's canonical grading reports both in lo, at
    g = 1 exactly (hypothesis found the tie)."""
    sol = gs.solve_clipped(None, None, 1.5, log_alpha=np.array([0.0, 0.0, -1.0]), log_tau=np.array([0.0, -1.0, -1.0]))
    assert not sol.unique and sol.lo.tolist() == [0, 2]
    assert sol.log_g[0] == sol.log_g[2] == 0.0
