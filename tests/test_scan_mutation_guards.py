"""Guards found by the exploratory scan (issue 11, benchmarks/mutations_scan.toml, seed 20261210): each test
pins a behaviour that a survivor of that scan changed without any certificate or test turning red."""

import dataclasses
import importlib.util
import inspect
import threading

import pytest
import sympy as sp

from attncert.certificates.engine.evidence import holds_exactly
from attncert.solvers import backend
from attncert.solvers.grades import bracketed_root
from attncert.solvers.phase import Protocol, estimate, run_sweep, summarise
from attncert.solvers.score_model import CHUNK_TRIALS, ScoreModel, chunk_count
from attncert.solvers.sweep import LocalExecutor
from attncert.theory import gllm, plga, psa

NUMPY = backend.get_backend("numpy")
#: 2 d_k x 2 T x 3 gammas = 12 points, 2 seeds of 100 trials: small enough to count by hand
SMALL = Protocol("small", d_ks=(4, 8), Ts=(3, 5), gammas=(0.0, 1.0, 2.0), seeds=2, trials=100)


# --- solvers/phase.py ------------------------------------------------------------------------
def test_protocol_accepts_its_smallest_documented_values():
    """T >= 3 (one target, at least one distractor after the query) and trials >= 1 are the documented
    lower limits: the limit itself is accepted, the value below it is refused with the field named."""
    Protocol("edge", d_ks=(1,), Ts=(3,), gammas=(0.0, 1.0), seeds=1, trials=1)
    with pytest.raises(ValueError, match="T values must be integers >= 3"):
        Protocol("edge", d_ks=(1,), Ts=(2,), gammas=(0.0, 1.0), seeds=1, trials=1)
    with pytest.raises(ValueError, match="trials must be >= 1"):
        Protocol("edge", d_ks=(1,), Ts=(3,), gammas=(0.0, 1.0), seeds=1, trials=0)


def test_monte_carlo_estimate_counts_by_hand():
    """estimate() for SMALL, from its docstring: points = 2 * 2 * 3 = 12; width = max T - 1 = 4;
    per trial 3 gammas * (8 * 4 + 12) = 132 evaluations, times 2 seeds * 100 trials = 26 400; one replicate
    holds 8 * 100 * (4 * 4 + 16) = 25 600 bytes of draws plus 8 * 12 of sums; the results 8 * 2 * 2 * 12."""
    mc = estimate(SMALL, ScoreModel(), "mc")
    assert (mc.work, mc.replicate_bytes, mc.fixed_bytes) == (26_400, 25_696, 384)


def test_quadrature_estimate_holds_three_result_tables():
    """The quadrature's result arrays: values, error estimates and gamma_c, 8 bytes each per point (12)."""
    assert estimate(SMALL, ScoreModel(), "quad").fixed_bytes == 8 * 3 * 12


def calls_into(calls: list[tuple[int, int]]):
    """A progress callback that records each (done, total) it is given."""
    return lambda done, total: calls.append((done, total))


def test_progress_counts_every_step_once_and_ends_at_its_total():
    """A progress bar that overshoots or never reaches 100 %: both engines report 1, 2, ..., total in order,
    total = 2 passes per gamma (quadrature) and seeds * chunks * gammas (Monte Carlo, local threads). The scan
    found the quadrature skipping the chance point gamma = 0 of each pass: every fig7 bar stopped at 60/61.

    The Monte Carlo run draws one trial more than a chunk, so that its total has a chunk factor of 2: with one
    chunk, set 122's mutant `seeds / chunks * gammas` gave the same total, and only the slow Ctrl-C test, which
    waits for a progress line that never came, noticed."""
    two_chunks = dataclasses.replace(SMALL, d_ks=(4,), Ts=(3,), trials=CHUNK_TRIALS + 1)
    assert chunk_count(two_chunks.trials) == 2
    for engine, protocol, total in (("quad", SMALL, 2 * 3), ("mc", two_chunks, 2 * 2 * 3)):
        calls: list[tuple[int, int]] = []
        run_sweep(
            protocol, ScoreModel(), engine=engine, backend=NUMPY, seed=0, executor=LocalExecutor(1), progress=calls_into(calls)
        )
        assert calls == [(i, total) for i in range(1, total + 1)], engine
        assert all(type(t) is int for _, t in calls), engine


def test_point_summaries_are_frozen():
    """Per-point results are values: a report cannot edit one after the statistics are computed."""
    stats = summarise(run_sweep(SMALL, ScoreModel(), engine="quad", backend=NUMPY, seed=0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        stats.points[0].gamma_c_mean = 0.0


# --- solvers/sweep.py, solvers/backend.py, solvers/grades.py -------------------------------------
def test_local_executor_runs_tasks_in_parallel_by_default(monkeypatch):
    """The default worker count is the core count (capped by the task count): two tasks that wait for each
    other at a barrier finish only if they run at the same time."""
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    barrier = threading.Barrier(2, timeout=10)
    assert LocalExecutor().map(lambda i: (barrier.wait(), i)[1], [0, 1]) == [0, 1]


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed is not installed")
def test_a_peer_with_a_short_greeting_is_not_a_dask_scheduler(greeting_peer):
    """A dask handshake starts with an 8-byte length: a peer that sends fewer bytes and closes is refused on
    that count alone, before any dask client is made, even when the bytes it sent read as a small length."""
    from attncert.solvers.sweep import DaskExecutor, ExecutorUnavailable

    address, connections = greeting_peer(b"\x10\x00", hang_up=True)
    with pytest.raises(ExecutorUnavailable, match="is not a dask scheduler"):
        DaskExecutor(address).check()
    assert len(connections) == 1


def test_every_installed_backend_is_available(monkeypatch):
    monkeypatch.setattr(backend, "_installed", lambda name: True)
    assert backend.available_backends() == list(backend.BACKENDS)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_auto_takes_the_gpu_of_a_one_gpu_machine(monkeypatch):
    """One visible GPU is enough for ``auto`` (a faked count: no GPU is needed to run this test)."""
    monkeypatch.setattr(backend, "_installed", lambda name: name in ("numpy", "torch"))
    monkeypatch.setattr(backend, "_gpu_count", lambda name: 1 if name == "torch" else 0)
    chosen = backend.get_backend("auto")
    assert (chosen.name, chosen.device) == ("torch", "cuda")


def test_bracketed_root_enforces_its_bracket():
    """f(lo) < 0 <= f(hi) is the contract: a root at lo itself (f(lo) = 0) is refused, not bisected."""
    assert bracketed_root(lambda x: x - 0.25, 0.0, 1.0) == pytest.approx(0.25, rel=1e-13)
    with pytest.raises(ValueError, match=r"f\(lo\) < 0 <= f\(hi\)"):
        bracketed_root(lambda x: x, 0.0, 1.0)


# --- theory ------------------------------------------------------------------------------------
def test_clipped_partition_puts_the_saturated_coordinates_at_c_squared():
    """§1.9 at C = 3 (C = 2 would hide C * 2 = C^2): alpha = tau = (1, 1), coordinate 0 saturated at the top,
    so g_0^2 = 9 and, with A0 = 1/9, T0 = 9, k = sqrt(T0/A0) = 9, g_1^2 = 9; the optimum is then the objective
    (sum alpha_j/g_j^2)(sum tau_j g_j^2) = (2/9)(18) = 4 = (1 + sqrt(A0 T0))^2, evaluated at the returned g^2."""
    value, g2 = gllm.clipped_optimum_from_partition([sp.Integer(1)] * 2, [sp.Integer(1)] * 2, sp.Integer(3), set(), {0})
    assert g2 == [9, 9] and value == 4
    assert sp.simplify(sum(1 / g for g in g2) * sum(g2) - value) == 0


def test_layer_operation_counts_by_hand():
    """Prop 2 at n = 3, d = 4, H = 2 (d_k = 2): projections 4 n d^2 = 192, attention H 2 n^2 d_k = 2 n^2 d = 72,
    FFN 8 n d^2 = 384, softmax and norms H n^2 + 2 n d = 42; symbolically attention = 2 n^2 d for every H."""
    assert gllm.layer_operation_counts(3, 4, 2) == {"projections": 192, "attention": 72, "ffn": 384, "softmax_and_norms": 42}
    n, d, heads = sp.symbols("n d H", positive=True)
    assert sp.simplify(gllm.layer_operation_counts(n, d, heads)["attention"] - 2 * n**2 * d) == 0


def test_order_parameter_lemma_default_is_the_piecewise_convention():
    """Prop 5.2 (ii) holds with the piecewise convention (the default); without it the lemma must fail."""
    assert inspect.signature(plga.order_parameter_lemma).parameters["piecewise"].default is True
    assert all(holds_exactly(fact) for _, fact in plga.order_parameter_lemma())
    assert not all(holds_exactly(fact) for _, fact in plga.order_parameter_lemma(piecewise=False))


def test_score_form_default_is_one_dimensional():
    """C9 with the default n = 1: B = (Pi M_gq)^T (Pi M_gk), where M_g = [[1, g], [0, 1]] and Pi = (1, 0) give
    Pi M_g = (1, g) on (q, p) in R^2, so B = [[1, gk], [gq, gq gk]], a 2 x 2 matrix."""
    gq, gk = sp.symbols("g_q g_k")
    B = sp.Matrix(psa.score_form(gq, gk))
    expected = sp.Matrix([[1, gk], [gq, gq * gk]])
    assert B.shape == (2, 2)
    assert sp.simplify(B - expected) == sp.zeros(2, 2)


def test_positivity_floor_uses_eps_squared_in_every_fact():
    """Remark 4.5: the diagonal floor of A o A is eps^2 = 1e-18, so 1 + eps^2 > 1 and d_k eps^2 = 6.4e-17."""
    facts = dict(plga.positivity_obstruction_lemma())
    assert plga.EPS_FLOOR**2 == sp.Rational(1, 10**18)
    assert all(holds_exactly(fact) for fact in facts.values())


def test_nonresonance_lemma_lists_three_distinct_frequencies():
    facts = dict(plga.nonresonance_lemma())
    assert facts["the three frequencies are distinct under those hypotheses (none listed twice)"].holds
    rejects = facts["that statement is Claim A itself: 2 theta_a, theta_a - theta_b or theta_a + theta_b in 2 pi Z falsifies it"]
    assert rejects.holds and rejects.how.count("falsifies it") == 3


def test_commutant_block_count_is_every_plane_pair():
    facts = dict(plga.commutant_dimension_lemma())
    label = "the blocks are the (d_k/2)^2 plane pairs: d_k/2 diagonal + (d_k/2)(d_k/2 - 1) off-diagonal"
    assert holds_exactly(facts[label])


def test_sine_lemma_is_tight_on_the_closed_interval():
    facts = dict(plga.sine_positive_lemma())
    assert holds_exactly(facts["{x in [0, pi] : sin x <= 0} = {0, pi}, so sin > 0 on (0, pi)"])


def test_frequency_decay_has_sign_minus_one():
    facts = dict(plga.frequency_structure_lemma())
    assert holds_exactly(facts["log(theta_{j+1}/theta_j) = -2 log(base)/d_k has sign -1 (strictly decreasing)"])
    # a law whose frequencies grow (base < 1 in effect) must fail it
    growing = dict(plga.frequency_structure_lemma(lambda j, dk, base: base ** (2 * sp.sympify(j) / dk)))
    assert not holds_exactly(growing["log(theta_{j+1}/theta_j) = -2 log(base)/d_k has sign -1 (strictly decreasing)"])


def test_scale_covariance_lemma_needs_f_of_one_nonzero():
    facts = dict(plga.scale_covariance_lemma(lambda u, c, p: c * u**p))
    assert holds_exactly(facts["f(1) != 0 (f > 0), so the factor cancels: g(lambda mu) = g(lambda) g(mu)"])
