"""`attncert claims`: the claims ledger, every catalogued claim with its status."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table
from rich.text import Text

from attncert.certificates.engine.ledger import LedgerEntry, ledger
from attncert.certificates.frontends.common import EXIT_OK, UsageError


def _status_text(entry: LedgerEntry) -> Text:
    if entry.reason is not None:
        return Text(f"OUT_OF_SCOPE: {entry.reason}", style="dim")
    if not entry.certificates:
        return Text("not yet certified", style="yellow")
    return Text(", ".join(f"{c.id} ({c.expected.value})" for c in entry.certificates))


def run(args: argparse.Namespace, console: Console) -> int:
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
