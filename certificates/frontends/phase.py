"""`attncert phase`: regenerate the PSA gamma_c phase-transition tables and figures."""

from __future__ import annotations

import argparse
import importlib.util
import math
import time

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from attncert.certificates.frontends import phase_output as out
from attncert.certificates.frontends.common import EXIT_OK, UsageError
from attncert.solvers.backend import BackendUnavailable, get_backend
from attncert.solvers.phase import C_HAT_REFERENCE, FIG7, PROTOCOLS, Protocol, run_sweep
from attncert.solvers.phase import summarise as summarise_sweep
from attncert.solvers.score_model import ScoreModel
from attncert.solvers.sweep import ExecutorUnavailable, get_executor


def run(args: argparse.Namespace, console: Console) -> int:
    base = PROTOCOLS.get(args.protocol)
    if args.protocol == "custom" and not (args.d_ks and args.Ts):
        raise UsageError("--protocol custom needs --d-k and --T")
    if args.protocol != "custom" and (args.d_ks or args.Ts):
        raise UsageError(f"--d-k and --T go with --protocol custom, not {args.protocol}")
    if args.gamma_points is not None and args.gamma_points < 2:
        raise UsageError(f"--gamma-points must be >= 2, not {args.gamma_points} (the grid would be empty)")
    if args.gamma_max is not None and not (math.isfinite(args.gamma_max) and args.gamma_max > 0):
        raise UsageError(f"--gamma-max must be a finite number > 0, not {args.gamma_max}")
    if args.c is not None and not (math.isfinite(args.c) and args.c > 0):
        raise UsageError(f"--c must be a finite number > 0, not {args.c}")
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
        backend = get_backend(args.backend)
        executor = get_executor(args.executor, args.scheduler, 1 if backend.name != "numpy" else None)
    except (ValueError, BackendUnavailable, ExecutorUnavailable) as exc:
        raise UsageError(str(exc)) from None
    if args.plot:
        if args.out is None:
            raise UsageError("--plot needs --out DIR")
        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("--plot needs matplotlib: pip install 'attncert[plot]'")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} exists and is not a folder")

    err = Console(stderr=True)
    start = time.perf_counter()
    with Progress(
        TextColumn(f"[bold]phase {protocol.name} ({args.engine})"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task("", total=protocol.seeds if args.engine == "mc" else 1)
        sweep = run_sweep(
            protocol,
            model,
            engine=args.engine,
            backend=backend,
            seed=args.seed,
            executor=executor,
            progress=lambda done, total: progress.update(task, completed=done, total=total),
        )
    elapsed = time.perf_counter() - start
    stats = summarise_sweep(sweep, c=args.c)
    c = args.c if args.c is not None else (stats.c_hat if math.isfinite(stats.c_hat) else C_HAT_REFERENCE)
    stats = summarise_sweep(sweep, c=c)
    pinf = out.plateaus(sweep, model)

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
    for pt in sorted(stats.points, key=lambda q: (q.T, q.d_k)):
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
    for name, value, paper in out.statistics_rows(stats, protocol.name):
        st.add_row(name, f"{value:.4f}", "-" if paper is None else f"{paper}")
    console.print(st)
    if sweep.error_estimate is not None:
        console.print(f"quadrature error estimate (max over the grid): {sweep.error_estimate.max():.2e}")
    if args.out is not None:
        files = {
            "points.csv": out.points_csv(stats, c, pinf),
            "gamma_c_per_replicate.csv": out.seeds_csv(sweep),
            "curves.csv": out.curves_csv(sweep),
            "summary.md": out.markdown(sweep, stats, c, pinf, model),
            "summary.json": out.summary_json(sweep, stats, c, model, args.seed, backend.name),
        }
        written = out.write_all(args.out, files)
        if args.plot:
            written += out.figures(args.out, sweep, stats, c)
        console.print(f"wrote {len(written)} files to {args.out}")
    return EXIT_OK
