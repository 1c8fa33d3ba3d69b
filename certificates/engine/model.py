"""The certificate model: claims, certificates, evidence and verdicts.

A *claim* is what a paper says. A *certificate* is a check of that claim with a stated
method and the verdict it is expected to reach. Running a certificate produces *evidence*.

Every certificate carries a *negative control*: the same check run on a mutated claim
(a wrong constant, a flipped sign, a perturbed operator). The mutant must not reach the
expected verdict; if it does, the check cannot fail and is worthless.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class Verdict(enum.StrEnum):
    PROVED = "PROVED"  # exact symbolic identity, exact rationals or a rigorous interval enclosure
    VERIFIED = "VERIFIED"  # numeric check within a stated tolerance
    REPRODUCED = "REPRODUCED"  # a printed number regenerated under a stated rounding rule
    REFUTED = "REFUTED"  # a counterexample or contradicting exact computation
    MISMATCH = "MISMATCH"  # a printed number not regenerated
    OUT_OF_SCOPE = "OUT_OF_SCOPE"  # needs a checkpoint, training or unavailable data
    ERROR = "ERROR"  # the check itself crashed; never a pass


class Provenance(enum.StrEnum):
    VERBATIM = "verbatim"  # stated in the paper text
    DERIVED = "derived"  # reconstructed and pinned down by printed numbers
    RECONSTRUCTED = "reconstructed"  # plausible, unconfirmed: a configurable assumption


class Method(enum.StrEnum):
    SYMBOLIC = "symbolic"
    INTERVAL = "interval"
    NUMERIC = "numeric"
    MONTE_CARLO = "monte-carlo"
    SOLVER = "solver"
    TABLE = "table"


class Scope(enum.StrEnum):
    """How much of the claim an exact check covers (only the first two may be PROVED).

    - ``general``: symbolic in every parameter the claim quantifies over (n, d_k, d, k, angles...);
    - ``stated-range``: the claim is about a finite family and every member is covered;
    - ``instance``: an example standing for a general claim: at best VERIFIED, shown as such.
    """

    GENERAL = "general"
    STATED_RANGE = "stated-range"
    INSTANCE = "instance"


#: Scopes under which an exact check may reach PROVED.
PROVING_SCOPES = frozenset({Scope.GENERAL, Scope.STATED_RANGE})


class Tier(enum.StrEnum):
    QUICK = "quick"
    FULL = "full"


# Verdicts a method may legitimately produce when the claim holds. PROVED from a float
# comparison is a defect, so the runner refuses it (turns it into ERROR). An exact method checked
# at an instance reaches VERIFIED; a table of printed numbers is REPRODUCED, never PROVED.
PASSING_VERDICTS_BY_METHOD: dict[Method, frozenset[Verdict]] = {
    Method.SYMBOLIC: frozenset({Verdict.PROVED, Verdict.VERIFIED}),
    Method.INTERVAL: frozenset({Verdict.PROVED, Verdict.VERIFIED}),
    Method.NUMERIC: frozenset({Verdict.VERIFIED}),
    Method.MONTE_CARLO: frozenset({Verdict.VERIFIED, Verdict.REPRODUCED}),
    Method.SOLVER: frozenset({Verdict.VERIFIED}),
    Method.TABLE: frozenset({Verdict.REPRODUCED, Verdict.VERIFIED}),
}


@dataclass(frozen=True)
class Claim:
    """A statement of a paper, as catalogued in ``../shared/spec``.

    ``label`` is the paper's own name for it ("Prop 36 (iii)"); ``ledger`` lists the keys of
    the claims catalogue (``certificates/catalog/<paper>.toml``) the certificate covers.
    """

    paper: str
    label: str
    statement: str
    provenance: Provenance
    latex: str = ""
    ledger: tuple[str, ...] = ()


@dataclass(frozen=True)
class CrossCheck:
    """A cheap numeric confirmation of an exact result on random instances."""

    description: str
    instances: int
    max_abs_error: float
    tolerance: float
    backend: str

    @property
    def passed(self) -> bool:
        return self.max_abs_error <= self.tolerance


@dataclass(frozen=True)
class Evidence:
    """What a check found. Only ``verdict`` and ``summary`` are always present."""

    verdict: Verdict
    summary: str
    measured: Any = None
    reference: Any = None
    tolerance: float | None = None
    rounding: str | None = None
    residual: Any = None
    interval: tuple[str, str] | None = None
    expression: str | None = None  # the SymPy expression that reduced to zero (or did not)
    cross_check: CrossCheck | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    # Exact (symbolic or interval) evidence states how much of the claim it covers, and what it assumed.
    scope: Scope | None = None
    assumptions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Context:
    """Run-time settings handed to every check."""

    seed: int = 20260926
    backend: str = "numpy"


Check = Callable[..., Evidence]


@dataclass(frozen=True)
class Mutant:
    """A mutated claim: keyword overrides for the check's parameters."""

    description: str
    overrides: Mapping[str, Any]


@dataclass(frozen=True)
class Certificate:
    id: str
    claim: Claim
    method: Method
    expected: Verdict
    check: Check
    params: Mapping[str, Any]
    mutant: Mutant
    tier: Tier = Tier.QUICK
    tags: tuple[str, ...] = ()
    #: an expensive, cached computation the check shares with others (a Monte Carlo sweep),
    #: called as ``prepare(ctx, **params)`` with the check's own arguments. A parallel run calls
    #: it in the parent before the workers fork, so they inherit the cached result instead of
    #: each computing it; the check's result cannot depend on whether it was called.
    prepare: Check | None = None

    @property
    def paper(self) -> str:
        return self.claim.paper

    def arguments(self, *, mutated: bool = False) -> dict[str, Any]:
        """The check's keyword arguments (the mutant's when ``mutated``)."""
        kwargs = dict(self.params)
        if mutated:
            kwargs.update(self.mutant.overrides)
        return kwargs

    def run(self, ctx: Context, *, mutated: bool = False) -> Evidence:
        """Run the check (on the mutant when ``mutated``); exceptions propagate to the runner."""
        return self.check(ctx, **self.arguments(mutated=mutated))
