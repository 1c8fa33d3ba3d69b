"""Certificates of the GLLM paper (spec: ../shared/spec/gllm.md), one module per theme."""

from __future__ import annotations

from attncert.certificates.engine.model import Claim, Provenance


def claim(label: str, statement: str, provenance: Provenance, *ledger: str, latex: str = "") -> Claim:
    """A GLLM claim; ``ledger`` names the catalogue keys it covers (default: the label)."""
    return Claim(paper="gllm", label=label, statement=statement, provenance=provenance, latex=latex, ledger=ledger or (label,))
