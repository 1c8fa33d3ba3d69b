"""Guards found by the random mutation set (issue 11, benchmarks/mutations_random.toml, drawn by
benchmarks/mutation_random.py with seed 20261201): each test pins what a survivor of that set
changed, against the spec, the documentation or an independent computation."""

import math

import numpy as np
import pytest
import sympy as sp

from attncert.solvers import grades
from attncert.solvers.backend import get_backend
from attncert.solvers.phase import FIG7, pearson_r
from attncert.solvers.score_model import ScoreModel, replicate_bytes, softmax_mass_mc
from attncert.solvers.score_quadrature import softmax_mass_quadrature, work_and_memory
from attncert.theory import gllm, psa


def test_an_all_zero_alpha_profile_is_refused():
    """Lambda = BC^2 needs some alpha_j > 0; an all-zero profile has no grading to select."""
    with pytest.raises(ValueError, match="not all zero"):
        grades.solve_clipped([0.0, 0.0, 0.0], [0.2, 0.3, 0.5], 2.0)


def test_bhattacharyya_refuses_profiles_of_different_lengths():
    with pytest.raises(ValueError):
        gllm.bhattacharyya([sp.Rational(1, 2), sp.Rational(1, 2)], [1])


def test_block2_defaults_to_scalar_blocks():
    """psa.block2 without n is the 2 x 2 matrix [[a, b], [c, e]] (n = 1)."""
    a, b, c, e = sp.symbols("a b c e")
    assert psa.block2(a, b, c, e) == sp.Matrix([[a, b], [c, e]])


def test_monte_carlo_draws_are_seeded_per_chunk_of_16384_trials():
    """The protocol of solvers/score_model.py, recomputed here from its statement: chunk i of 16,384
    trials draws (target, distractors) from PCG64(SeedSequence([seed, i])), and A(gamma) is the mean
    of expit(target - logsumexp(distractors)). Same draws, so agreement to rounding."""
    seed, trials, T, d_k, gamma, sigma_t = 11, 20_000, 6, 16, 0.7, 2.0
    masses = []
    for chunk, start in enumerate(range(0, trials, 16_384)):
        n = min(16_384, trials - start)
        z = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, chunk]))).standard_normal((n, T - 1))
        sd = 2 * gamma**2  # t4: distractor scores gamma^2 * 2 Z
        target = gamma**2 * math.sqrt(d_k) + (sigma_t / 2) * sd * z[:, 0]
        distractors = sd * z[:, 1:]
        top = distractors.max(axis=1)
        lse = top + np.log(np.exp(distractors - top[:, None]).sum(axis=1))
        masses.append(1 / (1 + np.exp(-(target - lse))))
    expected = np.concatenate(masses).mean()
    mc = softmax_mass_mc(
        get_backend("numpy"), ScoreModel(sigma_t=sigma_t), d_ks=(d_k,), Ts=(T,), gammas=(gamma,), trials=trials, seed=seed
    )
    assert mc[0, 0, 0] == pytest.approx(expected, rel=1e-12)


def test_pearson_r_of_an_exact_linear_relation_is_one_and_never_above():
    """Rounding puts the raw quotient above 1 for many such samples (up to 1 + 4e-16); r is clipped."""
    rng = np.random.default_rng(5)
    values = []
    for _ in range(200):
        x = rng.standard_normal(int(rng.integers(3, 30)))
        values.append(pearson_r(x, x * rng.uniform(0.1, 10) + rng.uniform(-5, 5)))
        values.append(pearson_r(x, -x * rng.uniform(0.1, 10)))
    assert max(values) == 1.0 and min(values) == -1.0


def test_quadrature_without_target_noise_matches_monte_carlo():
    """sigma_t = 0 is the quadrature's one-node branch (the target is deterministic); the Monte
    Carlo engine, the same model by simulation, agrees within 5 binomial standard errors."""
    model, d_ks, Ts, gammas, trials = ScoreModel(sigma_t=0.0), (4, 64), (10, 25), (0.5, 1.0, 2.0), 40_000
    quad = softmax_mass_quadrature(model, d_ks=d_ks, Ts=Ts, gammas=gammas).values
    mc = softmax_mass_mc(get_backend("numpy"), model, d_ks=d_ks, Ts=Ts, gammas=gammas, trials=trials, seed=3)
    se = np.sqrt(np.maximum(quad * (1 - quad), 1e-6) / trials)
    assert np.all(np.abs(quad - mc) <= 5 * se), np.max(np.abs(quad - mc) / se)


def test_monte_carlo_replicate_memory_is_the_documented_count():
    """replicate_bytes' docstring: four chunk x (T_max - 1) arrays of doubles plus 16 per-trial
    vectors; the tracemalloc test allows 10 %, which one column (T - 2) hides."""
    assert replicate_bytes(60_000, (10, 25)) == 8 * 16_384 * (4 * 24 + 16)
    assert replicate_bytes(100, (3,)) == 8 * 100 * (4 * 2 + 16)


def test_quadrature_work_estimate_of_fig7_is_pinned():
    """The operation count behind ``attncert phase --max-minutes`` for the quadrature engine, as
    calibrated (2026-11): a change to the estimate must be deliberate and recalibrated. At fig7 it
    is dominated by the phi-table convolution at gamma = 8 (rho x kernel = 595 x 28,270 per gamma;
    the Z_0 route's 181 nodes, 161 before its reach went from 8 to 9 s.d., add 1.9 %, and 8,641,992 bytes
    against 7,999,752; since the table's lower end moved from -9s - 45 to -10.5s - 60, set 136, with fig7 at 0.42 s here
    against 0.40 s; 595 x 24,140 before, since the kernel came to span the whole grid instead of 9 s.d.,
    with fig7 at 0.47 s here either way; 595 x 23,040 before, since rho's lower end moved from v = -40
    to -50; 495 x 23,040 before that).
    Recalibrated 2026-12-03, when the t-window's lower end moved from -23 to -40: fig7 now takes
    0.95 s (was 0.74 s), 1.4e9 operations per second against the 3e8 that --max-minutes assumes.
    Memory recalibrated 2026-12-06, when the phi^m tables came to be built once per gamma and held at
    once (6,852,912 before). At sigma_t = 20 the target-score route may run: fig7 then takes 3.4 s
    here against the 30 s that --max-minutes assumes."""
    work, memory = work_and_memory(ScoreModel(), FIG7.d_ks, FIG7.Ts, FIG7.gammas)
    assert (work, memory) == (pytest.approx(1_851_717_250.5, rel=1e-12), 8_641_992)
    work, memory = work_and_memory(ScoreModel(sigma_t=20.0), FIG7.d_ks, FIG7.Ts, FIG7.gammas)
    assert (work, memory) == (pytest.approx(9_071_706_652.5, rel=1e-12), 10_518_312)


def test_pearson_r_of_a_constant_sample_is_nan_without_a_warning():
    """Either sample constant is the undefined case, answered before any 0/0."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(pearson_r([1.0, 1.0, 1.0], [1.0, 2.0, 4.0]))
        assert math.isnan(pearson_r([1.0, 2.0, 4.0], [3.0, 3.0, 3.0]))


def test_exact_softmax_rows_are_exp_over_their_sum():
    """The SymPy branch of gllm_models.softmax_rows (second random set, seed 20261202): each row is
    e^{s_j} / sum_l e^{s_l} over the unmasked entries, exactly."""
    from attncert.solvers.gllm_models import softmax_rows

    scores = np.array([[sp.Integer(0), sp.Integer(1)], [sp.Integer(2), sp.log(3)]], dtype=object)
    rows = softmax_rows(scores, causal=True)
    assert rows[0, 0] == 1 and rows[0, 1] == 0
    assert sp.simplify(rows[1, 0] - sp.exp(2) / (sp.exp(2) + 3)) == 0
    assert sp.simplify(rows[1, 1] - 3 / (sp.exp(2) + 3)) == 0


def test_only_the_failed_client_finaliser_is_silenced(monkeypatch):
    """solvers.sweep drops the garbage-collection complaint of a dask Client that failed to start
    (the user already has the one-line error) and passes every other unraisable exception on. The hook
    is installed once however many connections fail: a second call leaves it as it is, not wrapped again
    (set 43)."""
    import sys
    import types

    from attncert.solvers import sweep

    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    sweep._silence_failed_client()
    installed = sys.unraisablehook
    sweep._silence_failed_client()
    assert sys.unraisablehook is installed

    class Client:
        def __del__(self):  # only its qualified name matters
            pass

    finaliser = types.SimpleNamespace(object=Client.__del__)
    other = types.SimpleNamespace(object=print)
    sys.unraisablehook(finaliser)
    sys.unraisablehook(other)
    assert seen == [other]


def test_one_seed_reports_a_zero_spread_not_nan():
    """With one seed the per-point spread over seeds is 0 by convention (second random set): the
    table never prints 'nan' for a point whose gamma_c exists."""
    from attncert.solvers.phase import Protocol, run_sweep, summarise

    protocol = Protocol("one-seed", d_ks=(8, 64), Ts=(10,), gammas=tuple(np.linspace(0, 8, 9)), seeds=1, trials=500)
    stats = summarise(run_sweep(protocol, ScoreModel(), engine="mc", backend=get_backend("numpy"), seed=0))
    assert [p.gamma_c_sd for p in stats.points] == [0.0, 0.0]


def test_numeric_solvers_do_not_claim_a_unique_minimiser():
    """On the segment case the exact solver reports a segment; the L-BFGS-B and cvxpy cross-checks
    cannot tell, so they say None (they used to say True), and the 50-digit KKT check refuses them."""
    a, t = np.array([0.3, 0.3, 0.4]), np.array([0.35, 0.3, 0.35])
    assert grades.solve_clipped(a, t, 4.0).unique is False
    for solver in (grades.solve_lbfgsb, grades.solve_cvxpy):
        other = solver(a, t, 4.0)
        assert other.unique is None
        with pytest.raises(ValueError, match="uniqueness"):
            grades.kkt_residuals(a, t, other, 4.0)


def test_a_failed_connection_is_explained_by_its_strerror():
    """The reason in a dask executor's one-line error (third random set): the OS's words when there
    are some, else the exception's type."""
    from attncert.solvers.sweep import _reason

    assert _reason(ConnectionRefusedError(111, "Connection refused")) == "Connection refused"
    assert _reason(TimeoutError()) == "TimeoutError"


def test_gpu_counts_ask_each_library_its_own_devices(monkeypatch):
    """backend._gpu_count on a machine with devices, faked: torch's count for torch, cupy's for cupy
    (on this CPU machine both libraries would say 0, which hides a swapped branch)."""
    import sys
    import types

    from attncert.solvers import backend

    fake_torch = types.SimpleNamespace(cuda=types.SimpleNamespace(device_count=lambda: 3))
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 2)))
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    assert (backend._gpu_count("torch"), backend._gpu_count("cupy"), backend._gpu_count("numpy")) == (3, 2, 0)


def test_optimal_multipliers_refuse_profiles_of_different_lengths():
    with pytest.raises(ValueError):
        gllm.optimal_multipliers([sp.Rational(1, 2), sp.Rational(1, 2)], [1])


def test_cupy_without_a_visible_gpu_is_refused_in_one_line(monkeypatch):
    """An installed cupy on a machine without a GPU (faked): get_backend says so (third random set)."""
    import sys
    import types

    from attncert.solvers import backend

    fake_cupy = types.SimpleNamespace(
        cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 0)), empty=lambda n: None
    )
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(backend, "_installed", lambda module: True)
    with pytest.raises(backend.BackendUnavailable, match="no GPU is visible"):
        backend.get_backend("cupy")


def test_pearson_r_is_scale_free_down_to_tiny_and_up_to_huge_samples():
    """summarise's r on samples of any magnitude (third random set): each is rescaled by its largest
    deviation first, so 1e-200 or 1e200 times a sample gives the same r, not 0/0 or inf/inf."""
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal(12), rng.standard_normal(12)
    r = pearson_r(x, y)
    for scale in (1e-200, 1e200):
        assert pearson_r(scale * x, y) == pytest.approx(r, rel=1e-12)
        assert pearson_r(x, scale * y) == pytest.approx(r, rel=1e-12)


def test_softmax_and_norm_operations_count_one_exponential_per_score():
    """Prop 2's O(n^2 H + n d) term, counted by hand at n = 3, d = 4, H = 2: 2 heads x 3 x 3 scores
    and two norms over n x d activations, 18 + 24 = 42 (third random set)."""
    counts = gllm.layer_operation_counts(sp.Integer(3), sp.Integer(4), sp.Integer(2))
    assert counts["softmax_and_norms"] == 42


def test_the_regularised_optimum_is_unique():
    """nu > 0 makes the Cor 4 objective strictly convex in u, so its minimiser is unique, and the
    grades JSON reports it as such (third random set)."""
    a, t = np.array([0.3, 0.3, 0.4]), np.array([0.35, 0.3, 0.35])  # a segment without the penalty
    assert grades.solve_regularized(a, t, 1.0, math.log(2.0), 4.0).unique is True
    assert grades.solve_regularized(a, t, 0.0, math.log(2.0), 4.0).unique is None  # nu = 0: undecided
