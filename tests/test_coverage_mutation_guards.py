"""Guards for the lines and branches of theory/ and solvers/ that the whole test suite never ran
(issue 11), and for what an exhaustive pass over the sites of solvers/sweep.py and solvers/backend.py
left. Branch coverage of `pytest` over theory/ and solvers/ (coverage.py, 2026-12-02) left
33 statements and 29 branches unexercised; a mutation there survives whatever the assertions. Each
test below runs one of them and checks its value against an independent computation. What stays
uncovered needs a GPU (the cupy backend) or a dask cluster that fails mid-run; `benchmarks/README.md`
lists it.
"""

import gc
import logging
import math
import os
import re
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp
from scipy.special import logsumexp

from attncert.solvers import backend as backend_module
from attncert.solvers import grades as gs
from attncert.solvers import sweep
from attncert.solvers.backend import BackendUnavailable, get_backend
from attncert.solvers.phase import PROTOCOLS, run_sweep, spearman_rho
from attncert.solvers.score_model import ScoreModel, nested_logsumexp, softmax_mass_mc
from attncert.solvers.score_quadrature import softmax_mass_quadrature
from attncert.solvers.sweep import DaskExecutor, ExecutorUnavailable, LocalExecutor, get_executor
from attncert.theory import gllm as tg
from attncert.theory import psa as ts


def test_nested_logsumexp_recomputes_a_prefix_that_underflows():
    """Rows 0-1 sit 800 below the column maximum (row 3): exp(-800) is 0 in doubles, so the shared
    shift underflows for the prefixes m = 1, 2 and each is recomputed with its own shift."""
    x = np.array([[-800.0, 1.0], [-801.0, 2.0], [-5.0, 0.5], [0.0, -900.0]])
    out = nested_logsumexp(np, x, [1, 2, 4])
    for m in (1, 2, 4):
        np.testing.assert_allclose(out[m], logsumexp(x[:m], axis=0), rtol=1e-13, atol=1e-15)
    assert out[1][0] == -800.0  # not -inf


def test_exact_solver_accepts_log_profiles_and_checks_them():
    r = np.array([0.1, 0.2, 0.7]), np.array([0.3, 0.3, 0.4])
    direct = gs.solve_clipped(*r, 2.0)
    via_logs = gs.solve_clipped(None, None, 2.0, log_alpha=np.log(r[0]) + 5.0, log_tau=np.log(r[1]) - 3.0)
    np.testing.assert_allclose(via_logs.g, direct.g, rtol=1e-13)
    with pytest.raises(ValueError, match="same nonzero length"):
        gs.solve_clipped(None, None, 2.0, log_alpha=np.zeros(3), log_tau=np.zeros(2))
    for bad_alpha, bad_tau in (
        (np.array([np.nan, 0.0]), np.zeros(2)),
        (np.array([math.inf, 0.0]), np.zeros(2)),
        (np.zeros(2), np.array([0.0, -math.inf])),
    ):
        with pytest.raises(ValueError, match="apply the zero policy first"):
            gs.solve_clipped(None, None, 2.0, log_alpha=bad_alpha, log_tau=bad_tau)
    # ln 0 = -inf is a zero of alpha, which the solver accepts: that coordinate sits on the lower face
    zero = gs.solve_clipped(
        None, None, 2.0, log_alpha=np.array([-math.inf, math.log(0.5), math.log(0.5)]), log_tau=np.log([0.2, 0.4, 0.4])
    )
    assert zero.g.min() == 1.0


def test_kkt_residuals_with_a_zero_of_alpha_on_the_lower_face():
    """alpha_0 = 0 sits on g = 1; the faces still carry alpha (A_0 > 0), so the snapped grading is
    defined and the residuals at 50 digits vanish."""
    a, t = np.array([0.0, 0.3, 0.7]), np.array([0.2, 0.4, 0.4])
    sol = gs.solve_clipped(a, t, 4.0)
    assert sol.unique and sol.lo.tolist() == [0] and sol.hi.tolist() == [2]
    assert gs.kkt_residuals(a, t, sol, 4.0).worst < 1e-40


def test_bracketed_root_refuses_a_bracket_it_could_not_shrink():
    """Out of evaluations with the bracket still wider than rtol: an error, not the midpoint of a
    bracket that does not meet the promised precision. A bracket that meets it on the last
    evaluation is the answer (x^2 - 2 on [1, 2]: Illinois gets there in 8)."""
    with pytest.raises(ArithmeticError, match="still wider than rtol"):
        gs.bracketed_root(lambda x: x - 1 / 3, 0.0, 1.0, max_evaluations=0)
    with pytest.raises(ArithmeticError, match="after 7 evaluations"):
        gs.bracketed_root(lambda x: x * x - 2, 1.0, 2.0, max_evaluations=7)
    assert gs.bracketed_root(lambda x: x * x - 2, 1.0, 2.0, max_evaluations=8) == pytest.approx(math.sqrt(2), rel=1e-14)
    assert gs.bracketed_root(lambda x: x - 1 / 3, 0.0, 1.0) == pytest.approx(1 / 3, abs=1e-14)
    assert gs.bracketed_root(lambda x: x * x - 2, 1.0, 2.0) == pytest.approx(math.sqrt(2), rel=1e-14)


@pytest.mark.parametrize("rtol", [0.5, 0.3, 0.2, 0.1, 0.05])
@pytest.mark.parametrize(("f", "root"), [(lambda x: x**3 - 0.2, 0.2 ** (1 / 3)), (lambda x: math.exp(x) - 2, math.log(2))])
def test_bracketed_root_answers_the_final_brackets_midpoint(f, root, rtol):
    """The answer is the midpoint of a bracket [lo, hi] with hi - lo <= rtol hi, so it lies within
    (hi - lo)/2 <= rtol r / (2 - rtol) of the zero; an end of the bracket can be twice as far."""
    r = gs.bracketed_root(f, 0.0, 1.0, rtol=rtol)
    assert abs(r - root) <= rtol * r / (2 - rtol)


def test_epsilon_max_at_the_ends_of_the_double_range():
    # alpha lives only where v is largest: Lambda(eps) = (1 + 4^-eps) / 2 < 1 along the whole ray (the
    # log-domain search alone stopped at a finite 6.5e15, where rounding eats log Lambda)
    assert gs.epsilon_max(np.array([0.0, 1.0]), np.array([0.5, 0.5]), np.array([0.0, 1.0]), 2.0) == math.inf
    assert gs.epsilon_max(np.array([0.0, 0.6, 0.4]), np.array([0.2, 0.4, 0.4]), np.array([0.0, 3.0, 3.0]), 2.0) == math.inf
    # alpha only below the top of v, tau partly at it: Lambda = 0.9 / x + 0.1 x at x = 2^(2 eps), which is 1
    # again at x = 9, eps_max = log2 3 (set 89's inverted shortcut answered inf)
    assert gs.epsilon_max(np.array([0.0, 1.0, 0.0]), np.array([0.9, 0.0, 0.1]), np.array([0.0, 1.0, 2.0]), 2.0) == pytest.approx(
        math.log2(3), rel=1e-13
    )
    # one unit of alpha below the top of v: Lambda grows again, eps_max is finite and Lambda(eps_max) = 1
    a, t, v = np.array([0.01, 0.59, 0.4]), np.array([0.2, 0.4, 0.4]), np.array([0.0, 3.0, 3.0])
    e = gs.epsilon_max(a, t, v, 2.0)
    assert math.isfinite(e) and gs.gain(a, t, 2.0 ** (e * v)) == pytest.approx(1.0, abs=1e-12)
    # a certificate of 2^-42: Lambda dips below 1 by about 1e-25, far below the rounding of 1, and still
    # eps_max is resolved: 2^(2 eps) = alpha_0 tau_1 / (alpha_1 tau_0) in closed form (it was 0 while
    # log Lambda was the log of sums near 1). To the problem's conditioning: the answer rests on the weights'
    # 2^-40 differences, which their rounding (about 1e-16, here through the log profiles) moves by 1e-4
    eps = 2.0**-40
    exact = 2 * math.atanh(2 * eps) / (2 * math.log(2.0))  # ln((1/2 + eps) / (1/2 - eps)), without rounding the ratio
    assert gs.epsilon_max(np.array([0.5 + eps, 0.5 - eps]), np.array([0.5, 0.5]), np.array([1.0, 0.0]), 2.0) == pytest.approx(
        exact, rel=1e-3, abs=0
    )
    # alpha one ulp from tau on one coordinate: the certificate is 4.7e-21, and the log profiles' rounding
    # (1e-16) hides the difference at every s, so the search finds no s >= 1e-300 with log Lambda < 0 and
    # answers 0, the documented floor (the admissible part of the ray is below double resolution)
    a = np.array([0.834268198709379, 0.10246465015313329, 0.8716638489288125])
    t = np.array([0.834268198709379, 0.10246465015313329, 0.8716638489288124])
    v = np.array([-0.21879166393254573, -1.2459109472530652, -0.7322673547034516])
    assert gs.first_order_certificate(a, t, v) > 0 and gs.epsilon_max(a, t, v, 2.0) == 0.0
    # a direction that is not a number has no eps_max
    assert math.isnan(gs.epsilon_max(np.array([0.7, 0.3]), np.array([0.5, 0.5]), np.array([math.inf, 0.0]), 2.0))
    # a base lambda = e^(1e-310): eps_max = s / (2 ln lambda) overflows
    with pytest.raises(ValueError, match="double range"):
        gs.epsilon_max(np.array([0.7, 0.3]), np.array([0.5, 0.5]), np.array([1.0, 0.0]), 2.0, log_lam=1e-310)


def test_epsilon_max_stops_its_search_at_the_sign_change_near_the_top_of_the_double_range():
    """The search for a bracket stops where log Lambda turns nonnegative, not at some margin above 0
    (set 66: ``f(hi) < 1`` gave inf here). On v = (3D, 2D, -1) with D = 2^-995, alpha = (1/2, 1/2, 0),
    tau = (1/4, 1/4, 1/2), the tau_3 term has died out (e^-s) long before y = D s is of order 1, so
    Lambda = 1/4 + (e^y + e^-y)/8: it is 1 at y = ln(3 + 2 sqrt 2) = 2 asinh(1), and at the last doubling
    below 1e300, s = 2^996 (y = 2), Lambda = 1.19 < e. With lambda = e: eps_max = s / 2 = asinh(1) 2^995."""
    step = 2.0**-995
    v = np.array([3 * step, 2 * step, -1.0])
    e = gs.epsilon_max(np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.25, 0.5]), v, math.e)
    assert e == pytest.approx(math.asinh(1.0) * 2.0**995, rel=1e-12)


def test_spearman_rho_has_no_p_value_below_three_points():
    rho, p = spearman_rho([1.0, 2.0], [3.0, 5.0])
    assert rho == 1.0 and math.isnan(p)
    rho, p = spearman_rho([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])
    assert rho == pytest.approx(0.5) and 0 < p < 1


def test_score_engines_refuse_sizes_without_a_distractor():
    model = ScoreModel()
    with pytest.raises(ValueError, match="trials must be >= 1"):
        softmax_mass_mc(None, model, d_ks=[64], Ts=[8], gammas=[1.0], trials=0, seed=0)
    with pytest.raises(ValueError, match="T must be >= 3"):
        softmax_mass_mc(None, model, d_ks=[64], Ts=[2, 8], gammas=[1.0], trials=1, seed=0)
    with pytest.raises(ValueError, match="T must be >= 3"):
        softmax_mass_quadrature(model, d_ks=[64], Ts=[2], gammas=[1.0])


def test_run_sweep_refuses_an_unknown_engine():
    with pytest.raises(ValueError, match="engine must be 'mc' or 'quad', not 'exact'"):
        run_sweep(PROTOCOLS["fig7"], ScoreModel(), engine="exact", backend=None, seed=0)


def test_local_executor_without_callbacks():
    assert LocalExecutor(2).map(lambda x: x * x, [1, 2, 3]) == [1, 4, 9]

    def boom(x):
        raise KeyError(x)

    with pytest.raises(KeyError):
        LocalExecutor(2).map(boom, [1, 2])


def _peak_concurrency(executor: LocalExecutor, tasks: int) -> tuple[int, list[int]]:
    """(most tasks running at once, the on_done counts) for ``tasks`` short sleeping tasks."""
    lock, running, peak, done = threading.Lock(), [0], [0], []

    def task(_):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1

    executor.map(task, range(tasks), on_done=done.append)
    return peak[0], done


def test_local_executor_runs_as_many_threads_as_asked_and_counts_progress_from_one(monkeypatch):
    """--workers 1 means one task at a time (a second thread is not free: each replicate holds
    its chunk of draws); progress reports 1..n in order, so a bar reaches n/n."""
    assert _peak_concurrency(LocalExecutor(1), 6) == (1, [1, 2, 3, 4, 5, 6])
    # three workers: three tasks meet at a barrier (it breaks after 10 s with fewer threads)
    barrier = threading.Barrier(3, timeout=10)
    assert LocalExecutor(3).map(lambda x: barrier.wait() >= 0 and x, range(6)) == list(range(6))
    # os.cpu_count() may answer None: then one worker, not a guess
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert _peak_concurrency(LocalExecutor(), 4)[0] == 1


def test_local_executor_abort_cancels_the_queue_and_waits_for_running_tasks():
    """A failing task (or Ctrl-C) ends the sweep: queued tasks never start, the running one
    finishes before the error reaches the caller, and on_abort runs once."""
    lock, running, started, aborted = threading.Lock(), [0], [], []

    def task(i):
        with lock:
            running[0] += 1
            started.append(i)
        try:
            time.sleep(0.01 if i == 0 else 0.3)
            if i == 0:
                raise KeyError(i)
        finally:
            with lock:
                running[0] -= 1

    with pytest.raises(KeyError):
        LocalExecutor(2).map(task, range(20), on_abort=lambda: aborted.append(running[0]))
    # task 0's thread may take task 2 before the queue is cancelled; nothing later starts
    assert running[0] == 0 and set(started) in ({0, 1}, {0, 1, 2}) and len(aborted) == 1

    # an interrupt in the caller's own code (here the progress callback), not inside a task, stops
    # the queue too (CPython closes the result iterator, which cancels it, before shutdown's own
    # cancel_futures: that flag is a second guard)
    started.clear()

    def interrupt(done: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        LocalExecutor(2).map(lambda i: started.append(i) or time.sleep(0.05), range(20), on_done=interrupt)
    assert len(started) <= 4


@pytest.mark.parametrize(("length", "dask_like"), [(1, True), (100, True), (2**20 - 1, True), (2**20, False), (0, False)])
def test_the_handshake_test_reads_an_eight_byte_length_below_one_mebibyte(greeting_peer, monkeypatch, length, dask_like):
    """A dask scheduler greets with its first frame's length in 8 little-endian bytes; a plausible
    length (1 .. 2^20 - 1) passes the plain-socket test and the check goes on to a dask client,
    anything else is refused there as "not a dask scheduler". A peer that then sends nothing more
    stalled the dask client for ever, whatever its timeout: the start now has a hard limit."""
    pytest.importorskip("distributed")
    monkeypatch.setattr(sweep, "HANDSHAKE_LIMIT_S", 1)
    address, _ = greeting_peer(length.to_bytes(8, "little") + b"x" * 16)
    start = time.monotonic()
    with pytest.raises(ExecutorUnavailable) as refused:
        DaskExecutor(address).check()
    # past the plain-socket test, the dask client fails (length 1: one byte 'x' is no message) or stalls
    assert ("not a dask scheduler" not in str(refused.value)) is dask_like
    assert ("stalled the dask handshake for 1 s" in str(refused.value)) is (dask_like and length > 16)
    assert time.monotonic() - start < 1 + sweep.CONNECT_TIMEOUT_S + 2


@pytest.mark.parametrize(
    ("address", "parsed"),
    [
        ("tcp://h:1", ("h", 1)),
        ("tcp://h:65535", ("h", 65535)),
        ("h:8786", ("h", 8786)),
        ("tls://[::1]:8786", ("::1", 8786)),
        ("tcp://h:0", None),
        ("tcp://h:65536", None),
        ("tcp://:8786", None),
        ("tcp://h", None),
        ("tcp://h:port", None),
        ("tcp://h/x:8786", None),
        ("tcp://a://b:8786", None),
        ("tcp://h:8786/", None),
    ],
)
def test_scheduler_addresses_need_a_host_and_a_port_from_1_to_65535(address, parsed):
    if parsed is None:
        with pytest.raises(ExecutorUnavailable, match="expected tcp://HOST:PORT"):
            sweep._host_port(address)
    else:
        assert sweep._host_port(address) == parsed


def test_dask_addresses_other_than_tcp_and_tls_are_refused():
    pytest.importorskip("distributed")
    with pytest.raises(ExecutorUnavailable, match="only tcp:// and tls://"):
        get_executor("dask", "http://127.0.0.1:8786")


def test_linearize_sums_leaves_a_double_sum_alone():
    i, j, n = sp.symbols("i j n", integer=True, positive=True)
    x = sp.IndexedBase("x")
    double = sp.Sum(x[i] * x[j], (j, 1, n), (i, 1, n))
    assert tg.linearize_sums(double) == double
    assert tg.linearize_sums(sp.Sum(x[j], (j, 1, n))) == sp.Sum(x[i], (i, 1, n))


def test_identity_coefficients_of_a_transpose():
    """Transposes reach the coefficient map already evaluated by ``block_collapse`` (its own
    Transpose branch never ran and was removed): the blocks move, each coefficient stays."""
    n = sp.Symbol("n", integer=True, positive=True)
    c = sp.Symbol("c")
    block = sp.BlockMatrix([[c * sp.Identity(n), 2 * sp.Identity(n)], [sp.ZeroMatrix(n, n), sp.Identity(n)]])
    assert ts.identity_coefficients(block.T) == sp.Matrix([[c, 0], [2, 1]])


def test_torch_draws_are_reproducible_standard_normals():
    pytest.importorskip("torch", reason="torch is not installed")
    backend = get_backend("torch")
    x = backend.standard_normal(7, (200_000,))
    assert str(x.dtype) == "torch.float64" and tuple(x.shape) == (200_000,)
    draws = backend.to_numpy(x)
    np.testing.assert_array_equal(draws, backend.to_numpy(backend.standard_normal(7, (200_000,))))
    assert not np.array_equal(draws[:10], backend.to_numpy(backend.standard_normal(8, (10,))))
    # moments within 5 standard errors: mean sd 1/sqrt(n), variance sd sqrt(2/n)
    assert abs(draws.mean()) < 5 / math.sqrt(draws.size) and abs(draws.var() - 1) < 5 * math.sqrt(2 / draws.size)


def test_a_library_that_raises_while_counting_gpus_means_no_gpu(monkeypatch):
    """A driver-less machine raises from inside torch or cupy; `auto` must fall back to numpy."""

    def device_count():
        raise RuntimeError("no driver")

    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(cuda=SimpleNamespace(device_count=device_count)))
    assert backend_module._gpu_count("torch") == 0
    monkeypatch.setattr(backend_module, "_installed", lambda name: name != "cupy")
    assert get_backend("auto").name == "numpy"


def test_a_missing_backend_names_the_readme_install_command(monkeypatch):
    monkeypatch.setattr(backend_module, "_installed", lambda name: False)
    with pytest.raises(BackendUnavailable, match=r"pip install cupy-cuda12x"):
        get_backend("cupy")
    with pytest.raises(BackendUnavailable, match=r"download\.pytorch\.org/whl/cpu"):
        get_backend("torch")


def test_install_advice_names_only_extras_that_exist():
    """`pip install 'attncert[X]'` in a message must name an extra of pyproject.toml: the backend
    message used to advise attncert[torch] and attncert[gpu], which do not exist."""
    root = Path(__file__).resolve().parents[1]
    extras = set(tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    named = {
        (path.name, extra)
        for folder in ("theory", "solvers", "certificates")
        for path in (root / folder).rglob("*.py")
        for extra in re.findall(r"attncert\[([\w,-]+)\]", path.read_text())
    }
    assert named, "the scan found no install advice at all"
    assert {(f, e) for f, e in named if not set(e.split(",")) <= extras} == set()


def test_the_connect_limits_keep_the_readmes_promise():
    """The README promises an unreachable scheduler's one line within 10 s and states the three
    limits; a changed limit fails here until the README changes with it."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    promise = re.search(
        r"an unreachable scheduler .*? within (\d+) s:\s*(\d+) s to connect, (\d+) s for the\s+"
        r"scheduler's first bytes, and a (\d+) s hard limit",
        readme,
        re.S,
    )
    assert promise, "README: the dask connect limits are no longer stated"
    within, connect, first_bytes, handshake = map(int, promise.groups())
    assert (connect, first_bytes, handshake) == (sweep.CONNECT_TIMEOUT_S, sweep.CONNECT_TIMEOUT_S, sweep.HANDSHAKE_LIMIT_S)
    # a refused, unroutable or silent peer costs at most a connect and a read; a peer that greets
    # promptly and then stalls costs the handshake limit
    assert 2 * sweep.CONNECT_TIMEOUT_S < within and sweep.HANDSHAKE_LIMIT_S < within


def test_a_failed_dask_client_is_collected_before_the_error_is_raised(greeting_peer):
    """A Client whose start failed stayed as garbage; collected later inside another Client's start
    (which holds dask's LoopRunner lock), its __del__ waited for that lock, and every later dask
    client in the process hung (seen in about half the mutation harness's runs of the dask map test
    below). The starting thread now collects it before the error is raised: with automatic garbage
    collection off, no Client for the refused address is left."""
    distributed = pytest.importorskip("distributed")
    # a plausible frame length, then one byte 'x' that is no dask message: the client fails at once
    address, _ = greeting_peer((1).to_bytes(8, "little") + b"x" * 16)
    gc.disable()
    try:
        with pytest.raises(ExecutorUnavailable, match="no dask scheduler answered"):
            DaskExecutor(address).check()
        left = [o for o in gc.get_objects() if type(o) is distributed.Client and getattr(o, "_start_arg", None) == address]
    finally:
        gc.enable()
    assert left == []


def test_dask_map_counts_progress_from_one_in_task_order():
    """DaskExecutor.map reports each finished task as a count from 1 to n, in task order, and
    returns the results in that order (an in-process cluster over TCP: about 1 s)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, host="127.0.0.1", protocol="tcp", dashboard_address=None
    ) as cluster:
        progress: list[int] = []
        assert get_executor("dask", cluster.scheduler_address).map(abs, [-3, 1, -2], on_done=progress.append) == [3, 1, 2]
    assert progress == [1, 2, 3]


def test_a_peer_with_a_malformed_dask_reply_is_one_line_without_dask_logs(greeting_peer):
    """A peer that greets with a plausible frame and then a malformed one made dask log a CRITICAL
    traceback before the one-line error: its loggers are muted while the client connects. A
    subprocess, because dask's log handler writes to the stderr it found when imported."""
    pytest.importorskip("distributed")
    address, _ = greeting_peer((8).to_bytes(8, "little") + bytes(8))
    args = ["phase", "--executor", "dask", "--scheduler", address, "--trials", "10", "--seeds", "1"]
    run = subprocess.run([sys.executable, "-m", "attncert", *args], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "no dask scheduler answered" in run.stderr, run.stderr


def test_dask_logs_are_muted_only_while_a_client_connects():
    """The muting raises every ``distributed`` logger's level while a client connects and restores
    each afterwards, the parent's, a child's with its own level, and an inheriting child's."""
    pytest.importorskip("distributed")
    loggers = [logging.getLogger(n) for n in ("distributed", "distributed.client", "distributed.comm.tcp")]
    saved = [logger.level for logger in loggers]
    # known levels first: an earlier test's connection may have left them anywhere
    chosen = [logging.INFO, logging.WARNING, logging.NOTSET]
    try:
        for logger, level in zip(loggers, chosen, strict=True):
            logger.setLevel(level)
        with sweep._dask_logs_muted():
            assert [logger.getEffectiveLevel() for logger in loggers] == [logging.CRITICAL + 1] * 3
        assert [logger.level for logger in loggers] == chosen
    finally:
        for logger, level in zip(loggers, saved, strict=True):
            logger.setLevel(level)
