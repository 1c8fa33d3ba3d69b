"""Grade selection (issue 4): the solvers, profile files and `attncert grades`."""

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncert.certificates.frontends.cli import main
from attncert.certificates.frontends.grades_output import table3_values
from attncert.certificates.frontends.grades_report import grade_report
from attncert.certificates.frontends.profiles import ProfileError, load_profiles
from attncert.solvers import grades as gs

EXAMPLES = Path(__file__).resolve().parents[1] / "certificates" / "examples" / "profiles"

# gllm.md §3.3: (nu, mu) -> (Lambda*, Lambda*_C, gain, g*_C); tolerance 1e-6 on Lambda and 1e-4 on g (§3.5)
TABLE3 = {
    (0.8, 0.4): (0.70028, 0.70777, 1.413, (1, 1.2743, 1.6943, 2)),
    (0.7, 0.3): (0.53396, 0.58173, 1.719, (1, 1.3217, 1.9525, 2)),
    (0.6, 0.3): (0.45933, 0.53101, 1.883, (1, 1.2997, 1.9953, 2)),
    (0.5, 0.2): (0.27902, 0.42361, 2.361, (1, 1.3139, 2, 2)),
}


@pytest.mark.parametrize("row", list(TABLE3))
def test_table3_golden_values(row):
    lam, lam_c, gain, g = TABLE3[row]
    r = table3_values(*row)
    assert r["lambda_star"] == pytest.approx(lam, abs=6e-6)
    assert r["lambda_star_c"] == pytest.approx(lam_c, abs=6e-6)
    assert r["gain"] == pytest.approx(gain, abs=6e-4)
    np.testing.assert_allclose(r["g"], g, atol=1e-4)


def test_exact_solver_matches_reference_solvers_and_is_a_minimum():
    rng = np.random.default_rng(7)
    for _ in range(60):
        d = int(rng.integers(2, 10))
        a, t = rng.dirichlet(np.ones(d) * rng.choice([0.3, 1, 3])), rng.dirichlet(np.ones(d))
        C = float(rng.choice([1.0, 1.2, 2.0, 4.0, 10.0]))
        exact = gs.solve_clipped(a, t, C)
        assert np.all(exact.g >= 1 - 1e-12) and np.all(exact.g <= C + 1e-12)
        assert gs.gain(a, t, exact.g) == pytest.approx(exact.value, rel=1e-12)
        assert exact.value == pytest.approx(gs.solve_lbfgsb(a, t, C).value, rel=1e-9)
        # no random feasible point does better
        probes = rng.uniform(1, C, (200, d))
        assert min(gs.gain(a, t, p) for p in probes) >= exact.value * (1 - 1e-12)


def test_exact_solver_agrees_with_cvxpy():
    rng = np.random.default_rng(3)
    for _ in range(5):
        a, t = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
        assert gs.solve_clipped(a, t, 2.0).value == pytest.approx(gs.solve_cvxpy(a, t, 2.0).value, rel=1e-7)


def test_segment_case_is_canonicalised_and_reaches_bc_squared():
    a, t = np.array([0.3, 0.3, 0.4]), np.array([0.35, 0.3, 0.35])
    sol = gs.solve_clipped(a, t, 4.0)
    assert not sol.unique
    assert sol.g.min() == pytest.approx(1.0)
    assert sol.value == pytest.approx(gs.bhattacharyya(a, t) ** 2, rel=1e-14)


def test_kkt_residuals_vanish_at_50_digits():
    r = table3_values(0.5, 0.2)
    sol = gs.solve_clipped(r["a"], r["s"], 2.0)
    assert gs.kkt_residuals(r["a"], r["s"], sol, 2.0).worst < 1e-40


@pytest.mark.parametrize(("s", "clip"), [(2.5e15, 1.5), (1e16, 2.0), (1e17, 2.0), (1e20, 2.0), (1e300, 2.0)])
def test_exact_solver_past_the_last_breakpoint_keeps_far_coordinates_on_the_upper_face(s, clip):
    """ln alpha = (-2s, 0, -inf), ln tau = (0, 0, 10s): the zero alpha's heavy tau puts k past every
    breakpoint, so both coordinates with alpha > 0 sit on g = C (k w_j >= C^2; here ln k = ln C and
    ln w_0 = 4s after normalising). The solver once probed that unbounded interval at the last
    breakpoint + 1.0. Once ln C^2 is below half an ulp of ln w_0, ln C^2 - ln w_0 rounds to -ln w_0, so
    the last breakpoint is also coordinate 0's lower one; and once the ulp is 2 or more, + 1.0 rounds
    back onto it. There coordinate 0 counted as on its lower face: g_0 = 1 with k w_0 = e^(4s). At
    C = 1.5 and 4s = 1e16 (ulp 2) a probe at + 2.0 escaped (set 75's mutant; 1.0 is a tie that rounds
    to the even breakpoint), at 4e16 (ulp 8) it did not. Lambda cannot show the error (alpha_0 = e^-2s
    drops out) nor can the 50-digit KKT residuals (they underflow); the active sets, and their
    agreement with the reported k, can."""
    la, lt = np.array([-2 * s, 0.0, -np.inf]), np.array([0.0, 0.0, 10 * s])
    sol = gs.solve_clipped(None, None, clip, log_alpha=la, log_tau=lt)
    assert (sol.lo.tolist(), sol.hi.tolist()) == ([2], [0, 1])
    np.testing.assert_array_equal(sol.g, [clip, clip, 1.0])
    assert sol.diagnostics["log_k"] == pytest.approx(np.log(clip), rel=1e-15)


@pytest.mark.parametrize(
    ("la", "lt", "heavy_alpha"),
    [
        ([0.0, -1.7e308, -1.0], [1e308, -1.7e308, 0.0], 1.0),  # tau_1 normalises to e^-inf, w_1 = inf
        ([0.0, -np.inf, -2.0], [1.5e308, -1.6e308, 0.0], 2.0),  # alpha_1 = 0 beside it
    ],
)
def test_log_profiles_spanning_more_than_the_double_range_solve_quietly(la, lt, heavy_alpha):
    """ln tau spanning more than max double: normalising it overflows, only towards -inf (x - LSE(x) <= 0),
    which is the weight's right limit, so no RuntimeWarning may reach the user. In effect tau = (1, 0, 0) and
    alpha = (1, 0, e^-a) / (1 + e^-a), so Lambda(g) = (alpha_0 / g_0^2 + alpha_2 / g_2^2) g_0^2 is least
    at g_0 = 1, g_2 = C: Lambda* = (1 + e^-a / C^2) / (1 + e^-a)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = gs.solve_clipped(None, None, 2.0, log_alpha=np.array(la), log_tau=np.array(lt))
    assert (sol.lo.tolist(), sol.hi.tolist()) == ([0], [1, 2])
    e = np.exp(-heavy_alpha)
    assert sol.value == pytest.approx((1 + e / 4) / (1 + e), rel=1e-14)


@pytest.mark.parametrize(
    ("la", "lt", "value", "faces"),
    [
        ([math.log(0.1), math.log(0.9)], [1e306, -1.79e308], 0.1 + 0.9 / 4, ([0], [1])),
        ([0.0, 0.0, 0.0], [1e306, 1e306, -1.79e308], (2 + 1 / 4) / 3, ([0, 1], [2])),
        # unequal alphas: the others are not a segment, and the weight at C keeps them at 1
        ([0.0, 1.0, 2.0], [1e306, 1e306, -1.79e308], (1 + math.e + math.e**2 / 4) / (1 + math.e + math.e**2), ([0, 1], [2])),
    ],
)
def test_exact_solver_puts_a_tau_normalised_to_zero_on_the_upper_face(la, lt, value, faces):
    """ln tau spanning more than the double range: its last entry normalises to tau = 0 (ln w = +inf), so
    Lambda(g) = (sum alpha_j / g_j^2)(sum_{j < last} tau_j g_j^2) wants that coordinate at C and the others at 1:
    Lambda* = 0.1 + 0.9 / 4 and 2.25 / 3. The breakpoint search probes k = 0 there (the excess is already
    nonnegative at the first breakpoint), where k w = 0 * inf put the coordinate on the lower face: g = 1
    everywhere, Lambda = 1, and KKT residuals of 0.9 and 0.33. With alpha = (1, e, e^2) / S the others stay at 1
    (d/dx of (1 + e^2 / 4 + e / x)(1 + x) is > 0 on x = g_1^2 >= 1): Lambda* = (1 + e + e^2 / 4) / S. That case
    also tells the interval's missing left end from the last breakpoint, +inf, or a probe above the first
    breakpoint, which the first two do not."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = gs.solve_clipped(None, None, 2.0, log_alpha=np.array(la), log_tau=np.array(lt))
        kkt = gs.kkt_residuals(None, None, sol, 2.0, log_alpha=np.array(la), log_tau=np.array(lt))
    assert (sol.lo.tolist(), sol.hi.tolist()) == faces
    assert sol.value == pytest.approx(value, rel=1e-14) and kkt.worst < 1e-30


def test_a_faint_coordinate_decides_where_the_others_sit_along_the_gauge():
    """alpha = (1, 1, 1, 1e-22), tau = (1, 1, 1, 1e-17), C = 2, as a profile file gives them. The three equal
    coordinates alone are optimal at any common g; the faint one (w = sqrt(1e-5)) sits at g = 1, and its terms,
    1e-22 / g^2 in A and 1e-17 g^2 in T, set s^2 = sqrt(tau_3 A_R / (alpha_3 T_R)) = 316 > C^2 for the others'
    common scale s: they sit at C. The search once took the rounding of a term that is 0 at its own breakpoint
    for a sign, stopped there and reported g = 1 everywhere, unique, with a KKT residual of 1.1e-18 at 50
    digits; Lambda is the same to 2.5e-18."""
    alpha, tau = [1.0, 1.0, 1.0, 1e-22], [1.0, 1.0, 1.0, 1e-17]
    sol = gs.solve_clipped(alpha, tau, 2.0)
    assert (sol.lo.tolist(), sol.hi.tolist(), sol.unique) == ([3], [0, 1, 2], True)
    np.testing.assert_array_equal(sol.g, [2.0, 2.0, 2.0, 1.0])
    assert gs.kkt_residuals(alpha, tau, sol, 2.0).worst < 1e-30


def test_a_coordinate_at_its_upper_breakpoint_is_labelled_on_the_upper_face():
    """alpha = (1, 1, 8, 1e-22), tau = (2, 2, 1, 1e-17), C = 2: w_2 / w_0 = 4 = C^2, so the others' optimum
    spans the box exactly, g = (1, 1, 2), and the faint coordinate sits at 1. The breakpoint k = 1 / w_0 is also
    coordinate 2's upper one. The search that counted coordinate 2 on its face at its own breakpoint (before
    the excess's strict partition, or with `upper_breaks > log_k`) reported g_2 = C with no upper face."""
    sol = gs.solve_clipped([1.0, 1.0, 8.0, 1e-22], [2.0, 2.0, 1.0, 1e-17], 2.0)
    assert (sol.lo.tolist(), sol.hi.tolist(), sol.unique) == ([0, 1, 3], [2], True)
    np.testing.assert_array_equal(sol.g, [1.0, 1.0, 2.0, 1.0])


def test_a_tau_normalised_to_zero_leaves_the_others_on_their_lower_face():
    """tau = (1, 1, 0, 1) / 3 in effect (ln tau_2 overflows to -inf in normalisation) and alpha = (1, 1, e^-1000, 5)
    / 7. Coordinate 2 costs nothing in T and alpha_2 / g_2^2 in A, so the exact minimiser pushes g_2 / g_j to its
    most, C: g_0 = g_1 = 1, g_2 = C and, inside, g_3 = 5^(1/4) (g_3^2 / g_0^2 = sqrt(alpha_3 / alpha_0)). The
    breakpoint search once read the rounding of coordinates 0 and 1's own terms (0 at their lower breakpoint,
    taken from two sums) as a negative excess there, went on to an interval where only the underflowed tau is
    saturated, T0 = 0, and took its right end: g = (1.34, 1.34, 2, 2), reported unique with no coordinate on
    its lower face. Lambda cannot tell (the gauge moves it by e^-1000); the faces can, and a unique optimum of a
    scale-free Lambda on [1, C]^d touches both."""
    la = np.array([0.0, 0.0, -1000.0, math.log(5.0)])
    lt = np.array([1e306, 1e306, -1.79e308, 1e306])
    sol = gs.solve_clipped(None, None, 2.0, log_alpha=la, log_tau=lt)
    assert (sol.lo.tolist(), sol.hi.tolist(), sol.unique) == ([0, 1], [2], True)
    np.testing.assert_allclose(sol.log_g, [0.0, 0.0, math.log(2.0), math.log(5.0) / 4], rtol=1e-15, atol=0)
    assert sol.value == pytest.approx((2 + math.sqrt(5)) ** 2 / 21, rel=1e-14)


def test_epsilon_max_brackets_the_admissible_ray():
    r = table3_values(0.8, 0.4)
    v = np.array([0, 0, 0, 1.0])
    eps = gs.epsilon_max(r["a"], r["s"], v, np.exp(1 / 64))
    assert gs.gain(r["a"], r["s"], np.exp(0.99 * eps * v / 64)) < 1 < gs.gain(r["a"], r["s"], np.exp(1.01 * eps * v / 64))
    assert gs.epsilon_max(r["a"], r["s"], -v, np.exp(1 / 64)) == 0.0


@pytest.mark.parametrize(
    ("small_alpha", "small_tau"),
    [
        (9.468542358002696e-16, 3.530205564216557e-16),
        (4.568739802665496e-16, 4.5048700354536234e-17),
        (1e-20, 3e-21),
        (1e-300, 3e-301),
    ],
)
def test_epsilon_max_keeps_its_precision_when_small_weights_hold_the_departure(small_alpha, small_tau):
    """d = 2, v = (0, 1): Lambda(eps v) = 1 at lam^(2 eps) = alpha_1 tau_0 / (alpha_0 tau_1), in closed form.
    Lambda - 1 is then of the order of the small weights, far below the rounding of 1: the log of a sum
    near 1 was 20 % and 61 % off on the first two profiles and returned 0 on the third."""
    alpha, tau = np.array([1.0, small_alpha]), np.array([1.0, small_tau])
    exact = math.log(small_alpha / small_tau) / (2 * math.log(2.0))  # the normalisations cancel in the ratio
    assert gs.epsilon_max(alpha, tau, np.array([0.0, 1.0]), 2.0) == pytest.approx(exact, rel=1e-12)


def test_epsilon_max_shifts_the_grading_to_the_heaviest_coordinate():
    """Both profiles sit on coordinate 1; <v, alpha - tau> = 3e-18 comes from weights below 1e-17. Without
    the shift each factor of Lambda carries an O(eps) term from coordinate 1 that cancels against the other's, and the
    answer was 0. The root, by 60-digit mpmath bisection: 0.48369106135903277212."""
    alpha = np.array([5.2242050542795034e-21, 0.002362668117804558, 6.874067975415221e-22])
    tau = np.array([2.503878000516345e-18, 0.3913573910328187, 1.523872071729849e-24])
    v = np.array([-0.9991131085398876, 0.5158292357499967, -0.22118827023673274])
    assert gs.epsilon_max(alpha, tau, v, 2.0) == pytest.approx(0.48369106135903277212, rel=1e-12)


def test_log_mean_exp_is_the_log_of_the_weighted_mean():
    """ln(sum w e^x / sum w) on both branches, with weights (2, 0, 5, 3) that do not sum to 1 (so a branch that
    forgot to divide by their sum would be off by ln 10); the zero weight's x never counts."""
    log_w = np.array([math.log(2.0), -math.inf, math.log(5.0), math.log(3.0)])
    near_one = np.array([1e-18, 5.0, -3e-17, 2e-17])  # departure (2e-18 - 1.5e-16 + 6e-17) / 10, far below 1e-16
    assert gs.log_mean_exp(log_w, near_one) == pytest.approx(-8.8e-18, rel=1e-12, abs=0)
    far = np.array([2.0, 5.0, 0.5, 3.0])
    mean = (2 * math.e**2 + 5 * math.e**0.5 + 3 * math.e**3) / 10
    assert gs.log_mean_exp(log_w, far) == pytest.approx(math.log(mean), rel=1e-15, abs=0)
    past_expm1 = np.array([800.0, 0.0, 1.0, -2.0])  # expm1(800) overflows: the log-sum-exp form
    assert gs.log_mean_exp(log_w, past_expm1) == pytest.approx(800 + math.log(0.2), rel=1e-15, abs=0)
    assert gs.log_mean_exp(log_w, near_one, w=np.array([4.0, 0.0, 10.0, 6.0])) == pytest.approx(-8.8e-18, rel=1e-12, abs=0)


def test_exact_solver_keeps_a_zero_alpha_coordinate_off_the_upper_face():
    """alpha = (0, 1), tau = (1/2, 1/2), C = 2: Lambda = (g_0^2 + g_1^2) / (2 g_1^2) is least at g = (1, 2),
    5/8. The zero-alpha coordinate sits on the lower face only; counted on both faces (the upper count
    capped at d + n_lo instead of d - n_lo), it went to g_0 = 2 and Lambda = 1."""
    sol = gs.solve_clipped(np.array([0.0, 1.0]), np.array([1.0, 1.0]), 2.0)
    assert sol.g.tolist() == [1.0, 2.0] and sol.value == pytest.approx(0.625, rel=1e-15)
    assert (sol.lo.tolist(), sol.hi.tolist()) == ([0], [1])


def test_exact_solver_puts_an_exact_tie_at_a_large_clip_on_the_upper_face():
    """alpha = (1, C^4), tau = (1, 1): the unclipped optimum has g_1 / g_0 = (alpha_1 / alpha_0)^(1/4) = C exactly,
    so g = (1, C) touches both faces and is the only minimiser, Lambda* = (1 + C^2)^2 / (2 (1 + C^4)) = 1/2 + 1e-18.
    At C = 1e9, ln C - 1e-15 rounds to ln C: the upper face must take ln g >= that, not >."""
    sol = gs.solve_clipped(np.array([1.0, 1e36]), np.array([1.0, 1.0]), 1e9)
    assert (sol.lo.tolist(), sol.hi.tolist(), sol.unique) == ([0], [1], True)
    assert sol.value == pytest.approx(0.5, rel=1e-12)


def test_epsilon_max_doubles_its_bracket_up_to_the_last_power_of_two_below_1e300():
    """alpha = (0, 1/2, 1/2), tau uniform, v = (-1, w, 0) with w = 2.39e-300: once e^-s has died out,
    Lambda = (1 + cosh y) / 3 with y = s w, which is 1 at y = acosh 2 = ln(2 + sqrt 3), s = 5.5e299. Doubling
    reaches 2^996 = 6.7e299 below the 1e300 cut-off; tripling stops at 3^628 = 4.2e299 and answered inf."""
    w = 2.3945454545454543e-300
    eps = gs.epsilon_max(np.array([0.0, 0.5, 0.5]), np.full(3, 1 / 3), np.array([-1.0, w, 0.0]), 2.0)
    assert eps == pytest.approx(math.log(2 + math.sqrt(3)) / w / (2 * math.log(2.0)), rel=1e-12)


def test_kkt_residuals_are_evaluated_at_the_documented_fifty_digits():
    """The module docstring, the README and the report's "KKT residual (mpmath, 50 digits)" say 50."""
    assert "mpmath at 50 digits" in " ".join(gs.__doc__.split())
    a, t = np.array([0.3, 0.7]), np.array([0.6, 0.4])
    assert gs.kkt_residuals(a, t, gs.solve_clipped(a, t, 2.0), 2.0).digits == 50


def test_first_order_certificate_is_the_dot_product_on_the_simplex():
    """<q, alpha - tau> on the simplex, against exact rationals; rows of replicates one by one."""
    from fractions import Fraction

    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(2, 9))
        a, t = rng.uniform(0.01, 3, n), rng.uniform(0.01, 3, n)  # unnormalised on purpose
        q = rng.normal(0, 5, n)
        fa, ft, fq = ([Fraction(float(x)) for x in v] for v in (a, t, q))
        exact = sum(qj * (aj / sum(fa) - tj / sum(ft)) for qj, aj, tj in zip(fq, fa, ft, strict=True))
        assert gs.first_order_certificate(a, t, q) == pytest.approx(float(exact), rel=1e-12, abs=1e-14)
    rows_a, rows_t = rng.dirichlet(np.ones(5), 4), rng.dirichlet(np.ones(5), 4)
    q = rng.normal(0, 1, 5)
    np.testing.assert_array_equal(
        gs.first_order_certificate(rows_a, rows_t, q),
        [gs.first_order_certificate(x, y, q) for x, y in zip(rows_a, rows_t, strict=True)],
    )
    # grades at the double range's edge: the centred, scaled sum does not overflow
    assert gs.first_order_certificate([0.51, 0.49], [0.5, 0.5], [1e308, -1e308]) == pytest.approx(2e306, rel=1e-12)
    # a large constant part is taken off before the sum, not added: at q = 2^52 + (0, 1, 2) the centred
    # q is exactly (-1, 0, 1) and the certificate exactly -1/2, where adding the midrange rounded it to -1
    assert gs.first_order_certificate([0.5, 0.25, 0.25], [0.25, 0.25, 0.5], 2.0**52 + np.array([0.0, 1.0, 2.0])) == -0.5


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0.001, 1000), min_size=2, max_size=12),
    st.lists(st.floats(0.001, 1000), min_size=2, max_size=12),
    st.floats(-1e6, 1e6),
)
def test_a_constant_direction_has_certificate_zero_and_eps_max_zero(a, t, c):
    """Lambda(eps * c 1) = 1 for every eps, so the ray never enters Q+: the certificate is exactly 0
    and eps_max is 0. The plain dot product left a rounding residue of either sign, and eps_max
    answered inf on about 4 profiles in 10 (2000 random 5-level profiles, q = 0.7 1)."""
    n = min(len(a), len(t))
    a, t = np.array(a[:n]), np.array(t[:n])
    q = np.full(n, c)
    assert gs.first_order_certificate(a, t, q) == 0.0
    assert gs.epsilon_max(a, t, q, 2.0) == 0.0


def test_grades_reports_a_constant_candidate_as_outside_q_plus_without_a_warning(tmp_path, capsys):
    """Table 3's (0.7, 0.3) profile with q = (1, 1, 1, 1) (the uniform grading): `attncert grades`
    printed <q, alpha - tau> = +5.551e-17, eps_max = inf and the E1 warning "the direction enters Q+"."""
    doc = json.loads((EXAMPLES / "table3_nu07_mu03.json").read_text())
    doc["candidates"] = [{"name": "constant", "granularity": "level", "q": [1, 1, 1, 1]}]
    profile, out = tmp_path / "constant.json", tmp_path / "report.json"
    profile.write_text(json.dumps(doc))
    assert main(["grades", str(profile), "--json", str(out)]) == 0
    assert "warning" not in capsys.readouterr().out
    (cand,) = json.loads(out.read_text())["candidates"]
    assert cand["certificate"] == 0.0 and cand["epsilon_max"] == 0.0 and cand["in_admissible_cone"] is False


def test_solver_rejects_bad_input():
    with pytest.raises(ValueError, match="same nonzero length"):
        gs.solve_clipped([0.5, 0.5], [1.0], 2.0)
    with pytest.raises(ValueError, match="clip"):
        gs.solve_clipped([0.5, 0.5], [0.5, 0.5], 0.5)


# --- profile files ---------------------------------------------------------------------------------------
def test_geometric_json_toml_and_level_csv_agree():
    values = []
    for name in ("table3_nu06_mu03.json", "table3_nu06_mu03.toml", "levels_06_03.csv"):
        rep = grade_report(load_profiles(EXAMPLES / name))
        values.append(rep.optimum.value)
    assert values == pytest.approx([0.53101] * 3, abs=5e-5)


def test_coordinate_profile_reports_levels_bootstrap_and_the_e1_warning():
    rep = grade_report(load_profiles(EXAMPLES / "coord1024.json"))
    assert rep.profiles.alpha.size == 1024
    assert rep.level_aggregate_bc >= rep.bc
    cands = {c.name: c for c in rep.candidates}
    assert not cands["uniform"].in_admissible_cone and cands["uniform"].gain_value == pytest.approx(1.0)
    assert cands["taxonomic"].in_admissible_cone and cands["taxonomic"].bootstrap_sign_fraction == 1.0
    steep = cands["too_steep"]
    assert steep.certificate > 0 and steep.gain_value > 1 and "E1" in steep.warning


def test_csv_coordinate_profile_matches_the_json_one():
    a = grade_report(load_profiles(EXAMPLES / "coord1024.json")).optimum.value
    b = grade_report(load_profiles(EXAMPLES / "coord1024.csv")).optimum.value
    assert a == pytest.approx(b, rel=1e-9)


def _write_profile(tmp_path, alpha, tau, selection, name="p.json"):
    levels = [{"index": i, "name": f"l{i}", "dim": 1} for i in range(len(alpha))]
    doc = {
        "format": "gllm-profiles",
        "version": 1,
        "basis": {"levels": levels},
        "target": {"granularity": "level", "kind": "energies", "values": list(alpha)},
        "data": {"granularity": "level", "kind": "variances", "values": list(tau)},
        "selection": selection,
    }
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_zero_policies(tmp_path):
    # issue 12: alpha = (0, .5, .5), tau = (.5, .3, .2), C = 2: the minimum over [1, 2]^3 is 0.625
    alpha, tau = (0.0, 0.5, 0.5), (0.5, 0.3, 0.2)
    for policy in ("keep_clipped", "delete"):
        rep = grade_report(load_profiles(_write_profile(tmp_path, alpha, tau, {"zero_policy": policy, "C": 2})))
        assert rep.optimum.value == pytest.approx(0.625, rel=1e-12)
        assert rep.optimum.attained and gs.gain(rep.profiles.alpha, rep.profiles.tau, rep.optimum.g) == pytest.approx(0.625)
        assert np.all(rep.optimum.g >= 1) and np.all(rep.optimum.g <= 2 + 1e-12)
    # unclipped deletion: the infimum keeps tau unnormalised (gllm.md E7) and is not attained
    path = _write_profile(tmp_path, alpha, tau, {"zero_policy": "delete", "mode": "unclipped"})
    rep = grade_report(load_profiles(path))
    assert rep.optimum.value == pytest.approx((np.sqrt(0.5 * 0.3) + np.sqrt(0.5 * 0.2)) ** 2, rel=1e-12)
    assert not rep.optimum.attained and rep.optimum.g[0] == 0
    with pytest.raises(ProfileError, match="keep_clipped"):
        load_profiles(_write_profile(tmp_path, alpha, tau, {"zero_policy": "keep_clipped", "mode": "unclipped"}))


@pytest.mark.parametrize("bad", sorted((EXAMPLES / "bad").iterdir()), ids=lambda p: p.name)
def test_every_bad_example_gives_one_clear_error(bad, capsys):
    with pytest.raises(ProfileError) as info:
        load_profiles(bad)
    message = str(info.value)
    assert message.startswith(str(bad)) and "\n" not in message
    assert main(["grades", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1


def test_unknown_file_type(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("x: 1")
    with pytest.raises(ProfileError, match="unknown file type"):
        load_profiles(path)


# --- the command line ----------------------------------------------------------------------------------------
def test_grades_cli_writes_json_and_cross_checks(tmp_path, capsys):
    out = tmp_path / "report.json"
    assert main(["grades", str(EXAMPLES / "table3_nu05_mu02.json"), "--cross-check", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["schema"] == "attncert.grades-report/1"
    assert data["lambda_star_c"] == pytest.approx(0.42361, abs=5e-6)
    assert data["active_sets"] == {"lo": [0], "hi": [2, 3]}
    assert all(v < 1e-7 for v in data["cross_checks"].values())
    assert "token gain" in capsys.readouterr().out


def test_grades_cli_regularized_clipped_reports_the_clipped_levels(tmp_path):
    """Cor 4 with a clip (mode regularized_clipped, nu_mag 1e-6 / 256, levels of 256 coordinates, so the
    penalty sum_l 256 nu_mag v_l^2 is 1e-6 ||v||^2): the optimum is the clipped one to 3e-3 and its two top
    levels sit at g = C, which the report's active sets must say (they once read 1 / 3 / 0)."""
    profile = json.loads((EXAMPLES / "table3_nu05_mu02.json").read_text())
    assert [level["dim"] for level in profile["basis"]["levels"]] == [256] * 4
    profile["selection"] |= {"mode": "regularized_clipped", "nu_mag": 1e-6 / 256}
    path, out = tmp_path / "reg.json", tmp_path / "report.json"
    path.write_text(json.dumps(profile))
    assert main(["grades", str(path), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["active_sets"] == {"lo": [0], "hi": [2, 3]}
    assert data["lambda_star_c"] == pytest.approx(0.42361, rel=3e-3)


def test_grades_cli_overrides_and_table3(capsys):
    assert main(["grades", str(EXAMPLES / "table3_nu05_mu02.json"), "--C", "4"]) == 0
    assert "3.43" in capsys.readouterr().out  # gllm.md §3.6: gain 3.439x at C = 4
    assert main(["grades", "--table3"]) == 0
    out = capsys.readouterr().out
    for value in ("0.70777", "0.58173", "0.53101", "0.42361", "1.413", "2.361"):
        assert value in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["grades"], "give a profile file"),
        (["grades", "nope.json"], "file not found"),
        (["grades", "--table3", "x.json"], "takes no profile"),
        (["grades", str(EXAMPLES / "table3_nu05_mu02.json"), "--C", "0.5"], "--C must be >= 1"),
        (["grades", str(EXAMPLES / "table3_nu05_mu02.json"), "--mode", "best"], "invalid choice"),
    ],
)
def test_grades_usage_errors(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_regularized_mode_tends_to_the_unclipped_optimum_as_nu_vanishes():
    r = table3_values(0.6, 0.3)
    values = [gs.solve_regularized(r["a"], r["s"], nu, 1 / 64, None).value for nu in (1e-2, 1e-4, 1e-8)]
    assert values[0] > values[1] > values[2]
    assert values[2] == pytest.approx(r["lambda_star"], rel=1e-4)
    clipped = gs.solve_regularized(r["a"], r["s"], 1e-8, 1 / 64, 2.0)
    assert clipped.value == pytest.approx(r["lambda_star_c"], rel=1e-4)


@settings(max_examples=300, deadline=None)
@given(
    root=st.floats(min_value=1e-3, max_value=1e3),
    power=st.sampled_from([1.0, 3.0, 0.5]),
    scale=st.floats(min_value=1e-200, max_value=1e200),
)
def test_bracketed_root_agrees_with_brentq(root, power, scale):
    from scipy.optimize import brentq

    from attncert.solvers.grades import bracketed_root

    def f(x: float) -> float:
        return scale * (x**power - root**power)

    lo, hi = root / 3, root * 2
    ours = bracketed_root(f, lo, hi, rtol=1e-14)
    assert abs(ours - brentq(f, lo, hi, xtol=1e-300, rtol=1e-14)) <= 4e-14 * hi
    assert abs(ours - root) <= 4e-14 * hi
