"""The certificate registry: one place where every certificate is declared and selected."""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from attncert.certificates.engine.model import Certificate, Check, Claim, Method, Mutant, Tier, Verdict

PAPERS: tuple[str, ...] = ("plga", "gllm", "psa")
# Modules that declare certificates, per paper, imported on first use of that paper.
_CERTIFICATE_MODULES: dict[str, tuple[str, ...]] = {
    "plga": ("algebra", "rope", "head", "bounds"),
    "gllm": ("gain", "selection", "architecture", "training"),
    "psa": ("law", "symplectic", "filters", "deployment", "printed", "tables", "errata", "phase", "induction"),
}

_REGISTRY: dict[str, Certificate] = {}


def certificate(
    id: str,
    *,
    claim: Claim,
    method: Method,
    expected: Verdict,
    mutant: Mutant,
    params: Mapping[str, Any] | None = None,
    tier: Tier = Tier.QUICK,
    tags: Iterable[str] = (),
    prepare: Check | None = None,
) -> Callable[[Check], Check]:
    """Declare ``check`` as the certificate ``id``; ``params`` are its keyword arguments;
    ``prepare`` warms a cache the check shares with others (see ``Certificate.prepare``)."""

    def register(check: Check) -> Check:
        if id in _REGISTRY:
            raise ValueError(f"duplicate certificate id {id!r}")
        if not id.startswith(f"{claim.paper}."):
            raise ValueError(f"certificate id {id!r} must start with its paper {claim.paper!r}")
        unknown = set(mutant.overrides) - set(params or {})
        if unknown:
            raise ValueError(f"{id}: the mutant overrides unknown parameters {sorted(unknown)}")
        _REGISTRY[id] = Certificate(
            id=id,
            claim=claim,
            method=method,
            expected=expected,
            check=check,
            params=dict(params or {}),
            mutant=mutant,
            tier=tier,
            tags=tuple(tags),
            prepare=prepare,
        )
        return check

    return register


def load(papers: Iterable[str] = PAPERS) -> None:
    """Import the certificate modules of ``papers`` (each once), which registers their certificates."""
    for paper in papers:
        for module in _CERTIFICATE_MODULES[paper]:
            importlib.import_module(f"attncert.certificates.{paper}.{module}")


def all_certificates(papers: Iterable[str] = PAPERS) -> list[Certificate]:
    """The registered certificates of ``papers``, ordered by paper then id."""
    papers = tuple(papers)
    load(papers)
    return sorted((c for c in _REGISTRY.values() if c.paper in papers), key=lambda c: (PAPERS.index(c.paper), c.id))


def select(
    *,
    paper: str | None = None,
    pattern: str | None = None,
    tag: str | None = None,
    tier: Tier = Tier.FULL,
) -> list[Certificate]:
    """Certificates of ``paper`` whose id matches ``pattern``: globs or plain substrings,
    several separated by commas (any may match).

    ``tier=QUICK`` keeps the quick tier only; ``tier=FULL`` keeps everything.
    """
    chosen = all_certificates(PAPERS if paper is None else (paper,))
    if pattern:
        parts = [p.strip() for p in pattern.split(",") if p.strip()]
        globs = [p if any(ch in p for ch in "*?[") else f"*{p}*" for p in parts]
        chosen = [c for c in chosen if any(fnmatch.fnmatch(c.id, glob) for glob in globs)]
    if tag:
        chosen = [c for c in chosen if tag in c.tags]
    if tier is Tier.QUICK:
        chosen = [c for c in chosen if c.tier is Tier.QUICK]
    return chosen
