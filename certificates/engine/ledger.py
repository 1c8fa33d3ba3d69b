"""The claims ledger: every catalogued claim of a paper, its parts, and what covers each part.

A catalogue entry (``certificates/catalog/<paper>.toml``) may list ``parts = ["(i)", "(ii)"]``
(or named sub-statements). A certificate names, in its claim's ``ledger`` keys, either the whole
entry (``"Prop 8"``: every part) or one part (``"Prop 8 (ii)"``). A claim is certified only when
every part is covered; an entry with a ``reason`` is out of scope.

What a certificate *established* is known only once it has run: the ledger then shows, per
part, whether it was proved in general, proved on the stated range, checked at instances,
verified numerically, reproduced or refuted (the verdict with the scope of its evidence).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from attncert.certificates.engine.model import Certificate, Scope, Verdict
from attncert.certificates.engine.registry import PAPERS, all_certificates

# What a run established, strongest first (the ledger keeps the best per part, the weakest per claim).
STANDINGS: tuple[str, ...] = (
    "proved in general",
    "proved on the stated range",
    "checked at instances",
    "verified numerically",
    "reproduced",
    "refuted",
    "mismatch",
    "not run",
    "error",
)


@dataclass(frozen=True)
class Coverer:
    """A certificate as the ledger sees it: the keys it names, the verdict it expects and, once
    run, the verdict it reached and the scope of that evidence."""

    id: str
    paper: str
    keys: tuple[str, ...]
    expected: Verdict
    verdict: Verdict | None = None
    scope: Scope | None = None

    @property
    def standing(self) -> str:
        if self.verdict is None:
            return "not run"
        if self.verdict is Verdict.PROVED:
            return "proved in general" if self.scope is Scope.GENERAL else "proved on the stated range"
        if self.verdict is Verdict.VERIFIED:
            return "checked at instances" if self.scope is Scope.INSTANCE else "verified numerically"
        return {
            Verdict.REPRODUCED: "reproduced",
            Verdict.REFUTED: "refuted",
            Verdict.MISMATCH: "mismatch",
        }.get(self.verdict, "error")

    @property
    def as_expected(self) -> bool | None:
        return None if self.verdict is None else self.verdict is self.expected


def coverers(certs: Iterable[Certificate], results: Mapping[str, tuple[Verdict, Scope | None]] | None = None) -> list[Coverer]:
    """The ledger's view of registered certificates, with the verdict and scope of each one in
    ``results`` (certificate id -> (verdict, scope)) when a run is at hand."""
    found: list[Coverer] = []
    for c in certs:
        verdict, scope = (results or {}).get(c.id, (None, None))
        found.append(Coverer(c.id, c.paper, c.claim.ledger, c.expected, verdict, scope))
    return found


def coverers_from_report(report: Mapping[str, Any]) -> list[Coverer]:
    """The ledger's view of the certificates of a saved verify report (schema 2): no import of
    any certificate module, so a report renders in well under a second."""
    return [
        Coverer(
            id=r["id"],
            paper=r["paper"],
            keys=tuple(r["claim"]["ledger"]),
            expected=Verdict(r["expected"]),
            verdict=Verdict(r["verdict"]),
            scope=Scope(r["scope"]) if r.get("scope") else None,
        )
        for r in report["results"]
    ]


def _best(covering: tuple[Coverer, ...]) -> str | None:
    return min((c.standing for c in covering), key=STANDINGS.index, default=None)


@dataclass(frozen=True)
class LedgerEntry:
    paper: str
    key: str
    klass: str
    statement: str
    reason: str | None  # set for out-of-scope claims
    parts: tuple[str, ...]  # empty: the claim is one statement
    whole: tuple[Coverer, ...]  # certificates naming the entry itself (they cover every part)
    by_part: Mapping[str, tuple[Coverer, ...]]  # certificates naming one part

    def covering(self, part: str | None) -> tuple[Coverer, ...]:
        """The certificates covering ``part`` (``None``: the claim as one statement)."""
        return self.whole if part is None else self.whole + self.by_part.get(part, ())

    @property
    def rows(self) -> tuple[str | None, ...]:
        """What must be covered: each part, or the claim itself when it has none."""
        return self.parts or (None,)

    @property
    def certificates(self) -> tuple[Coverer, ...]:
        seen: dict[str, Coverer] = {c.id: c for c in self.whole}
        for part in self.parts:
            seen.update((c.id, c) for c in self.by_part.get(part, ()))
        return tuple(seen.values())

    @property
    def uncovered(self) -> tuple[str | None, ...]:
        return tuple(p for p in self.rows if not self.covering(p))

    @property
    def status(self) -> str:
        if self.reason is not None:
            return "OUT_OF_SCOPE"
        if not self.uncovered:
            return "certified"
        return "partly certified" if len(self.uncovered) < len(self.rows) else "not yet certified"

    def standing(self, part: str | None) -> str | None:
        """What the run established for ``part``: the best standing of its certificates."""
        return _best(self.covering(part))

    @property
    def claim_standing(self) -> str | None:
        """The weakest of the parts' standings (None while a part is uncovered or out of scope)."""
        if self.status != "certified":
            return None
        return max((self.standing(p) or "not run" for p in self.rows), key=STANDINGS.index)


def catalogued_papers() -> list[str]:
    folder = resources.files("attncert.certificates") / "catalog"
    return [p for p in PAPERS if (folder / f"{p}.toml").is_file()]


def load_catalogue(paper: str) -> list[dict]:
    text = (resources.files("attncert.certificates") / "catalog" / f"{paper}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["claim"]


def ledger_keys(paper: str) -> dict[str, tuple[str, str | None]]:
    """Every key a certificate of ``paper`` may name: the entry keys (part ``None``) and
    ``"<key> <part>"`` for each part, mapped to (entry key, part)."""
    keys: dict[str, tuple[str, str | None]] = {}
    for item in load_catalogue(paper):
        keys[item["key"]] = (item["key"], None)
        for part in item.get("parts", ()):
            keys[f"{item['key']} {part}"] = (item["key"], part)
    return keys


def ledger(paper: str | None = None, covered_by: Iterable[Coverer] | None = None) -> list[LedgerEntry]:
    """The catalogue of ``paper`` (every catalogued paper by default) with what covers each part:
    ``covered_by`` (default: every registered certificate, not run)."""
    papers = catalogued_papers()
    chosen = ([paper] if paper in papers else []) if paper else papers
    pool = list(covered_by) if covered_by is not None else coverers(all_certificates(chosen))
    entries = []
    for p in chosen:
        keys = ledger_keys(p)
        whole: dict[str, list[Coverer]] = {}
        parts: dict[tuple[str, str], list[Coverer]] = {}
        for c in pool:
            if c.paper != p:
                continue
            for named in c.keys:
                key, part = keys.get(named, (None, None))
                if key is None:
                    continue  # an uncatalogued key (tests/test_ledger.py forbids them)
                if part is None:
                    whole.setdefault(key, []).append(c)
                else:
                    parts.setdefault((key, part), []).append(c)
        for item in load_catalogue(p):
            key, item_parts = item["key"], tuple(item.get("parts", ()))
            entries.append(
                LedgerEntry(
                    paper=p,
                    key=key,
                    klass=item["class"],
                    statement=item["statement"],
                    reason=item.get("reason"),
                    parts=item_parts,
                    whole=tuple(whole.get(key, ())),
                    by_part={part: tuple(parts.get((key, part), ())) for part in item_parts},
                )
            )
    return entries


def out_of_scope(paper: str | None = None) -> list[LedgerEntry]:
    """The out-of-scope entries (read from the catalogue alone)."""
    return [e for e in ledger(paper, covered_by=()) if e.reason is not None]
