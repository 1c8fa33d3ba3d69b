"""`attncert report`: a browsable HTML report (certificates, ledger, figures)."""

from __future__ import annotations

import argparse
import importlib.util

from rich.console import Console

from attncert.certificates.engine.ledger import ledger
from attncert.certificates.engine.model import Context, Tier
from attncert.certificates.engine.registry import select
from attncert.certificates.engine.runner import run_all
from attncert.certificates.frontends.common import EXIT_FAIL, EXIT_OK, UsageError
from attncert.certificates.frontends.html_report import write_report as write_html_report
from attncert.certificates.frontends.verify_output import summarise


def run(args: argparse.Namespace, console: Console) -> int:
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
