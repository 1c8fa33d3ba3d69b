"""`attncert phase`: regenerate the PSA gamma_c phase-transition tables and figures.

Every flag is validated here, in one place, before any work (ranges of psa.md §3.4-§3.5
protocols); then the work and peak memory of the sweep are estimated and the run is refused
(one line, naming the limit and the flag that raises it) when they exceed the limits. Monte
Carlo trials are processed in fixed chunks, so memory does not grow with the trial count; the
number of concurrent replicates is capped so that peak memory stays under --max-memory. Long
runs report progress on stderr (a bar on a terminal, a line every few seconds otherwise);
Ctrl-C stops the run with exit code 130 and writes nothing."""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import time
import warnings
from dataclasses import replace

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from attncert.certificates.frontends import phase_output as out
from attncert.certificates.frontends.common import (
    EXIT_OK,
    UsageError,
    all_or_nothing,
    both_ends,
    preflight_folder,
    printable,
    write_all,
)
from attncert.solvers.backend import BackendUnavailable, get_backend
from attncert.solvers.phase import FIG7, PROTOCOLS, Protocol, estimate, run_sweep
from attncert.solvers.phase import summarise as summarise_sweep
from attncert.solvers.score_model import ScoreModel, chunk_count
from attncert.solvers.sweep import ExecutorUnavailable, LocalExecutor, get_executor

#: ranges of every numeric flag (the limits of work and memory are flags themselves)
LIMITS = {
    "--d-k": (1, 10**6),
    "--T": (3, 10**6),
    "--gamma-points": (2, 10**5),
    "--seeds": (1, 10**4),
    "--trials": (1, 10**15),
    "--seed": (0, 2**63 - 1),
}
GAMMA_MAX_LIMIT = 1e4
SIGMA_T_LIMIT = 1e4
#: evaluations per second of this machine's numpy engines (benchmarks/phase.py), for the estimate
MC_RATE, QUAD_RATE = 5e7, 3e8
PROGRESS_EVERY_S = 5.0
FIRST_LINE_S = 1.0
#: memory of the interpreter and its libraries, added to every estimate
BASELINE_BYTES = 256 * 2**20
#: memory per row of curves.csv while the file is built (--out)
OUTPUT_ROW_BYTES = 300
#: memory per (d_k, T) point after the sweep (its summary and p_inf), and with --out the text of the
#: files and the JSON being built (tracemalloc peaks of 0.7 KB and 3.1 KB a point at 30,000 points)
POINT_BYTES, OUTPUT_POINT_BYTES = 1024, 3 * 1024
#: seconds of Python per step that the rates above leave out (time.perf_counter on this machine, grids
#: of 4,000 to 30,000 points; rounded up): a Monte Carlo step (one replicate, chunk of trials, gamma,
#: d_k and T) 5-7 us; a curve's gamma_c and the point's summary 16 us; p_inf by quadrature (t4 only)
#: 0.18-0.27 ms a point; with --out, a curve's rows of points.csv, gamma_c_per_replicate.csv, summary.md
#: and summary.json 52 us, a row of curves.csv 4.6 us; with --plot, 0.13 ms a point and 16 ms a T
#: (Fig. 7a draws a curve and a legend entry per T)
MC_STEP_S, CURVE_S, PLATEAU_S = 7e-6, 2e-5, 3e-4
OUTPUT_CURVE_S, OUTPUT_ROW_S = 6e-5, 5e-6
FIGURE_POINT_S, FIGURE_T_S = 1.5e-4, 2e-2
#: rows of the terminal table: the first and the last TABLE_ROWS // 2 points beyond that (all are in the files)
TABLE_ROWS = 20
#: options the quad engine does not use (it is deterministic and has one replicate): a note says so, as
#: `attncert grades` does for --nu-mag in a mode without its penalty
MC_ONLY = (("--seed", "seed"), ("--seeds", "seeds"), ("--trials", "trials"), ("--backend", "backend"), ("--executor", "executor"))


def _check_int(flag: str, value: int | None) -> None:
    if value is None:
        return
    low, high = LIMITS[flag]
    if not low <= value <= high:
        raise UsageError(f"{flag} must be an integer in [{low:,}, {high:,}], not {_short(value)}")


def _short(value: int) -> str:
    return str(value) if abs(value) < 10**30 else f"an integer of {len(str(abs(value)))} digits"


def _check_float(flag: str, value: float | None, low: float, high: float, *, low_open: bool = False) -> None:
    if value is None:
        return
    ok = math.isfinite(value) and (value > low if low_open else value >= low) and value <= high
    if not ok:
        bracket = "(" if low_open else "["
        raise UsageError(f"{flag} must be a finite number in {bracket}{low:g}, {high:g}], not {value:g}")


def validate(args: argparse.Namespace) -> None:
    """Every flag's type and range, before anything is computed."""
    if args.protocol == "custom" and not (args.d_ks and args.Ts):
        raise UsageError("--protocol custom needs --d-k and --T")
    if args.protocol != "custom" and (args.d_ks or args.Ts):
        raise UsageError(f"--d-k and --T go with --protocol custom, not {args.protocol}")
    if args.scheduler is not None and args.executor != "dask":
        raise UsageError("--scheduler goes with --executor dask")
    for flag, values in (("--d-k", args.d_ks), ("--T", args.Ts)):
        for value in values or ():
            _check_int(flag, value)
        if values and len(values) > 1000:
            raise UsageError(f"{flag} takes at most 1,000 values, not {len(values):,}")
    for flag, value in (("--gamma-points", args.gamma_points), ("--seeds", args.seeds), ("--trials", args.trials)):
        _check_int(flag, value)
    _check_int("--seed", args.seed)
    _check_float("--gamma-max", args.gamma_max, 0.0, GAMMA_MAX_LIMIT, low_open=True)
    _check_float("--sigma-t", args.sigma_t, 0.0, SIGMA_T_LIMIT)
    _check_float("--c", args.c, 0.0, 1e6, low_open=True)
    _check_float("--max-memory", args.max_memory, 0.0, 1e6, low_open=True)
    _check_float("--max-minutes", args.max_minutes, 0.0, 1e9, low_open=True)
    if args.plot:
        if args.out is None:
            raise UsageError("--plot needs --out DIR")
        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("--plot needs matplotlib: pip install 'attncert[plot]'")
    if args.out is not None:
        preflight_folder(args.out, out.OUTPUT_NAMES + _figure_names(args))


def _figure_names(args: argparse.Namespace) -> tuple[str, ...]:
    """The figures this run writes (none without --plot)."""
    if not args.plot:
        return ()
    base = PROTOCOLS.get(args.protocol)
    return out.figure_names(args.d_ks or base.d_ks, args.Ts or base.Ts)


def budget(protocol: Protocol, model: ScoreModel, args: argparse.Namespace, executor) -> int | None:
    """Refuse a sweep that would exceed --max-memory or --max-minutes (estimated before it
    starts); return the number of concurrent replicates that keeps peak memory in bounds."""
    est = estimate(protocol, model, args.engine)
    limit = int(args.max_memory * 2**30) - BASELINE_BYTES
    points = len(protocol.d_ks) * len(protocol.Ts)
    per_point = POINT_BYTES + (OUTPUT_POINT_BYTES if args.out is not None else 0)
    est = replace(est, fixed_bytes=est.fixed_bytes + per_point * points)
    if args.out is not None:  # curves.csv is built in memory: about 300 bytes a row while it is
        replicates = protocol.seeds if args.engine == "mc" else 1
        rows = replicates * points * len(protocol.gammas)
        est = replace(est, fixed_bytes=est.fixed_bytes + OUTPUT_ROW_BYTES * rows)
    gb = 2**30
    if est.peak_bytes(1) > limit:
        raise UsageError(
            f"this sweep needs about {(est.peak_bytes(1) + BASELINE_BYTES) / gb:.3g} GB of memory (limit {args.max_memory:g} GB; "
            "raise it with --max-memory GB, or lower --T, --gamma-max, --gamma-points or --seeds)"
        )
    minutes = seconds(protocol, model, args, est.work) / 60
    if minutes > args.max_minutes:
        lower = "--trials, --seeds, --gamma-points" if args.engine == "mc" else "--gamma-points"
        raise UsageError(
            f"this sweep needs an estimated {minutes:.3g} minutes of computation (limit {args.max_minutes:g}; "
            f"raise it with --max-minutes, or lower {lower} or the number of --d-k and --T values)"
        )
    if args.engine != "mc" or not isinstance(executor, LocalExecutor):
        return None
    workers = executor.workers or min(protocol.seeds, os.cpu_count() or 1)
    fits = max(1, (limit - est.fixed_bytes) // max(est.replicate_bytes, 1))
    return int(min(workers, fits))


def seconds(protocol: Protocol, model: ScoreModel, args: argparse.Namespace, work: float) -> float:
    """The run time of the whole command: the engine's work at its rate, and the Python steps per
    point that the rate leaves out (the Monte Carlo loop, gamma_c, p_inf, the files and figures)."""
    mc = args.engine == "mc"
    points = len(protocol.d_ks) * len(protocol.Ts)
    curves = (protocol.seeds if mc else 1) * points
    total = work / (MC_RATE if mc else QUAD_RATE) + CURVE_S * curves
    if mc:
        total += MC_STEP_S * curves * chunk_count(protocol.trials) * len(protocol.gammas)
    if model.variant == "t4":
        total += PLATEAU_S * points
    if args.out is not None:
        total += OUTPUT_CURVE_S * curves + OUTPUT_ROW_S * curves * len(protocol.gammas)
        if args.plot:  # --plot needs --out
            total += FIGURE_POINT_S * points + FIGURE_T_S * len(protocol.Ts)
    return total


class _Reporter:
    """Progress on stderr: a rich bar on a terminal, otherwise a plain line every few seconds
    (so that no long run is silent when its output is captured)."""

    def __init__(self, label: str) -> None:
        self.err = Console(stderr=True)
        self.label = label
        self.start = time.monotonic()
        # the first plain line after FIRST_LINE_S (the run has begun), then one every PROGRESS_EVERY_S
        self.last = self.start - max(PROGRESS_EVERY_S - FIRST_LINE_S, 0.0)
        self.bar = None
        if self.err.is_terminal:
            self.bar = Progress(
                TextColumn(f"[bold]{label}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self.err,
                transient=True,
            )
            self.task = self.bar.add_task("", total=None)

    def __enter__(self) -> _Reporter:
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def __call__(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)
            return
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY_S and done < total:
            self.last = now
            print(
                f"{self.label}: {done / total:.0%} ({done:,}/{total:,} steps), {now - self.start:.0f} s",
                file=sys.stderr,
                flush=True,
            )


def run(args: argparse.Namespace, console: Console) -> int:
    validate(args)
    base = PROTOCOLS.get(args.protocol)
    grid = np.linspace(0.0, args.gamma_max or 8.0, args.gamma_points or 61)
    try:
        protocol = Protocol(
            name=args.protocol,
            d_ks=args.d_ks or base.d_ks,
            Ts=args.Ts or base.Ts,
            gammas=tuple(float(g) for g in grid),
            seeds=args.seeds if args.seeds is not None else (base or FIG7).seeds,
            trials=args.trials if args.trials is not None else (base or FIG7).trials,
        )
        model = ScoreModel(sigma_t=args.sigma_t, variant=args.variant)
        backend = executor = seed = None  # the quad engine uses none of them (a note says so when they are given)
        if args.engine == "mc":
            backend = get_backend(args.backend or "numpy")
            executor = get_executor(args.executor or "local", args.scheduler, 1 if backend.name != "numpy" else None)
            seed = args.seed if args.seed is not None else 0
    except (ValueError, BackendUnavailable, ExecutorUnavailable) as exc:
        raise UsageError(str(exc)) from None
    workers = budget(protocol, model, args, executor)
    if workers is not None:
        executor = LocalExecutor(workers)
    return _run(args, console, protocol, model, backend, executor, seed)  # Ctrl-C: cli.main reports it (exit 130)


def _run(args, console: Console, protocol: Protocol, model: ScoreModel, backend, executor, seed: int | None) -> int:
    start = time.perf_counter()
    notes: list[str] = []
    unused = [f"{flag} {getattr(args, name)}" for flag, name in MC_ONLY if getattr(args, name) is not None]
    if unused and args.engine == "quad":
        notes.append(
            f"{', '.join(unused)}: no effect with --engine quad, which is deterministic with one replicate "
            "(summary.json records seed, seeds, trials and backend as null)"
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _Reporter(f"phase {protocol.name} ({args.engine})") as reporter:
            try:
                sweep = run_sweep(
                    protocol, model, engine=args.engine, backend=backend, seed=seed, executor=executor, progress=reporter
                )
            except ExecutorUnavailable as exc:
                raise UsageError(str(exc)) from None
        elapsed = time.perf_counter() - start
        stats = summarise_sweep(sweep, c=args.c)  # c=None: c-hat, or the reference value when it is undefined
        c, c_source = out.condensation_constant(stats, args.c)
        pinf = out.plateaus(sweep, model)
    for message in dict.fromkeys(" ".join(str(w.message).split()) for w in caught):
        notes.append(f"numerical warning (captured): {message[:200]}")
    missing = int(np.isnan(sweep.gamma_c).sum())
    if missing:
        notes.append(
            f"{missing} of {sweep.gamma_c.size} curves never cross their midpoint on this gamma grid: "
            "gamma_c is NaN there (refine --gamma-points or change --gamma-max)"
        )
    condensed = sum(pt.branch == "condensed" for pt in stats.points)
    if args.c is None and (stats.c_hat_points < condensed or not condensed):
        notes.append(f"condensed predictions use c = {c:.4f}: {c_source}")

    table = Table(
        "T",
        "d_k",
        "branch",
        "gamma_c (mean +- s.d.)",
        "mean-field",
        "condensed",
        "rel. error",
        "p_inf",
        header_style="bold",
        title=f"{protocol.name}: {sweep.engine} in {elapsed:.1f}s",
    )
    rows = sorted(stats.points, key=lambda q: (q.T, q.d_k))
    if len(rows) > TABLE_ROWS:
        # rich lays a table out in seconds per thousand rows (38 s for 30,000): show both ends of the grid
        where = "all are in points.csv and summary.md" if args.out is not None else "--out DIR writes them all"
        notes.append(f"the table shows the first and last {TABLE_ROWS // 2} of {len(rows):,} points; {where}")
    for k in both_ends(len(rows), TABLE_ROWS // 2):
        if k is None:
            table.add_row(*["..."] * 3, f"({len(rows) - TABLE_ROWS:,} points not shown)", *["..."] * 4)
            continue
        pt = rows[k]
        table.add_row(
            str(pt.T),
            str(pt.d_k),
            pt.branch,
            f"{pt.gamma_c_mean:.4f} +- {pt.gamma_c_sd:.4f}",
            "-" if math.isnan(pt.mean_field) else f"{pt.mean_field:.4f}",
            f"{c * pt.freezing:.4f}",
            f"{pt.rel_error:.2%}",
            "-" if not pinf else f"{pinf[(pt.d_k, pt.T)]:.3f}",
        )
    console.print(table)
    st = Table("statistic", "attncert", "paper", header_style="bold")
    comparable = out.paper_comparable(protocol, model)
    if protocol.name in PROTOCOLS and not comparable:
        notes.append(
            f"the paper column is empty: the paper's {protocol.name} statistics are for sigma_t = 2, variant t4 on the "
            "protocol's own grid"
        )
    for name, value, paper in out.statistics_rows(stats, protocol.name, comparable):
        st.add_row(name, f"{value:.4f}", "-" if paper is None else f"{paper}")
    console.print(st)
    if sweep.error_estimate is not None:
        worst = float(np.max(sweep.error_estimate))
        shown = f"{worst:.2e}" if math.isfinite(worst) else "not finite (the quadrature failed on this grid)"
        console.print(f"quadrature error estimate (max over the grid): {shown}")
    for note in notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    if args.plot and not _figure_names(args):
        console.print(f"note: {out.NO_FIGURE}", markup=False, highlight=False)
    if args.out is not None:
        files = {
            "points.csv": out.points_csv(stats, c, pinf),
            "gamma_c_per_replicate.csv": out.seeds_csv(sweep),
            "curves.csv": out.curves_csv(sweep),
            "summary.md": out.markdown(sweep, stats, c, c_source, pinf, model),
            "summary.json": out.summary_json(sweep, stats, c, c_source, model, seed, backend.name if backend else None),
        }
        try:
            # the figures too: a failure leaves no new file behind and puts back the files it replaced
            with all_or_nothing(args.out, [*files, *_figure_names(args)]):
                written = write_all(args.out, files)
                if args.plot:
                    written += out.figures(args.out, sweep, stats, c)
        except OSError as exc:
            raise UsageError(f"--out {args.out}: cannot write ({exc.strerror or type(exc).__name__})") from None
        console.print(f"wrote {len(written)} files to {printable(str(args.out))}", markup=False, highlight=False)
    return EXIT_OK
