"""Guards from the undrawn set (benchmarks/mutations_undrawn.toml): the sites of theory/ and solvers/ that no
random set had drawn, each mutated once. Each test pins what a survivor of that set changed unseen."""

import math

import numpy as np
import pytest
import sympy as sp
import z3
from conftest import reference_psa_attention

from attncert.solvers import gllm_models as gm
from attncert.solvers import grades, phase, score_model
from attncert.solvers import psa_operators as ops
from attncert.solvers import score_quadrature as sq
from attncert.solvers.backend import get_backend
from attncert.solvers.score_model import ScoreModel
from attncert.solvers.sweep import get_executor
from attncert.theory import gllm as gllm_theory
from attncert.theory import plga


@pytest.mark.parametrize("sigma_t", [-1.0, -1e-300, math.inf, math.nan])
def test_score_model_refuses_a_target_noise_that_is_not_a_finite_nonnegative_number(sigma_t):
    """The score model checks sigma_t itself, not only through the CLI: both halves of 'finite and >= 0'
    refuse something (-1 is finite, inf is >= 0)."""
    with pytest.raises(ValueError, match="sigma_t must be a finite number >= 0"):
        ScoreModel(sigma_t=sigma_t)
    assert ScoreModel(sigma_t=0.0).sigma_t == 0.0


def test_psa_attention_is_finite_and_right_for_scores_far_beyond_exp_range():
    """Softmax is shift-invariant, so only overflow shows whether the row maximum is subtracted: scores in
    the thousands (exp overflows past 709) must still give the reference attention, full and incremental."""
    backend = get_backend("numpy")
    rng = np.random.default_rng(64)
    q, k, v = 40.0 * rng.standard_normal((8, 4)), 40.0 * rng.standard_normal((8, 4)), rng.standard_normal((8, 4))
    expected = reference_psa_attention(q, k, v, 0.5, 0.5)
    assert np.isfinite(expected).all()
    args = [backend.asarray(a) for a in (q, k, v)]
    for run in (ops.causal_attention, ops.incremental_decode):
        np.testing.assert_allclose(backend.to_numpy(run(backend, *args, 0.5, 0.5)), expected, rtol=0, atol=1e-12)


def test_the_dask_executor_leaves_the_callers_default_client_alone():
    """DaskExecutor.map connects with set_as_default=False: a caller's own default client stays the default
    while the map runs (checked at each progress callback) and after it."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, host="127.0.0.1", protocol="tcp", dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster.scheduler_address) as mine:
            seen: list[bool] = []
            executor = get_executor("dask", cluster.scheduler_address)
            assert executor.map(abs, [-3, 1], on_done=lambda _: seen.append(distributed.default_client() is mine)) == [3, 1]
            assert seen == [True, True] and distributed.default_client() is mine


def test_z3_admits_sees_a_variable_that_only_a_tautology_mentions():
    """z3 leaves a variable out of its model when the constraints never restrict it (y >= 0 or y < 0); the
    one-point check must still count it free, so the model is completed (y = 0) before it is excluded."""
    x, y = z3.Reals("x y")
    for free in (z3.Or(y >= 0, y < 0), y * 0 == 0):
        assert not plga.z3_admits((free,), (x == 1,), "x = 1").holds
    assert plga.z3_admits((x >= 0, z3.Or(y >= 0, y < 0)), (x == 1, y == 2), "x = 1, y = 2").holds


@pytest.mark.parametrize("count", [1, 3])
def test_graded_heads_refuse_a_grade_list_that_is_not_one_per_head(count):
    """EG-MHSA and its compiled form take one grade vector per head: a longer list is not silently cut to
    the heads, nor a shorter one to the grades (compile_graded would return too few columns)."""
    rng = np.random.default_rng(12)
    x, wq, wk, wv, wo = rng.standard_normal((3, 4)), *(rng.standard_normal((4, 4)) for _ in range(4))
    grades = [[0, 1], [1, 0], [2, 2]][:count]
    with pytest.raises(ValueError, match="zip"):
        gm.eg_mhsa(x, wq, wk, wv, wo, heads=2, grades=grades, lam=1.5)
    with pytest.raises(ValueError, match="zip"):
        gm.compile_graded(wq, 2, grades, 1.5)


def test_the_two_branch_law_takes_the_mean_field_branch_at_the_crossover():
    """Thm 64: mean-field on d_k >= 8L, so at d_k = 8L exactly the law is the mean-field root (L/2)^{1/4},
    not c times the freezing point (equal only at c = 1); one float below it is condensed."""
    for T in (15, 512, 4097):
        crossover = 8 * phase.log_competitors(T)
        assert phase.branch(crossover, T) == "mean-field"
        assert phase.branch(math.nextafter(crossover, 0.0), T) == "condensed"
        assert phase.predicted_gamma_c(crossover, T, 0.9) == pytest.approx((math.log(T - 1) / 2) ** 0.25, rel=1e-14)


@pytest.mark.parametrize(("d_k", "sigma_t", "expected"), [(1e12, 0.0, 1.0), (0.0, 0.0, 0.0)])
def test_argmax_plateau_counts_from_zero_wins(d_k, sigma_t, expected):
    """p_inf = P(sqrt(d_k) + sigma_t Z_0 > 2 max_j Z_j) is exactly 1 when the target is 10^6 and (to 2^-60)
    exactly 0 when it is 0 against 60 distractors: the count starts at 0 wins, so no trial is added."""
    p = score_model.argmax_plateau_mc(get_backend("numpy"), d_k=d_k, T=62, sigma_t=sigma_t, trials=5000, seed=3)
    assert p == expected


def test_conditional_mass_is_zero_where_the_whole_window_is_above_the_phi_table():
    """Above the phi table (y > 9s + 5) phi = 0, so a target far below the distractors (a = -60, where F(a)
    = E[1/(1 + e^60 S)] < 1e-25) reads 0 from the padding, not the mass of a table padded with 1."""
    s, h = 1.5, 0.1
    y0, q = sq._phi_complement_table(s, h)
    masses = sq._conditional_masses(np.array([-60.0, 1.2]), sq._padded_powers(q, [3]), y0, h)[3]
    assert masses[0] < 1e-25 and 0.1 < masses[1] < 1


def test_exact_solver_at_the_first_breakpoint_keeps_every_coordinate_on_the_lower_face():
    """alpha = tau to rounding plus a tiny coordinate with alpha < tau: the excess k^2 A0 - T0 is >= 0 at the
    first breakpoint, so the bisection ends at lo_i = 0 and the interval has no left end. Given the last
    breakpoint as its left end instead, the probe lands mid-range and puts coordinates on g = C, violating
    the KKT signs by 0.38. The two equal coordinates alone are optimal at any common g; the tiny one
    (tau_2 / alpha_2 = 33 > C^4) sets them at C: g = (1.5, 1.5, 1), with residuals at rounding (50 digits).
    Lambda there is 1 - 7.1e-20 (60 digits), below g = 1 everywhere (exactly 1), which the search reported
    before its excess left out the coordinates at their own breakpoint."""
    alpha = [0.43917332103276374, 0.5608266789672364, 4.109924301154379e-21]
    tau = [0.43917332103276396, 0.5608266789672366, 1.3695964631291264e-19]
    solution = grades.solve_clipped(alpha, tau, clip=1.5)
    np.testing.assert_array_equal(solution.g, [1.5, 1.5, 1.0])
    residuals = grades.kkt_residuals(alpha, tau, solution, 1.5)
    assert max(residuals.stationarity, residuals.lower_sign, residuals.upper_sign, residuals.feasibility) < 1e-15


_FOUR, _TWO_BY_TWO = [1.0, 2.0, 3.0, 4.0], [[1.0, 2.0], [4.0, 3.0]]


@pytest.mark.parametrize(("x", "y"), [(_FOUR, _TWO_BY_TWO), (_TWO_BY_TWO, _FOUR)])
def test_pearson_r_refuses_one_two_dimensional_sample_of_the_same_size(x, y):
    """Each sample must be 1-D on its own: a 2 x 2 sample beside four values has the same size, and only
    the dimension check names the problem (numpy's matmul message, or a number, otherwise)."""
    with pytest.raises(ValueError, match="pearson_r needs two 1-D samples"):
        phase.pearson_r(x, y)


def test_unclipped_solution_reports_its_lower_set_and_a_ray_of_minimisers():
    """The closed form g*_j = (alpha_j/tau_j)^{1/4}, scaled to min g = 1, reports lo = the coordinates at
    g = 1 exactly: not the others, and not a zero alpha's coordinate (g -> 0 there, policy delete)."""
    solution = grades.solve_unclipped([0.1, 0.2, 0.7], [0.7, 0.2, 0.1])
    assert solution.lo.tolist() == [0] and solution.hi.tolist() == [] and solution.g[0] == 1.0
    # Lambda(c g) = Lambda(g): the minimisers are a ray, of which min g = 1 is the canonical point
    assert solution.unique is False
    with_zero = grades.solve_unclipped([0.0, 0.3, 0.7], [0.7, 0.2, 0.1])
    assert with_zero.lo.tolist() == [1] and with_zero.g[1] == 1.0 and not with_zero.attained


def test_grading_overhead_is_an_exact_integer_count_at_any_size():
    """d^2 + K H d_k + d + |V| with d_k = d / H an integer: an exact count, also past 2^53 where a float
    d / H would round the total (d = 2^27 + 2: d^2 is about 2^54)."""
    d, layers, heads, vocab = 2**27 + 2, 3, 2, 7
    total = gllm_theory.grading_overhead(d, layers, heads, vocab)
    assert type(total) is int and total == d * d + layers * d + d + vocab


def test_bracketed_root_accepts_a_zero_at_the_upper_end():
    """Its contract is f(lo) < 0 <= f(hi): a zero exactly at hi is a bracket (and the answer), not an error."""
    assert grades.bracketed_root(lambda x: x - 1.0, 0.0, 1.0) == pytest.approx(1.0, abs=1e-14)
    with pytest.raises(ValueError, match="f\\(lo\\) < 0 <= f\\(hi\\)"):
        grades.bracketed_root(lambda x: x - 1.0, 0.0, 0.5)


def test_commutant_count_decides_a_gap_three_finest_radii_wide():
    """The boxes are 10^(5 - digits) max(1, |theta|) wide, absolute below |theta| = 1: at 640 digits the angles
    1 and 1 + 3 10^-635 (each box 10^-635 either side) are separated, and boxes twice as wide (a floor of 2
    instead of 1) would straddle: the count is 4 (set 43's test checks the tenfold case)."""
    assert plga.commutant_dimension([sp.Integer(1), 1 + 3 * sp.Integer(10) ** -635]) == 4


@pytest.mark.parametrize("shift", [-700.0, -300.0, 0.0, 300.0, 700.0])
def test_log_mean_exp_keeps_a_tiny_departure_whatever_the_scale_of_the_log_weights(shift):
    """ln((1 + 1e-20 e) / (1 + 1e-20)) = 1.718281828459045e-20 (mpmath, 50 digits) from log weights
    (0, ln 1e-20) shifted by any constant: the weights are rescaled by their largest before the departure
    is formed. Scaled by e^{+max} instead they overflow (or underflow) at |shift| = 700, the departure is
    NaN, and the log-sum-exp fallback rounds the answer to 0 (fifth undrawn set). The tolerance covers the
    rounding of shift + ln 1e-20 itself (ulp(654) = 1.1e-13)."""
    log_w = np.array([shift, shift + math.log(1e-20)])
    value = grades.log_mean_exp(log_w, np.array([0.0, 1.0]))
    assert value == pytest.approx(1.718281828459045e-20, rel=1e-12, abs=0)


@pytest.mark.parametrize(
    ("log_w", "x", "expected"),
    [
        ([0.0], [-23.0], -23.0),
        # ln((e^-30 + 3 e^-40) / 4), mpmath at 40 digits
        ([0.0, math.log(3.0)], [-30.0, -40.0], -31.38615817060495),
    ],
)
def test_log_mean_exp_of_a_mean_far_below_one_is_exact_to_rounding(log_w, x, expected):
    """A mean of 1e-10 has departure -1 + 1e-10, which holds 1e-10 only to 1e-16 absolute: log1p of it would be
    1e-6 off, so from |departure| = 0.5 on log_mean_exp takes the log-sum-exp difference. The fifth undrawn
    set moved that switch to 1.5 and nothing noticed."""
    assert grades.log_mean_exp(np.array(log_w), np.array(x)) == pytest.approx(expected, rel=1e-15, abs=0)


@pytest.mark.parametrize("sigma_t", [2.0 + 1e-9, 2.5, 3.0])
def test_the_quadrature_cost_model_counts_the_target_score_route_just_above_sigma_t_2(sigma_t):
    """tau = sigma_t s / 2 exceeds max(1, s) for s >= 1 as soon as sigma_t > 2, so the target-score route can run
    there and --max-minutes / --max-memory must budget it: fig7's estimate at sigma_t = 2.5 counts 9.1e9
    operations, not sigma_t = 2's 1.8e9. The fifth undrawn set moved the threshold to 3 and only the pins at
    2 and 20 were there to see it. The budget is the one pinned at sigma_t = 20: how far sigma_t lies above 2
    does not change which routes may run. (The ratio to sigma_t = 2's estimate fell from above 5 to 4.99 when
    the phi table's longer lower end, set 136, grew the shared kernel more than the route's own term.)"""
    grid = (phase.FIG7.d_ks, phase.FIG7.Ts, phase.FIG7.gammas)
    model = ScoreModel(sigma_t=sigma_t)
    assert any(model.sigma_t * model.distractor_sd(g) / 2 > max(1.0, model.distractor_sd(g)) for g in grid[2])
    work, memory = sq.work_and_memory(model, *grid)
    base_work, base_memory = sq.work_and_memory(ScoreModel(), *grid)
    assert work > 4 * base_work and memory > base_memory
    assert (work, memory) == sq.work_and_memory(ScoreModel(sigma_t=20.0), *grid)


@pytest.mark.parametrize(("sigma_t", "routed"), [(2.0, False), (2.0 + 1e-9, True)])
def test_the_target_score_route_runs_exactly_where_the_cost_model_budgets_it(monkeypatch, sigma_t, routed):
    """work_and_memory budgets the target-score route for sigma_t > 2 only, so the router must not take it at
    sigma_t = 2, where tau = 2 s / 2 equals s exactly: taken there (tau >= max(1, s), fifth undrawn set), the
    default fig7 sweep ran the costlier route unbudgeted, with values moved by rounding only."""
    calls = []
    route = sq._average_over_the_target_score

    def counted(*args):
        calls.append(args[1])
        return route(*args)

    monkeypatch.setattr(sq, "_average_over_the_target_score", counted)
    sq.softmax_mass_quadrature(ScoreModel(sigma_t=sigma_t, variant="key-only"), d_ks=(16,), Ts=(10,), gammas=(1.0, 2.0))
    assert bool(calls) is routed


@pytest.mark.parametrize(("sigma_t", "gamma", "spacing"), [(2.0, 0.3, 0.025), (10.0, 0.2, 0.05)])
def test_the_quadrature_is_finite_and_converged_at_a_fine_spacing_below_sigma_one(sigma_t, gamma, spacing):
    """For s <= 1 the phi-complement table is a trapezoid in z whose weights sum to 1 only to rounding: at
    spacing 0.025 its top entries come out 1 + 2.2e-16 (100 of them at s = 0.18), at 0.05 up to two near its
    top (two at s = 0.08), which the clip to [0, 1] brings back to a probability. Unclipped, log1p(-q) is NaN
    there, and so is A wherever a t-window reaches them: from y = 4.25 at spacing 0.025, and at 0.05 once the
    target scores spread low (sigma_t = 10). The sixth undrawn set clipped at 2 and nothing noticed. A finer
    spacing must instead agree with the default one, both converged far below the printed digits."""
    model, grid = ScoreModel(sigma_t=sigma_t), {"d_ks": (64,), "Ts": (10, 1000), "gammas": (gamma,)}
    s = model.distractor_sd(gamma)
    assert s <= 1.0 and sigma_t * s / 2 <= 1.0  # the z-trapezoid table and the Z_0 route
    fine = sq.softmax_mass_quadrature(model, spacing=spacing, **grid)
    default = sq.softmax_mass_quadrature(model, **grid)
    assert np.all(np.isfinite(fine.values)) and np.all(np.isfinite(fine.error_estimate))
    np.testing.assert_allclose(fine.values, default.values, rtol=1e-12, atol=0)
