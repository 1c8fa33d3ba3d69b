"""Certificates of the PSA paper (spec: ../shared/spec/psa.md), one module per theme."""

from __future__ import annotations

from attncert.certificates.engine.model import Claim, Provenance


def claim(label: str, statement: str, provenance: Provenance, *ledger: str, latex: str = "") -> Claim:
    """A PSA claim; ``ledger`` names the catalogue keys it covers (default: the label)."""
    return Claim(
        paper="psa",
        label=label,
        statement=statement,
        provenance=provenance,
        latex=latex,
        ledger=ledger or (label,),
    )
