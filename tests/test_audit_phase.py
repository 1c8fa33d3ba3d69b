"""Audit of `attncert phase`: what summary.json records for the quad engine, c-hat over condensed
points without a gamma_c, the time and memory estimate of grids with many points, the all-or-nothing
writer, --plot runs that draw nothing, repeated or non-decimal list values."""

from __future__ import annotations

import csv
import dataclasses
import importlib.util
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from attncert.certificates.frontends import phase as phase_cmd
from attncert.certificates.frontends import phase_output as out
from attncert.certificates.frontends.cli import main
from attncert.certificates.frontends.common import all_or_nothing
from attncert.solvers.phase import C_HAT_REFERENCE, FIG7, TAXIS, Protocol, Sweep, freezing_point, seed_for, summarise

TINY_QUAD = ["--protocol", "custom", "--d-k", "8,64", "--T", "10", "--engine", "quad", "--gamma-points", "9"]
#: one replicate of 2 trials at sigma_t = 3: the d_k = 4 curve never crosses its midpoint (gamma_c NaN)
NAN_AT_4 = ["--protocol", "custom", "--T", "10", "--seeds", "1", "--trials", "2", "--seed", "4", "--sigma-t", "3"]
needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")


def _no_work(*args, **kwargs):
    raise AssertionError("the sweep ran: the problem was not found before any work")


def _mc_only(*args, **kwargs):
    raise AssertionError("a Monte Carlo backend or executor was set up for a quad run")


def _flat(text: str) -> str:
    """The console wraps long notes at 200 columns: compare with single spaces."""
    return " ".join(text.split())


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


# --- defect 1: the quad engine uses no seed, replicate, trial count, backend or executor ----------------
def test_quad_says_the_monte_carlo_options_have_no_effect(tmp_path, capsys, monkeypatch):
    """They were silently ignored, and --executor dask even connected to its scheduler."""
    monkeypatch.setattr(phase_cmd, "get_executor", _mc_only)
    monkeypatch.setattr(phase_cmd, "get_backend", _mc_only)
    mc_only = ["--seeds", "7", "--trials", "123", "--seed", "99", "--backend", "torch", "--executor", "dask"]
    argv = ["phase", *TINY_QUAD, *mc_only, "--scheduler", "tcp://192.0.2.1:8786", "--out", str(tmp_path)]
    assert main(argv) == 0
    stdout = _flat(capsys.readouterr().out)
    assert (
        "note: --seed 99, --seeds 7, --trials 123, --backend torch, --executor dask: no effect with --engine quad, "
        "which is deterministic with one replicate (summary.json records seed, seeds, trials and backend as null)"
    ) in stdout
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["seed"], summary["backend"], summary["protocol"]["seeds"], summary["protocol"]["trials"]) == (None,) * 4


def test_summary_json_records_only_what_the_run_used(tmp_path, capsys):
    assert main(["phase", *TINY_QUAD, "--out", str(tmp_path / "quad")]) == 0
    quad = json.loads((tmp_path / "quad" / "summary.json").read_text())
    assert (quad["seed"], quad["backend"], quad["protocol"]["seeds"], quad["protocol"]["trials"]) == (None, None, None, None)
    assert quad["engine"] == "quad" and quad["protocol"]["d_ks"] == [8, 64]
    assert "1 replicate(s), 9 gamma values" in (tmp_path / "quad" / "summary.md").read_text()

    mc_argv = ["--protocol", "custom", "--d-k", "8,64", "--T", "10", "--gamma-points", "9"]
    assert main(["phase", *mc_argv, "--seeds", "2", "--trials", "500", "--seed", "3", "--out", str(tmp_path / "mc")]) == 0
    mc = json.loads((tmp_path / "mc" / "summary.json").read_text())
    assert (mc["seed"], mc["backend"], mc["protocol"]["seeds"], mc["protocol"]["trials"]) == (3, "numpy", 2, 500)
    seeds = {int(row["seed"]) for row in _rows(tmp_path / "mc" / "gamma_c_per_replicate.csv")}
    assert seeds == {seed_for(3, 0), seed_for(3, 1)}
    capsys.readouterr()


# --- defect 2: c-hat over the condensed points that have a gamma_c -------------------------------------
def test_c_hat_is_the_mean_over_the_condensed_points_that_have_a_gamma_c():
    # T = 10: 8 ln 9 = 17.6, so d_k = 4, 6, 8 are condensed and 64 is mean-field; d_k = 4 never crosses
    protocol = Protocol("x", d_ks=(4, 6, 8, 64), Ts=(10,), seeds=2)
    gamma_c = np.array([[[math.nan], [0.66], [0.74], [0.55]], [[math.nan], [0.70], [0.78], [0.56]]])
    sweep = Sweep(protocol, "mc", np.zeros((2, 4, 1, len(protocol.gammas))), gamma_c)
    stats = summarise(sweep)
    f = freezing_point(10)
    assert stats.c_hat == pytest.approx(0.72 / f, rel=1e-14)  # the mean of 0.68 / f and 0.76 / f
    assert stats.c_hat_points == 2
    assert stats.c_hat_spread == pytest.approx(np.std([0.68, 0.76], ddof=1) / 0.72, rel=1e-12)
    eight = next(pt for pt in stats.points if pt.d_k == 8)
    assert eight.rel_error == pytest.approx(abs(0.72 - 0.76) / 0.76, rel=1e-12)  # predicted with c-hat, not 0.7242
    c, source = out.condensation_constant(stats, None)
    assert c == stats.c_hat
    assert source == "c-hat, the mean over 2 of 3 condensed points; 1 without a gamma_c left out"
    assert out.condensation_constant(stats, 0.5) == (0.5, "given with --c")


def test_the_run_uses_c_hat_over_the_finite_condensed_points(tmp_path, capsys):
    assert main(["phase", *NAN_AT_4, "--d-k", "4,8", "--out", str(tmp_path)]) == 0
    stdout = _flat(capsys.readouterr().out)
    points = {int(row["d_k"]): row for row in _rows(tmp_path / "points.csv")}
    assert points[4]["gamma_c_mean"] == "nan" and points[8]["gamma_c_mean"] != "nan"
    c_hat = float(points[8]["gamma_c_mean"]) / freezing_point(10)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["condensation_constant_used"] == pytest.approx(c_hat, rel=1e-14)
    assert (summary["c_hat_points"], summary["condensed_points"]) == (1, 2)
    assert float(points[8]["condensed_prediction"]) == pytest.approx(c_hat * freezing_point(10), rel=1e-14)
    expected = (
        f"condensed predictions use c = {c_hat:.4f}: c-hat, the mean over 1 of 2 condensed points; 1 without a gamma_c left out"
    )
    assert f"note: {expected}" in stdout


def test_without_a_finite_condensed_point_the_reference_value_is_used_and_said(tmp_path, capsys):
    assert main(["phase", *NAN_AT_4, "--d-k", "4", "--out", str(tmp_path)]) == 0
    stdout = _flat(capsys.readouterr().out)
    assert _rows(tmp_path / "points.csv")[0]["gamma_c_mean"] == "nan"
    why = (
        "the psa.md reference c-hat of the fig7 grid at sigma_t = 2, since c-hat is undefined here "
        "(no condensed point has a gamma_c); give --c to choose another"
    )
    assert f"note: condensed predictions use c = {C_HAT_REFERENCE:.4f}: {why}" in stdout
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["condensation_constant_used"] == C_HAT_REFERENCE and summary["condensation_constant_source"] == why
    assert (summary["c_hat_points"], summary["condensed_points"]) == (0, 1)
    assert f"use c = {C_HAT_REFERENCE:.4f} ({why})" in (tmp_path / "summary.md").read_text()


# --- defect 3: the estimate counts per-point costs; the terminal table is capped -------------------------
MANY = ["--protocol", "custom", "--d-k", ",".join(map(str, range(1, 1001))), "--seeds", "1", "--trials", "1"]


def test_the_time_estimate_counts_the_per_point_costs(tmp_path, capsys, monkeypatch):
    """1,000 x 30 points, one trial: this took 14 s here (sweep 8.6 s, p_inf 5.4 s) and 45 s with the
    terminal table, against an estimate of 0.1 s, so --max-minutes 0.01 did not stop it."""
    monkeypatch.setattr(phase_cmd, "run_sweep", _no_work)
    argv = ["phase", *MANY, "--T", ",".join(map(str, range(10, 40))), "--max-minutes", "0.01"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    minutes = float(re.search(r"needs an estimated ([0-9.]+) minutes", err).group(1))
    assert 0.2 <= minutes <= 1.0, err
    assert "raise it with --max-minutes, or lower --trials, --seeds, --gamma-points or the number of --d-k and --T values" in err


def test_the_memory_estimate_counts_the_per_point_costs(tmp_path, capsys, monkeypatch):
    """10^6 points hold about 4 GB of summaries and file text (3.1 KB a point measured with --out):
    the old estimate, 0.9 GB, let the run start under --max-memory 1."""
    monkeypatch.setattr(phase_cmd, "run_sweep", _no_work)
    argv = ["phase", *MANY, "--T", ",".join(map(str, range(3, 1003))), "--gamma-points", "2", "--max-memory", "1"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "GB of memory (limit 1 GB; raise it with --max-memory" in err
    assert not (tmp_path / "o").exists()


def test_the_terminal_table_shows_both_ends_of_a_large_grid(tmp_path, capsys):
    argv = ["phase", "--protocol", "custom", "--d-k", ",".join(map(str, range(1, 31))), "--T", "10", "--engine", "quad"]
    assert main([*argv, "--gamma-points", "3"]) == 0
    stdout = capsys.readouterr().out
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in stdout.splitlines() if line.startswith("│")]
    table = [row for row in cells if len(row) == 8]
    assert [row[1] for row in table] == [str(d) for d in range(1, 11)] + ["..."] + [str(d) for d in range(21, 31)]
    assert table[10][3] == "(10 points not shown)"
    assert "note: the table shows the first and last 10 of 30 points; --out DIR writes them all" in _flat(stdout)
    assert main([*argv, "--gamma-points", "3", "--out", str(tmp_path)]) == 0
    assert "all are in points.csv and summary.md" in _flat(capsys.readouterr().out)
    assert [int(row["d_k"]) for row in _rows(tmp_path / "points.csv")] == list(range(1, 31))


class _CountingList(list):
    """A list that counts how often it is iterated."""

    iterations = 0

    def __iter__(self):
        type(self).iterations += 1
        return super().__iter__()


@needs_matplotlib
def test_the_figures_look_each_point_up_once(tmp_path):
    """Fig. 7a searched the point list for every point (twice): quadratic in the grid size."""
    protocol = Protocol("x", d_ks=tuple(range(1, 41)), Ts=(10, 15, 25))
    curves = np.sort(np.random.default_rng(0).random((1, 40, 3, len(protocol.gammas))), axis=-1)
    sweep = Sweep(protocol, "quad", curves, np.full((1, 40, 3), 0.7))
    stats = summarise(sweep)
    _CountingList.iterations = 0
    stats = dataclasses.replace(stats, points=_CountingList(stats.points))
    written = out.figures(tmp_path, sweep, stats, 0.7)
    assert _CountingList.iterations <= 3  # old code: 2 x 120 searches
    assert [p.name for p in written] == list(out.figure_names(protocol.d_ks, protocol.Ts))


# --- defect 4: figure names checked up front; a failed write puts back what it replaced ------------------
@pytest.mark.parametrize(
    ("d_ks", "Ts", "names"),
    [
        (FIG7.d_ks, FIG7.Ts, ("fig7a_gamma_c_vs_dk.png", "fig7b_predicted_vs_measured.png", "fig7c_error_vs_proximity.png")),
        ((4, 8), (10,), ("fig7a_gamma_c_vs_dk.png",)),  # both condensed: no mean-field panels
        (TAXIS.d_ks, TAXIS.Ts, ("fig8a_gamma_c_vs_T.png", "fig8c_condensed_predicted_vs_measured.png")),
        ((100,), (6, 10), ("fig8a_gamma_c_vs_T.png",)),  # both mean-field: no condensed panel
        ((16,), (10,), ()),
    ],
)
def test_figure_names_are_known_before_the_sweep(d_ks, Ts, names):
    assert out.figure_names(d_ks, Ts) == names


@needs_matplotlib
def test_a_folder_in_the_way_of_a_figure_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    assert main(["phase", *TINY_QUAD, "--out", str(tmp_path)]) == 0
    earlier = _snapshot(tmp_path)
    (tmp_path / "fig7a_gamma_c_vs_dk.png").mkdir()
    capsys.readouterr()
    monkeypatch.setattr(phase_cmd, "run_sweep", _no_work)
    assert main(["phase", *TINY_QUAD[:-1], "5", "--plot", "--out", str(tmp_path)]) == 2
    stdout, err = capsys.readouterr()
    assert err == (
        f"attncert: error: --out {tmp_path}: fig7a_gamma_c_vs_dk.png is a folder there; remove it or choose another --out\n"
    )
    assert not stdout and _snapshot(tmp_path) == earlier


@needs_matplotlib
def test_a_failed_write_puts_back_the_files_it_replaced(tmp_path, capsys, monkeypatch):
    assert main(["phase", *TINY_QUAD, "--out", str(tmp_path)]) == 0
    earlier = _snapshot(tmp_path)

    def full_disk(folder, *args):
        (folder / "fig7a_gamma_c_vs_dk.png").write_bytes(b"half a figure")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(out, "figures", full_disk)
    capsys.readouterr()
    assert main(["phase", *TINY_QUAD[:-1], "5", "--plot", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"attncert: error: --out {tmp_path}: cannot write (No space left on device)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(earlier)  # no figure, no temporary left
    assert _snapshot(tmp_path) == earlier


def test_all_or_nothing_puts_back_the_files_it_was_told_of(tmp_path):
    (tmp_path / "a.txt").write_text("old a")
    (tmp_path / "b.txt").write_text("old b")
    with pytest.raises(RuntimeError), all_or_nothing(tmp_path, ["a.txt", "b.txt"]):
        (tmp_path / "a.txt").write_text("new a")
        (tmp_path / "c.txt").write_text("new c")
        raise RuntimeError
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a.txt": "old a", "b.txt": "old b"}
    with all_or_nothing(tmp_path, ["a.txt", "b.txt"]):  # b.txt is not written again: it stays
        (tmp_path / "a.txt").write_text("new a")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a.txt": "new a", "b.txt": "old b"}


# --- defects 5 and 7: --plot says why it drew nothing; quad figures do not claim Monte Carlo -------------
@needs_matplotlib
def test_a_plot_that_draws_nothing_says_why(tmp_path, capsys):
    assert (
        main(["phase", "--protocol", "custom", "--d-k", "16", "--T", "10", "--engine", "quad", "--plot", "--out", str(tmp_path)])
        == 0
    )
    stdout = _flat(capsys.readouterr().out)
    why = "--plot wrote no figure: Fig. 7 needs two or more --d-k values, Fig. 8 one --d-k value and two or more --T values"
    assert f"note: {why}" in stdout and "wrote 5 files" in stdout
    assert not list(tmp_path.glob("*.png"))


@needs_matplotlib
def test_the_fig8a_legend_names_the_engine(tmp_path, capsys, monkeypatch):
    import matplotlib.figure

    legends: dict[str, list[str]] = {}

    def savefig(self, path, **kwargs):
        legend = self.axes[0].get_legend()
        legends[Path(path).name] = [t.get_text() for t in legend.get_texts()] if legend else []
        Path(path).write_bytes(b"")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    argv = ["phase", "--protocol", "custom", "--d-k", "16", "--T", "6,10,40", "--gamma-points", "9", "--plot"]
    for engine, label in ((["--engine", "quad"], "quadrature"), (["--trials", "200", "--seeds", "2"], "MC (8x s.d.)")):
        legends.clear()
        assert main([*argv, *engine, "--out", str(tmp_path / label)]) == 0
        assert sorted(legends["fig8a_gamma_c_vs_T.png"]) == sorted([label, "condensed branch", "mean-field law"])
    capsys.readouterr()


# --- defects 6 and 7: list values are distinct and written in plain decimal digits --------------------------
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--d-k", "32,32,32,64,128", "--T", "10"], "argument --d-k: 32 is given more than once; give each value once"),
        (["--d-k", "16", "--T", "10,15,010"], "argument --T: 10 is given more than once; give each value once"),
        (["--d-k", "1_6", "--T", "10"], "argument --d-k: '1_6' is not a comma-separated list of integers"),
        (["--d-k", "+16", "--T", "10"], "argument --d-k: '+16' is not a comma-separated list of integers"),
        (["--d-k", "16", "--T", "\u0661\u0660"], "is not a comma-separated list of integers"),
        (["--d-k", "16", "--T", "10", "--seeds", "1_0"], "argument --seeds: invalid int value: '1_0'"),
        (["--d-k", "16", "--T", "10", "--gamma-points", "2_1"], "argument --gamma-points: invalid int value: '2_1'"),
    ],
)
def test_list_values_are_distinct_plain_decimal_integers(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(phase_cmd, "run_sweep", _no_work)
    assert main(["phase", "--protocol", "custom", *argv, "--out", str(tmp_path / "o")]) == 2
    stdout, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("attncert: error:") and message in err, err
    assert not stdout and not (tmp_path / "o").exists()


def test_plain_lists_parse_and_a_repeat_is_refused(capsys, monkeypatch):
    monkeypatch.setattr(phase_cmd, "_run", lambda args, *rest: args.d_ks)
    assert main(["phase", "--protocol", "custom", "--d-k", " 4, 8 ,", "--T", "10"]) == (4, 8)
    assert main(["phase", "--protocol", "custom", "--d-k", "-4", "--T", "10"]) == 2  # the range check names it
    assert "--d-k must be an integer in [1, 1,000,000], not -4" in capsys.readouterr().err
    assert main(["phase", "--protocol", "custom", "--d-k", "4,8,4", "--T", "10"]) == 2
    assert "argument --d-k: 4 is given more than once" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "comparable"),
    [([], True), (["--sigma-t", "3"], False), (["--variant", "key-only"], False), (["--gamma-points", "31"], False)],
)
def test_paper_values_stand_only_beside_the_papers_setting(extra, comparable, tmp_path, capsys):
    """The paper's fig7 statistics are for sigma_t = 2, variant t4 on the fig7 grid. --sigma-t 3 printed the
    paper's r = 0.9876 beside the run's own 0.977, as if the paper had measured that model."""
    assert main(["phase", "--protocol", "fig7", "--engine", "quad", *extra, "--out", str(tmp_path)]) == 0
    stdout = _flat(capsys.readouterr().out)
    stats = json.loads((tmp_path / "summary.json").read_text())["statistics"]
    assert stats["mean-field Pearson r"]["paper"] == (0.9876 if comparable else None)
    assert ("the paper column is empty" in stdout) is not comparable
    assert ("| 0.9876 |" in (tmp_path / "summary.md").read_text()) is comparable
