"""Guards for the log-domain grade solver (issue 11): each test checks a public function of
``attncert.solvers.grades`` against a value from gllm.md or an independent computation, so that a
mutation of the solver (benchmarks/mutations.toml, prefix ``gr_``) changes a result that is asserted."""

import math

import numpy as np
import pytest
from scipy import optimize

from attncert.solvers import grades as gs


def test_log_sum_exp_values():
    x = np.array([0.3, -1.2, 2.5])
    assert gs.log_sum_exp(x) == pytest.approx(math.log(np.exp(x).sum()), rel=1e-15)
    assert gs.log_sum_exp(np.array([1000.0, 1000.0])) == pytest.approx(1000 + math.log(2), rel=1e-15)
    assert gs.log_sum_exp(np.array([])) == -math.inf


def test_log_profiles_are_normalised_logarithms():
    la, lt = gs.log_profiles([1.0, 3.0, 0.0], [2.0, 2.0, 4.0])
    np.testing.assert_allclose(np.exp(la), [0.25, 0.75, 0.0], rtol=1e-15)
    np.testing.assert_allclose(np.exp(lt), [0.25, 0.25, 0.5], rtol=1e-15)
    assert la[2] == -math.inf


def test_log_gain_hand_values():
    # gllm.md §1.7: Lambda(g) = (sum alpha_j g_j^-2)(sum tau_j g_j^2) on the simplex;
    # alpha = (1/2, 1/2), tau = (1/4, 3/4), g = (1, 2): (1/2 + 1/8)(1/4 + 3) = 65/32
    la, lt = np.log([1.0, 1.0]), np.log([1.0, 3.0])  # unnormalised: log_gain normalises
    assert gs.log_gain(la, lt, np.log([1.0, 2.0])) == pytest.approx(math.log(65 / 32), rel=1e-14)
    assert gs.gain(np.array([0.5, 0.5]), np.array([0.25, 0.75]), np.array([1.0, 2.0])) == pytest.approx(65 / 32)
    # a zero alpha_j at g_j = 0 (the unclipped infimum, E7) drops out: Lambda = 1 * 1/2
    value = gs.log_gain(np.array([0.0, -math.inf]), np.log([0.5, 0.5]), np.array([0.0, -math.inf]))
    assert value == pytest.approx(math.log(0.5), rel=1e-15)


@pytest.mark.parametrize(
    ("f", "lo", "hi", "root"),
    [(lambda x: x * x - 2, 0.0, 2.0, math.sqrt(2)), (lambda x: math.exp(x) - 10, -5.0, 50.0, math.log(10))],
)
def test_bracketed_root_is_accurate(f, lo, hi, root):
    assert gs.bracketed_root(f, lo, hi, rtol=1e-14) == pytest.approx(root, rel=4e-15)


def test_bracketed_root_needs_a_bracket():
    with pytest.raises(ValueError, match="bracketed_root"):
        gs.bracketed_root(lambda x: x - 5, 0.0, 1.0)


def test_kkt_worst_and_upper_sign():
    # alpha = (0.9, 0.1), tau = (0.1, 0.9), C = 2: the optimum is g = (2, 1), Lambda = (0.9/4 + 0.1)(0.4 + 0.9)
    a, t = np.array([0.9, 0.1]), np.array([0.1, 0.9])
    sol = gs.solve_clipped(a, t, 2.0)
    assert sol.value == pytest.approx(0.325 * 1.3, rel=1e-14)
    assert gs.kkt_residuals(a, t, sol, 2.0).worst < 1e-20
    # g = (2, 2) with both on the upper face: d log Lambda / d u = tau - alpha = (-0.8, 0.8), so the
    # upper face is violated at coordinate 1 by 0.8 and nothing else is violated
    wrong = gs.ClippedSolution(1.0, np.array([2.0, 2.0]), np.array([], dtype=int), np.array([0, 1]), True, "test")
    res = gs.kkt_residuals(a, t, wrong, 2.0)
    assert (res.stationarity, res.lower_sign) == (0.0, 0.0)
    assert res.upper_sign == pytest.approx(0.8, rel=1e-12)
    assert res.worst == pytest.approx(0.8, rel=1e-12)


def test_unclipped_optimum_is_the_fourth_root_rule():
    # Prop 7 (iii): g*_j = (alpha_j / tau_j)^{1/4} normalised to min g = 1, value BC^2
    a, t = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    sol = gs.solve_unclipped(a, t)
    rho = (a / t) ** 0.25
    np.testing.assert_allclose(sol.g, rho / rho.min(), rtol=1e-14)
    assert sol.value == pytest.approx(np.sum(np.sqrt(a * t)) ** 2, rel=1e-14)
    assert sol.gain == pytest.approx(1 / np.sum(np.sqrt(a * t)) ** 2, rel=1e-14)


def test_clipped_solver_on_wide_log_profiles_matches_lbfgsb():
    # log-profiles spanning e^135 (gllm.md §1.10, scale safety), C = 1e10: the exact solver must
    # agree with the independent L-BFGS-B in u = ln g^2, and its lo/hi faces must hold
    la = np.array([109.3, -26.3, 60.2])
    lt = np.array([-30.5, -23.7, 11.1])
    exact = gs.solve_clipped(None, None, 1e10, log_alpha=la, log_tau=lt)
    ref = gs.solve_lbfgsb(None, None, 1e10, log_alpha=la, log_tau=lt)
    assert exact.log_value == pytest.approx(ref.log_value, abs=1e-9)
    assert exact.log_value <= ref.log_value + 1e-12
    assert np.all(exact.log_g[exact.lo] == 0.0)
    assert exact.diagnostics["closed_form"] == pytest.approx(exact.value, rel=1e-9)  # (B + sqrt(A0 T0))^2
    assert gs.kkt_residuals(None, None, exact, 1e10, log_alpha=la, log_tau=lt).worst < 1e-12


def test_clipped_solver_keeps_its_left_end_when_the_excess_rounds_nonnegative_early():
    # C = 1 + 2^-40: a box narrower than the rounding of ln w on profiles of size e^40. The bisection
    # ends at lo_i = 1, so the partition's left end is the first breakpoint, not -inf. Taken as -inf
    # (the `lo_i > 1` mutant), every coordinate lands on g = 1 and the lower face is violated by 8e-13.
    # The exact solver puts coordinate 0 on the lower face, 2 on the upper one and 1 inside, with KKT
    # residuals of 0 at 50 digits. Before the excess left out the coordinates at their own breakpoint,
    # its test rounded to >= 0 at the second breakpoint and the search reported lo = [0, 1] and no upper
    # face, with residuals of 2.5e-22. The profile was found by a seeded search over 20,000 profiles.
    la = np.array([-8.8, 13.50000000000204, 13.10000000000538])
    lt = np.array([19.3, 41.6, 41.2])
    clip = 1 + 2.0**-40
    sol = gs.solve_clipped(None, None, clip, log_alpha=la, log_tau=lt)
    assert (sol.lo.tolist(), sol.hi.tolist()) == ([0], [2])
    assert gs.kkt_residuals(None, None, sol, clip, log_alpha=la, log_tau=lt).worst < 1e-30


def test_clipped_solver_clamps_k_at_the_right_end_of_an_interval_one_ulp_wide():
    # alpha = (2, 2, 3, 1e-22), tau = (2, 3, 3, 1e-17), C = 2: coordinates 0 and 2 have w = sqrt(8/7) to
    # rounding (ln w 8 ulps apart), so their upper breakpoints are adjacent doubles, an interval one ulp wide; the
    # faint coordinate 3 (at g = 1) sets the others at the top of the box: g_0 = g_2 = C and, inside,
    # g_1 = C (2/3)^(1/4). Unclamped at the interval's right end (`gr_k_clamp`), k came from a partition
    # with only the faint coordinate saturated, k = sqrt(tau_3 / alpha_3), and g_1 went to C too.
    sol = gs.solve_clipped([2.0, 2.0, 3.0, 1e-22], [2.0, 3.0, 3.0, 1e-17], 2.0)
    ln2 = math.log(2.0)
    np.testing.assert_allclose(sol.log_g, [ln2, ln2 - math.log(1.5) / 4, ln2, 0.0], rtol=1e-15, atol=1e-16)


def test_clipped_solver_labels_the_faces_that_start_at_the_right_end():
    # ln alpha = (0, 0, -127, 0, 0, 0, -inf), ln tau = (0, 0, -127, 0, 0, 0, 0), C = 1e100 (found by
    # hypothesis): five coordinates with w = sqrt(6/5), and coordinate 2 with the same w but for the
    # rounding of its normalised logarithms (ln w 392 ulps higher), so its upper breakpoint lies one ulp
    # below theirs. The crossing is clamped to the right end, the five's breakpoint, and they are added to
    # hi there. Left out (`rnd18_solver_breakpoint_hi_left_out`), hi was empty and the KKT rebuild from the
    # reported sets fixed no scale (residuals inf).
    la = np.array([0.0, 0.0, -127.0, 0.0, 0.0, 0.0, -np.inf])
    lt = np.array([0.0, 0.0, -127.0, 0.0, 0.0, 0.0, 0.0])
    sol = gs.solve_clipped(None, None, 1e100, log_alpha=la, log_tau=lt)
    assert (sol.lo.tolist(), sol.hi.tolist()) == ([6], [0, 1, 3, 4, 5])
    assert gs.kkt_residuals(None, None, sol, 1e100, log_alpha=la, log_tau=lt).worst < 1e-12


@pytest.mark.parametrize(("nu", "log_lam"), [(1.0, 0.5), (100.0, 0.5)])
def test_regularized_matches_the_cor4_objective(nu, log_lam):
    # Cor 4: min over u >= 0 of LSE(ln alpha - u) + LSE(ln tau + u) + nu / (4 ln^2 lam) |u|^2,
    # minimised here independently (strictly convex: one minimiser)
    a, t = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    weight = nu / (4 * log_lam**2)

    def objective(u):
        ea, et = a * np.exp(-u), t * np.exp(u)
        value = math.log(ea.sum()) + math.log(et.sum()) + weight * float(u @ u)
        return value, et / et.sum() - ea / ea.sum() + 2 * weight * u

    ref = optimize.minimize(
        objective, np.full(3, 0.1), jac=True, method="L-BFGS-B", bounds=[(0, None)] * 3, options={"ftol": 1e-15, "gtol": 1e-12}
    )
    sol = gs.solve_regularized(a, t, nu, log_lam, None)
    np.testing.assert_allclose(2 * sol.log_g, ref.x, atol=1e-6)
    assert sol.diagnostics["objective"] == pytest.approx(ref.fun, abs=1e-12)


def test_log_grading_is_the_logarithm_of_the_grading():
    # ClippedSolution.log_grading is ln g, from g or from the stored log_g (gllm.md §4.3)
    sol = gs.solve_clipped([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], clip=2.0)
    np.testing.assert_allclose(sol.log_grading, np.log(sol.g), rtol=1e-12, atol=1e-12)
    bare = gs.ClippedSolution(1.0, np.array([1.0, 2.0]), np.array([0]), np.array([1]), True, "test")
    np.testing.assert_allclose(bare.log_grading, [0.0, math.log(2)], rtol=1e-15)


def test_cvxpy_clips_a_solution_that_leaves_the_box(monkeypatch):
    # Clarabel's interior-point solutions stay strictly inside 0 < u < 2 ln C (by about 1e-10 on 150
    # random profiles), so the clip in solve_cvxpy is a guard for an inaccurate solution, which no
    # profile here produces: one is injected. Its grading must still lie in [1, C], on the faces exactly
    import cvxpy  # a dependency; imported here, as solve_cvxpy does, so other tests skip its start-up

    clip = 2.0
    outside = np.array([2 * math.log(clip) + 1e-6, 0.7, -1e-6])

    def inaccurate_solve(problem, *args, **kwargs):
        problem.variables()[0].value = outside
        return 0.0

    monkeypatch.setattr(cvxpy.Problem, "solve", inaccurate_solve)
    sol = gs.solve_cvxpy([0.2, 0.3, 0.5], [0.5, 0.3, 0.2], clip)
    assert sol.log_g.tolist() == [math.log(clip), 0.35, 0.0]
