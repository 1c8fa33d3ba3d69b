"""The ``attncert`` command line (also ``python -m certificates``).

Exit codes: 0 every verdict as expected (and every negative control rejected when asked),
1 otherwise, 2 on usage errors (one message, no traceback, nothing written).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path
from typing import NoReturn

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from certificates import grades_output as grades_out
from certificates import phase_output as out
from certificates.grades_report import grade_report
from certificates.html_report import write_report as write_html_report
from certificates.ledger import LedgerEntry, ledger, out_of_scope
from certificates.model import Context, Tier
from certificates.profiles import MODES, ProfileError, load_profiles
from certificates.registry import PAPERS, select
from certificates.report import (
    VERDICT_STYLES,
    dump_json,
    report_json,
    report_markdown,
    summarise,
    write_atomically,
)
from certificates.runner import Result, run_all
from solvers.backend import BACKENDS, BackendUnavailable, get_backend
from solvers.phase import C_HAT_REFERENCE, FIG7, PROTOCOLS, Protocol, run_sweep
from solvers.phase import summarise as summarise_sweep
from solvers.score_model import VARIANTS, ScoreModel
from solvers.sweep import EXECUTORS, ExecutorUnavailable, get_executor

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line; reported in one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _writable(path: str) -> Path:
    p = Path(path)
    if not p.parent.exists():
        raise argparse.ArgumentTypeError(f"{path}: folder {p.parent} does not exist")
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder, not a file")
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="attncert", description="Certificate verifier for the PLGA, GLLM and PSA papers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    verify = sub.add_parser("verify", help="run the certificate suite and report a verdict per claim")
    verify.add_argument("--paper", choices=PAPERS, help="only this paper's certificates")
    verify.add_argument("-k", dest="pattern", metavar="PATTERN", help="only ids matching PATTERN (glob or substring)")
    verify.add_argument("--tag", help="only certificates with this tag")
    verify.add_argument(
        "--tier",
        choices=[t.value for t in Tier],
        default="quick",
        help="quick (default): the fast tier, seconds; full: also the full-protocol Monte Carlo certificates",
    )
    verify.add_argument("--json", type=_writable, metavar="PATH", help="write the JSON report here")
    verify.add_argument("--markdown", type=_writable, metavar="PATH", help="write a Markdown report here")
    verify.add_argument("--negative-controls", action="store_true", help="also run every mutant; each must be rejected")
    verify.add_argument("--backend", choices=[*BACKENDS, "auto"], default="numpy", help="array backend (default numpy)")
    verify.add_argument("--seed", type=int, default=Context().seed, help="seed for randomized checks")
    verify.add_argument("--list", action="store_true", help="list the selected certificates and exit")

    claims = sub.add_parser("claims", help="the claims ledger: every catalogued claim and its status")
    claims.add_argument("--paper", choices=PAPERS)

    report = sub.add_parser("report", help="write a browsable HTML report (certificates, ledger, figures)")
    report.add_argument("--out", type=Path, required=True, help="folder for index.html and its PNG figures")
    report.add_argument("--tier", choices=[t.value for t in Tier], default="quick")
    report.add_argument("--paper", choices=PAPERS)
    report.add_argument("--negative-controls", action="store_true", help="also run and record every mutant")
    report.add_argument("--no-figures", action="store_true", help="skip the figures (no matplotlib needed)")
    report.add_argument("--seed", type=int, default=Context().seed)

    grades = sub.add_parser("grades", help="solve GLLM grade selection from a profile file and certify gradings")
    grades.add_argument("profile", nargs="?", type=Path, help="profile file (.json, .toml or .csv)")
    grades.add_argument("--C", dest="clip", type=float, help="clip C >= 1 (overrides the file; default 2)")
    grades.add_argument("--mode", choices=list(MODES), help="selection mode (overrides the file; default clipped)")
    grades.add_argument("--d-k", dest="grades_d_k", type=float, help="lambda = e^{1/d_k} (overrides the file)")
    grades.add_argument("--nu-mag", type=float, help="Cor 4 regulariser (modes regularized*)")
    grades.add_argument("--json", dest="grades_json", type=_writable, metavar="PATH", help="write the report as JSON")
    grades.add_argument("--cross-check", action="store_true", help="also solve with L-BFGS-B and cvxpy and compare")
    grades.add_argument("--table3", action="store_true", help="regenerate GLLM Table 3 (L = 4, C = 2)")

    phase = sub.add_parser("phase", help="regenerate the PSA gamma_c phase-transition tables and figures")
    phase.add_argument("--protocol", choices=["fig7", "taxis", "custom"], default="fig7")
    phase.add_argument("--engine", choices=["mc", "quad"], default="mc", help="Monte Carlo or quadrature")
    phase.add_argument("--backend", choices=[*BACKENDS, "auto"], default="numpy", help="array backend for mc")
    phase.add_argument("--seed", type=int, default=0, help="base seed; replicate seeds are derived from it")
    phase.add_argument("--out", type=Path, help="write CSV, Markdown and JSON (and PNG with --plot) here")
    phase.add_argument("--plot", action="store_true", help="also write the Fig. 7 / Fig. 8 panels (needs matplotlib)")
    phase.add_argument("--d-k", dest="d_ks", type=_int_list, help="custom: d_k values, e.g. 4,8,16")
    phase.add_argument("--T", dest="Ts", type=_int_list, help="custom: T values, e.g. 10,15,25")
    phase.add_argument("--gamma-max", type=float, help="top of the gamma grid (default 8)")
    phase.add_argument("--gamma-points", type=int, help="points of the gamma grid (default 61)")
    phase.add_argument("--seeds", type=int, help="replicates (default 5)")
    phase.add_argument("--trials", type=int, help="trials per replicate (default 60000)")
    phase.add_argument("--sigma-t", type=float, default=2.0, help="target noise sigma_t [R?] (default 2)")
    phase.add_argument("--variant", choices=list(VARIANTS), default="t4", help="score model variant")
    phase.add_argument("--c", type=float, help="condensation constant for condensed predictions (default: c-hat)")
    phase.add_argument("--executor", choices=list(EXECUTORS), default="local", help="where Monte Carlo replicates run")
    phase.add_argument("--scheduler", help="dask scheduler address for --executor dask (e.g. tcp://127.0.0.1:8786)")
    return parser


def _int_list(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None
    if not values:
        raise argparse.ArgumentTypeError("the list is empty")
    return values


def _verdict_text(result: Result) -> Text:
    text = Text(result.verdict.value, style=VERDICT_STYLES[result.verdict])
    if not result.as_expected:
        text.append(f" (expected {result.certificate.expected.value})", style="bold red")
    return text


def _results_table(results: list[Result], negative_controls: bool) -> Table:
    table = Table(show_lines=False, header_style="bold", expand=False)
    for name in ("id", "claim", "method", "verdict", "key evidence", "time"):
        table.add_column(name, overflow="fold")
    if negative_controls:
        table.add_column("mutant")
    for r in results:
        row = [
            r.certificate.id,
            r.certificate.claim.label,
            r.certificate.method.value,
            _verdict_text(r),
            r.outcome.evidence.summary,
            f"{r.outcome.duration_s:.2f}s",
        ]
        if negative_controls:
            mutant = r.negative_control.evidence.verdict.value if r.negative_control else "-"
            row.append(
                Text(
                    f"{mutant} ({'killed' if r.mutant_killed else 'SURVIVED'})",
                    style="green" if r.mutant_killed else "bold red",
                )
            )
        table.add_row(*row)
    return table


def _verify(args: argparse.Namespace, console: Console) -> int:
    certs = select(paper=args.paper, pattern=args.pattern, tag=args.tag, tier=Tier(args.tier))
    if not certs:
        raise UsageError("no certificate matches the selection (see 'attncert verify --list')")
    if args.list:
        table = Table("id", "paper", "claim", "method", "tier", "expected", header_style="bold")
        for c in certs:
            table.add_row(c.id, c.paper, c.claim.label, c.method.value, c.tier.value, c.expected.value)
        console.print(table)
        return EXIT_OK
    try:
        backend = get_backend(args.backend)
    except BackendUnavailable as exc:
        raise UsageError(str(exc)) from None
    ctx = Context(seed=args.seed, backend=backend.name)
    err = Console(stderr=True)
    start = time.perf_counter()
    with Progress(
        TextColumn("[bold]verify"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task("", total=len(certs))

        def advance(result: Result) -> None:
            progress.update(task, advance=1, description=result.certificate.id)

        results = run_all(certs, ctx, negative_controls=args.negative_controls, on_result=advance)
    elapsed = time.perf_counter() - start
    oos = out_of_scope(args.paper)
    console.print(_results_table(results, args.negative_controls))
    summary = summarise(results, oos)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(summary.counts.items()))
    console.print(f"[bold]{len(results)} certificates[/] in {elapsed:.1f}s: {counts}")
    if summary.unexpected:
        console.print(f"[bold red]unexpected verdicts:[/] {', '.join(summary.unexpected)}")
    if args.negative_controls:
        style = "green" if summary.controls_killed == summary.controls_run else "bold red"
        console.print(f"[{style}]negative controls killed: {summary.controls_killed}/{summary.controls_run}[/]")
    skipped = len(select(paper=args.paper, pattern=args.pattern, tag=args.tag, tier=Tier.FULL)) - len(certs)
    if skipped:
        console.print(f"{skipped} full-tier certificates not run (the paper's full Monte Carlo protocols): --tier full")
    if oos:
        console.print(f"{len(oos)} catalogued claims are OUT_OF_SCOPE (not counted as passes; see 'attncert claims')")
    selection = {
        "paper": args.paper,
        "pattern": args.pattern,
        "tag": args.tag,
        "tier": args.tier,
        "negative_controls": args.negative_controls,
    }
    if args.json:
        write_atomically(args.json, dump_json(report_json(results, ctx, oos, selection)))
    if args.markdown:
        write_atomically(args.markdown, report_markdown(results, ctx, oos))
    return EXIT_OK if summary.ok else EXIT_FAIL


def _status_text(entry: LedgerEntry) -> Text:
    if entry.reason is not None:
        return Text(f"OUT_OF_SCOPE: {entry.reason}", style="dim")
    if not entry.certificates:
        return Text("not yet certified", style="yellow")
    return Text(", ".join(f"{c.id} ({c.expected.value})" for c in entry.certificates))


def _claims(args: argparse.Namespace, console: Console) -> int:
    entries = ledger(args.paper)
    if not entries:
        raise UsageError(f"no claims catalogue for paper {args.paper!r} yet")
    table = Table("paper", "claim", "class", "statement", "status", header_style="bold")
    for e in entries:
        table.add_row(e.paper, e.key, e.klass, e.statement, _status_text(e))
    console.print(table)
    tally: dict[str, int] = {}
    for e in entries:
        tally[e.status] = tally.get(e.status, 0) + 1
    console.print(", ".join(f"{k}: {v}" for k, v in sorted(tally.items())))
    return EXIT_OK


def _report(args: argparse.Namespace, console: Console) -> int:
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} exists and is not a folder")
    if not args.no_figures and importlib.util.find_spec("matplotlib") is None:
        raise UsageError("figures need matplotlib: pip install 'attncert[plot]' (or pass --no-figures)")
    certs = select(paper=args.paper, tier=Tier(args.tier))
    ctx = Context(seed=args.seed, backend="numpy")
    results = run_all(certs, ctx, negative_controls=args.negative_controls)
    summary = summarise(results, [])
    meta = {
        "seed": args.seed,
        "backend": "numpy",
        "tier": args.tier,
        "controls": f"{summary.controls_killed}/{summary.controls_run} killed" if args.negative_controls else "not run",
    }
    page = write_html_report(args.out, results, ledger(args.paper), meta, figures=not args.no_figures)
    console.print(f"wrote {page} ({len(results)} certificates)")
    return EXIT_OK if summary.ok else EXIT_FAIL


def _grades(args: argparse.Namespace, console: Console) -> int:
    if args.table3:
        if args.profile is not None:
            raise UsageError("--table3 takes no profile file")
        console.print(grades_out.table3_table(args.clip if args.clip is not None else 2.0))
        return EXIT_OK
    if args.profile is None:
        raise UsageError("give a profile file (see examples/profiles/) or --table3")
    overrides = {"C": args.clip, "mode": args.mode, "d_k": args.grades_d_k, "nu_mag": args.nu_mag}
    try:
        profiles = load_profiles(args.profile, overrides=overrides)
        report = grade_report(profiles, cross_check=args.cross_check)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(f"{args.profile}: {exc}") from None
    grades_out.print_report(console, report)
    if args.grades_json:
        write_atomically(args.grades_json, dump_json(grades_out.report_json(report)))
    return EXIT_OK


def _phase(args: argparse.Namespace, console: Console) -> int:
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


def main(argv: list[str] | None = None) -> int:
    console = Console(width=None if sys.stdout.isatty() else 200)
    try:
        args = build_parser().parse_args(argv)
        if args.command == "verify":
            return _verify(args, console)
        if args.command == "phase":
            return _phase(args, console)
        if args.command == "grades":
            return _grades(args, console)
        if args.command == "report":
            return _report(args, console)
        return _claims(args, console)
    except UsageError as exc:
        Console(stderr=True, soft_wrap=True).print(f"[bold red]attncert: error:[/] {escape(str(exc))}", highlight=False)
        return EXIT_USAGE
