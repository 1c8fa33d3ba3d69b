"""Issue 12: bad input to `attncert phase` never crashes, hangs or exhausts memory: one clear
line naming the flag, exit 2, nothing written; long runs show progress; Ctrl-C exits 130."""

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from attncert.certificates.frontends import phase as phase_cmd
from attncert.certificates.frontends.cli import main
from attncert.solvers.phase import FIG7, Protocol, estimate
from attncert.solvers.score_model import ScoreModel

TINY = ["--protocol", "custom", "--d-k", "8,64", "--T", "10", "--seeds", "1", "--trials", "500", "--gamma-points", "9"]


def usage_error(argv, capsys, contains: str, tmp_path: Path) -> str:
    before = set(tmp_path.rglob("*"))
    assert main(["phase", *map(str, argv)]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("attncert: error:") and contains in err, err
    assert "Traceback" not in err and not out
    assert set(tmp_path.rglob("*")) == before
    return err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sigma-t", "1e300"], "--sigma-t must be a finite number in [0, 10000]"),
        (["--sigma-t", "nan"], "--sigma-t"),
        (["--protocol", "custom", "--d-k", "1" + "0" * 400, "--T", "10"], "--d-k must be an integer in [1, 1,000,000]"),
        (["--gamma-max", "1e200"], "--gamma-max must be a finite number in (0, 10000]"),
        (["--gamma-max", "inf"], "--gamma-max"),
        (["--seed", "-1"], "--seed must be an integer in [0, "),
        (["--protocol", "custom", "--d-k", "16", "--T", "10000000"], "--T must be an integer in [3, 1,000,000]"),
        (["--protocol", "custom", "--d-k", "16", "--T", "1e9"], "not a comma-separated list of integers"),
        (["--gamma-points", "1000000000"], "--gamma-points must be an integer in [2, 100,000]"),
        (["--gamma-points", "10000000"], "--gamma-points"),
        (["--trials", "1000000000000"], "raise it with --max-minutes"),
        (["--trials", "1e12"], "invalid int value"),
        (["--seeds", "1000000000"], "--seeds must be an integer in [1, 10,000]"),
        (["--protocol", "custom", "--d-k", "16", "--T", "20000"], "raise it with --max-memory"),
        (["--engine", "quad", "--gamma-max", "1000"], "raise it with --max-memory"),
        (["--max-memory", "0"], "--max-memory"),
        (["--c", "-1"], "--c must be"),
    ],
)
def test_flags_out_of_range(argv, message, tmp_path, capsys):
    usage_error(argv, capsys, message, tmp_path)


def test_out_destinations_that_cannot_be_written(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    usage_error([*TINY, "--out", blocker / "sub"], capsys, "is a file, not a folder", tmp_path)
    usage_error([*TINY, "--out", blocker], capsys, "exists and is not a folder", tmp_path)
    usage_error([*TINY, "--out", "/proc/attncert-out"], capsys, "cannot write", tmp_path)
    (tmp_path / "busy" / "summary.json").mkdir(parents=True)
    usage_error([*TINY, "--out", tmp_path / "busy"], capsys, "summary.json is a folder", tmp_path)


def test_memory_does_not_grow_with_the_trial_count():
    small, huge = (estimate(Protocol("x", FIG7.d_ks, FIG7.Ts, seeds=1, trials=t), ScoreModel(), "mc") for t in (10**5, 10**12))
    assert small.replicate_bytes == huge.replicate_bytes and huge.work > 1e6 * small.work


def test_concurrent_replicates_are_capped_by_the_memory_limit(capsys):
    args = phase_cmd.argparse.Namespace(engine="mc", max_memory=0.5, max_minutes=60.0, out=None)
    protocol = Protocol("x", (16,), (200,), seeds=8, trials=50_000)
    workers = phase_cmd.budget(protocol, ScoreModel(), args, phase_cmd.LocalExecutor(8))
    est = estimate(protocol, ScoreModel(), "mc")
    assert 1 <= workers < 8 and est.peak_bytes(workers) + phase_cmd.BASELINE_BYTES <= 0.5 * 2**30


def test_each_worker_holds_one_replicate_on_top_of_the_result_arrays():
    """peak_bytes(w) = fixed + w x replicate: every concurrent replicate keeps its own working set."""
    est = estimate(Protocol("x", (16,), (200,), seeds=8, trials=50_000), ScoreModel(), "mc")
    assert est.replicate_bytes > 0 and est.fixed_bytes > 0
    assert est.peak_bytes(0) == est.fixed_bytes
    assert [est.peak_bytes(w + 1) - est.peak_bytes(w) for w in range(4)] == [est.replicate_bytes] * 4


@pytest.mark.parametrize(
    ("sigma_t", "variant", "Ts", "gammas"),
    [
        (2.0, "key-only", (200,), (0.5, 1.0, 1.5)),
        (2.0, "t4", tuple(range(3, 43)), (4.0,)),
        (20.0, "t4", tuple(range(3, 43)), (4.0,)),
    ],
)
def test_the_quadrature_memory_estimate_matches_the_measured_peak(sigma_t, variant, Ts, gammas):
    """The estimate used to refuse oversized sweeps (issue 12) is within a factor 2 of the peak
    that tracemalloc measures for the quadrature's numpy arrays: with one distractor count, and with
    forty, whose phi^m tables are held at once, on the Z_0 route (sigma_t = 2) and on the target-score
    route (sigma_t = 20), which also holds F_m - H on every target score."""
    import tracemalloc

    from attncert.solvers.score_quadrature import softmax_mass_quadrature, work_and_memory

    model, d_ks = ScoreModel(sigma_t=sigma_t, variant=variant), (16,)
    tracemalloc.start()
    try:
        softmax_mass_quadrature(model, d_ks=d_ks, Ts=Ts, gammas=gammas)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.5 * peak <= work_and_memory(model, d_ks, Ts, gammas)[1] <= 2 * peak


@pytest.mark.parametrize("trials", [2000, 20_000])
def test_the_monte_carlo_memory_estimate_matches_the_measured_peak(trials):
    """One replicate's working set (below and above one chunk of trials) is estimated within 10 %
    of the peak that tracemalloc measures for the numpy engine (issue 12)."""
    import tracemalloc

    from attncert.solvers.backend import get_backend
    from attncert.solvers.phase import run_sweep
    from attncert.solvers.sweep import LocalExecutor

    protocol = Protocol("x", (16,), (200,), seeds=1, trials=trials)
    tracemalloc.start()
    try:
        run_sweep(protocol, ScoreModel(), engine="mc", backend=get_backend("numpy"), seed=1, executor=LocalExecutor(1))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.9 * peak <= estimate(protocol, ScoreModel(), "mc").peak_bytes(1) <= 1.1 * peak


def test_progress_is_shown_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(phase_cmd, "PROGRESS_EVERY_S", 0.0)
    assert main(["phase", *TINY]) == 0
    err = capsys.readouterr().err
    assert "phase custom (mc): " in err and "steps" in err


def test_huge_sigma_t_within_range_gives_finite_gamma_c(capsys):
    assert main(["phase", *TINY, "--sigma-t", "10000", "--engine", "quad"]) == 0
    out = capsys.readouterr().out
    assert "nan +-" not in out.lower()


def test_ctrl_c_exits_130_and_writes_nothing(tmp_path):
    target = tmp_path / "out"
    # minutes of work on any machine; the signal is sent once the first progress line shows the
    # sweep running (not after a fixed sleep, which a fast machine outran)
    argv = [sys.executable, "-m", "attncert", "phase", "--trials", "2000000", "--seeds", "2", "--out", str(target)]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    first = proc.stderr.readline()
    assert "steps" in first, f"no progress line before the run ended: {first!r}"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert not target.exists()


def test_output_tables_count_in_the_memory_estimate(tmp_path, capsys):
    usage_error(["--gamma-points", "100000", "--trials", "10", "--out", tmp_path / "o"], capsys, "--max-memory", tmp_path)
