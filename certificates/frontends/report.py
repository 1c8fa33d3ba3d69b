"""`attncert report`: a browsable HTML report (certificates, ledger, figures).

``--from RUN.json`` renders a saved ``attncert verify --json`` report without running (or even
importing) any certificate; without it the certificates are run first, in parallel.
"""

from __future__ import annotations

import argparse
import importlib.util

from rich.console import Console

from attncert.certificates.engine.ledger import coverers_from_report, ledger, out_of_scope
from attncert.certificates.frontends.common import EXIT_FAIL, EXIT_OK, UsageError, preflight_folder
from attncert.certificates.frontends.html_report import write_report as write_html_report
from attncert.certificates.frontends.verify_output import load_report

DEFAULT_TIER = "quick"


def _run(args: argparse.Namespace) -> dict:
    """Run the selection and return its verify report."""
    from attncert.certificates.engine.model import Context, Tier
    from attncert.certificates.engine.registry import select
    from attncert.certificates.frontends.cli import DEFAULT_SEED
    from attncert.certificates.frontends.verify import run_with_progress
    from attncert.certificates.frontends.verify_output import report_json

    tier = args.tier or DEFAULT_TIER
    ctx = Context(seed=DEFAULT_SEED if args.seed is None else args.seed, backend="numpy")
    results = run_with_progress(
        select(paper=args.paper, tier=Tier(tier)),
        ctx,
        negative_controls=args.negative_controls,
        jobs=args.jobs,
        timeout=args.timeout,
        label="report",
    )
    selection = {"paper": args.paper, "pattern": None, "tag": None, "tier": tier, "negative_controls": args.negative_controls}
    return report_json(results, ctx, out_of_scope(args.paper), selection)


def run(args: argparse.Namespace, console: Console) -> int:
    preflight_folder(args.out, ("index.html",))
    if not args.no_figures and importlib.util.find_spec("matplotlib") is None:
        raise UsageError("figures need matplotlib: pip install 'attncert[plot]' (or pass --no-figures)")
    if args.from_run is not None:
        options = (("--tier", args.tier), ("--seed", args.seed), ("--jobs", args.jobs))
        given = [name for name, value in options if value is not None]
        if args.negative_controls:
            given.append("--negative-controls")
        if given:
            raise UsageError(f"--from renders a saved run; {', '.join(given)} apply only when the report runs the certificates")
        report = load_report(args.from_run)
        if args.paper:
            report = {**report, "results": [r for r in report["results"] if r["paper"] == args.paper]}
    else:
        report = _run(args)
    entries = ledger(args.paper, covered_by=coverers_from_report(report))
    page = write_html_report(args.out, report, entries, figures=not args.no_figures)
    console.print(f"wrote {page} ({len(report['results'])} certificates)", markup=False, highlight=False)
    results = report["results"]
    ok = all(r["as_expected"] for r in results) and all(
        r["negative_control"]["killed"] for r in results if "negative_control" in r
    )
    return EXIT_OK if ok else EXIT_FAIL
