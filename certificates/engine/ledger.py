"""The claims ledger: every catalogued claim of a paper with its status."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

from attncert.certificates.engine.model import Certificate
from attncert.certificates.engine.registry import PAPERS, all_certificates


@dataclass(frozen=True)
class LedgerEntry:
    paper: str
    key: str
    klass: str
    statement: str
    reason: str | None  # set for out-of-scope claims
    certificates: tuple[Certificate, ...]

    @property
    def status(self) -> str:
        if self.reason is not None:
            return "OUT_OF_SCOPE"
        return "certified" if self.certificates else "not yet certified"


def catalogued_papers() -> list[str]:
    folder = resources.files("attncert.certificates") / "catalog"
    return [p for p in PAPERS if (folder / f"{p}.toml").is_file()]


def load_catalogue(paper: str) -> list[dict]:
    text = (resources.files("attncert.certificates") / "catalog" / f"{paper}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["claim"]


def ledger(paper: str | None = None) -> list[LedgerEntry]:
    papers = catalogued_papers()
    chosen = ([paper] if paper in papers else []) if paper else papers
    certs = all_certificates(chosen)
    entries = []
    for p in chosen:
        for item in load_catalogue(p):
            covering = tuple(c for c in certs if c.paper == p and item["key"] in c.claim.ledger)
            entries.append(
                LedgerEntry(
                    paper=p,
                    key=item["key"],
                    klass=item["class"],
                    statement=item["statement"],
                    reason=item.get("reason"),
                    certificates=covering,
                )
            )
    return entries


def out_of_scope(paper: str | None = None) -> list[LedgerEntry]:
    return [e for e in ledger(paper) if e.reason is not None]
