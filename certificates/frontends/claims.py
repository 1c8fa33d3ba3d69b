"""`attncert claims`: the claims ledger, every catalogued claim, its parts and what covers them.

Without options each part shows the certificates covering it and the verdict they expect; with
``--run`` (the certificates are run) or ``--from RUN.json`` (a saved ``attncert verify --json``
report) it shows what they established: the verdict and the scope of its evidence, and per part
"proved in general", "proved on the stated range", "checked at instances", "verified
numerically", "reproduced" or "refuted".
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from attncert.certificates.engine.ledger import LedgerEntry, coverers, ledger
from attncert.certificates.engine.model import Context, Scope, Tier, Verdict
from attncert.certificates.engine.registry import all_certificates, select
from attncert.certificates.frontends.common import EXIT_OK, UsageError, dump_json, write_atomically
from attncert.certificates.frontends.verify_output import coverer_text, load_report


def _results(args: argparse.Namespace) -> dict[str, tuple[Verdict, Scope | None]] | None:
    """Verdict and scope per certificate id, from a saved report or a run (None: neither asked)."""
    if args.from_run is not None:
        report = load_report(args.from_run)
        return {r["id"]: (Verdict(r["verdict"]), Scope(r["scope"]) if r["scope"] else None) for r in report["results"]}
    if args.run:
        from attncert.certificates.frontends.verify import run_with_progress

        certs = select(paper=args.paper, tier=Tier.QUICK)
        results = run_with_progress(certs, Context(), negative_controls=False, jobs=args.jobs, timeout=args.timeout)
        return {r.certificate.id: (r.verdict, r.outcome.evidence.scope) for r in results}
    return None


def ledger_json(entries: list[LedgerEntry]) -> list[dict[str, Any]]:
    """The ledger for tooling: per claim its status and, per part, the covering certificates."""
    return [
        {
            "paper": e.paper,
            "claim": e.key,
            "class": e.klass,
            "statement": e.statement,
            "status": e.status,
            "reason": e.reason,
            "standing": e.claim_standing,
            "parts": [
                {
                    "part": part,
                    "standing": e.standing(part),
                    "certificates": [
                        {
                            "id": c.id,
                            "expected": c.expected.value,
                            "verdict": c.verdict.value if c.verdict else None,
                            "scope": c.scope.value if c.scope else None,
                            "standing": c.standing,
                        }
                        for c in e.covering(part)
                    ],
                }
                for part in e.rows
            ],
        }
        for e in entries
    ]


def _part_text(entry: LedgerEntry, part: str | None, ran: bool) -> Text:
    covering = entry.covering(part)
    if not covering:
        return Text("not yet certified", style="yellow")
    text = Text("; ".join(coverer_text(c) for c in covering))
    if ran:
        text.append(f"  => {entry.standing(part)}", style="bold")
    return text


def run(args: argparse.Namespace, console: Console) -> int:
    results = _results(args)
    certs = all_certificates() if args.paper is None else all_certificates((args.paper,))
    entries = ledger(args.paper, covered_by=coverers(certs, results))
    if not entries:
        raise UsageError(f"no claims catalogue for paper {args.paper!r} yet")
    if args.claims_json:
        write_atomically(args.claims_json, dump_json({"claims": ledger_json(entries)}))
    table = Table("paper", "claim", "class", "statement", "part", "certificates", header_style="bold")
    for e in entries:
        if e.reason is not None:
            table.add_row(e.paper, e.key, e.klass, e.statement, "", Text(f"OUT_OF_SCOPE: {e.reason}", style="dim"))
            continue
        for i, part in enumerate(e.rows):
            head = (e.paper, e.key, e.klass, e.statement) if i == 0 else ("", "", "", "")
            table.add_row(*head, part or "", _part_text(e, part, results is not None))
    console.print(table)
    tally = Counter(e.status for e in entries)
    console.print("claims: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    if results is not None:
        standings = Counter(e.claim_standing for e in entries if e.claim_standing is not None)
        console.print("certified claims, by their weakest part: " + ", ".join(f"{k} {v}" for k, v in standings.items()))
    return EXIT_OK
