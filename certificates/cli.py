"""The ``attncert`` command line (also ``python -m certificates``).

Exit codes: 0 every verdict as expected (and every negative control rejected when asked),
1 otherwise, 2 on usage errors (one message, no traceback, nothing written).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from certificates.ledger import LedgerEntry, ledger, out_of_scope
from certificates.model import Context, Tier
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
    verify.add_argument("--tier", choices=[t.value for t in Tier], default="full", help="quick: the fast tier only")
    verify.add_argument("--json", type=_writable, metavar="PATH", help="write the JSON report here")
    verify.add_argument("--markdown", type=_writable, metavar="PATH", help="write a Markdown report here")
    verify.add_argument("--negative-controls", action="store_true", help="also run every mutant; each must be rejected")
    verify.add_argument("--backend", choices=[*BACKENDS, "auto"], default="numpy", help="array backend (default numpy)")
    verify.add_argument("--seed", type=int, default=Context().seed, help="seed for randomized checks")
    verify.add_argument("--list", action="store_true", help="list the selected certificates and exit")

    claims = sub.add_parser("claims", help="the claims ledger: every catalogued claim and its status")
    claims.add_argument("--paper", choices=PAPERS)
    return parser


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


def main(argv: list[str] | None = None) -> int:
    console = Console(width=None if sys.stdout.isatty() else 200)
    try:
        args = build_parser().parse_args(argv)
        if args.command == "verify":
            return _verify(args, console)
        return _claims(args, console)
    except UsageError as exc:
        Console(stderr=True).print(f"[bold red]attncert: error:[/] {exc}", highlight=False)
        return EXIT_USAGE
