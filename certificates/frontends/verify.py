"""`attncert verify`: run the selected certificates (and their negative controls) and report."""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from attncert.certificates.engine.ledger import out_of_scope
from attncert.certificates.engine.model import Certificate, Context, Tier
from attncert.certificates.engine.registry import select
from attncert.certificates.engine.runner import Outcome, Result, Task, default_jobs, run_all
from attncert.certificates.frontends.common import EXIT_FAIL, EXIT_OK, UsageError, dump_json, write_atomically
from attncert.certificates.frontends.verify_output import (
    VERDICT_STYLES,
    report_json,
    report_markdown,
    scope_label,
    summarise,
)
from attncert.solvers.backend import BackendUnavailable, get_backend


def _verdict_text(result: Result) -> Text:
    text = Text(result.verdict.value, style=VERDICT_STYLES[result.verdict])
    if not result.as_expected:
        text.append(f" (expected {result.certificate.expected.value})", style="bold red")
    return text


def _results_table(results: list[Result], negative_controls: bool) -> Table:
    table = Table(show_lines=False, header_style="bold", expand=False)
    for name in ("id", "claim", "method", "verdict", "scope", "key evidence", "time"):
        table.add_column(name, overflow="fold")
    if negative_controls:
        table.add_column("mutant")
    for r in results:
        row = [
            r.certificate.id,
            r.certificate.claim.label,
            r.certificate.method.value,
            _verdict_text(r),
            scope_label(r.outcome.evidence),
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


#: seconds between the plain progress lines written when stderr is not a terminal
PLAIN_PROGRESS_S = 10.0


def run_with_progress(
    certs: list[Certificate],
    ctx: Context,
    *,
    negative_controls: bool,
    jobs: int | None,
    timeout: float,
    label: str = "verify",
) -> list[Result]:
    """Run ``certs`` in ``jobs`` worker processes (default: every core), showing on a terminal's
    stderr the finished checks and the ones running (elsewhere, a plain line every 10 s)."""
    err = Console(stderr=True)
    running: list[str] = []
    shared: list[str] = []  # the shared computations a parallel run does before its first check
    # No auto-refresh thread: workers are forked while the display is live, and a fork must not
    # copy a lock held by a thread writing to the terminal. The display updates at every event.
    with Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=err,
        transient=True,
        auto_refresh=False,
        disable=not err.is_terminal,
    ) as progress:
        total = len(certs) * (2 if negative_controls else 1)
        bar = progress.add_task("", total=total)

        room = max(20, err.width - 50)  # the label, bar, count and clock take about 50 columns
        start = last_line = time.monotonic()

        def show() -> None:
            nonlocal last_line
            shown = f"running: {', '.join(shared + running)}" if shared or running else ""
            progress.update(bar, description=shown if len(shown) <= room else shown[: room - 1] + "…")
            progress.refresh()
            # Not a terminal (a CI log, a pipe): a plain line every PLAIN_PROGRESS_S, so a long run is never silent
            now = time.monotonic()
            if not err.is_terminal and now - last_line >= PLAIN_PROGRESS_S:
                last_line = now
                done = int(progress.tasks[0].completed)
                err.print(Text(f"{label}: {done}/{total} checks done after {now - start:.0f} s; {shown[:200]}"), soft_wrap=True)

        def started(task: Task) -> None:
            shared.clear()
            running.append(task.label)
            show()

        def preparing(ids: list[str]) -> None:
            shared.append(f"the computations shared by {', '.join(ids)}")
            show()

        def finished(task: Task, outcome: Outcome) -> None:
            running.remove(task.label)
            progress.advance(bar)
            show()

        return run_all(
            certs,
            ctx,
            negative_controls=negative_controls,
            jobs=default_jobs() if jobs is None else jobs,
            timeout=timeout,
            on_start=started,
            on_finish=finished,
            on_prepare=preparing,
        )


def run(args: argparse.Namespace, console: Console) -> int:
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
    start = time.perf_counter()
    results = run_with_progress(certs, ctx, negative_controls=args.negative_controls, jobs=args.jobs, timeout=args.timeout)
    elapsed = time.perf_counter() - start
    oos = out_of_scope(args.paper)
    console.print(_results_table(results, args.negative_controls))
    summary = summarise(results, oos)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(summary.counts.items()))
    console.print(f"[bold]{len(results)} certificates[/] in {elapsed:.1f}s: {counts}")
    if summary.scopes:
        console.print("exact verdicts by scope: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.scopes.items())))
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
