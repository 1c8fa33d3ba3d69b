"""Run certificates and their negative controls; never let a crashing check crash the run."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from attncert.certificates.engine.model import (
    PASSING_VERDICTS_BY_METHOD,
    PROVING_SCOPES,
    Certificate,
    Context,
    Evidence,
    Verdict,
)

_PASS_KINDS = frozenset({Verdict.PROVED, Verdict.VERIFIED, Verdict.REPRODUCED})


@dataclass(frozen=True)
class Outcome:
    evidence: Evidence
    duration_s: float


@dataclass(frozen=True)
class Result:
    certificate: Certificate
    outcome: Outcome
    negative_control: Outcome | None = None

    @property
    def verdict(self) -> Verdict:
        return self.outcome.evidence.verdict

    @property
    def as_expected(self) -> bool:
        return self.verdict is self.certificate.expected

    @property
    def mutant_killed(self) -> bool | None:
        """True when the mutant failed to reach the expected verdict (without crashing)."""
        if self.negative_control is None:
            return None
        mutant_verdict = self.negative_control.evidence.verdict
        return mutant_verdict is not self.certificate.expected and mutant_verdict is not Verdict.ERROR

    @property
    def ok(self) -> bool:
        return self.as_expected and self.mutant_killed is not False


def _guard(cert: Certificate, evidence: Evidence) -> Evidence:
    """Enforce the discipline: no PROVED from floats or tables, no PROVED at an instance or without
    exact evidence (an expression or an interval), no PROVED against its own cross-check."""
    verdict = evidence.verdict
    if verdict in _PASS_KINDS and verdict not in PASSING_VERDICTS_BY_METHOD[cert.method]:
        return replace(
            evidence,
            verdict=Verdict.ERROR,
            summary=f"method {cert.method} cannot yield {verdict}: {evidence.summary}",
        )
    if verdict is Verdict.PROVED and evidence.scope not in PROVING_SCOPES:
        return replace(
            evidence,
            verdict=Verdict.ERROR,
            summary=f"PROVED needs scope general or stated-range, not {evidence.scope}: {evidence.summary}",
        )
    if verdict is Verdict.PROVED and evidence.expression is None and evidence.interval is None:
        return replace(
            evidence,
            verdict=Verdict.ERROR,
            summary=f"PROVED without an exact expression or interval in its evidence: {evidence.summary}",
        )
    cc = evidence.cross_check
    if verdict is Verdict.PROVED and cc is not None and not cc.passed:
        return replace(
            evidence,
            verdict=Verdict.ERROR,
            summary=(
                f"exact result contradicted by its numeric cross-check "
                f"({cc.max_abs_error:.3g} > {cc.tolerance:.3g}): {evidence.summary}"
            ),
        )
    return evidence


def _execute(cert: Certificate, ctx: Context, *, mutated: bool) -> Outcome:
    start = time.perf_counter()
    try:
        evidence = _guard(cert, cert.run(ctx, mutated=mutated))
    except Exception as exc:  # a crash inside a check is reported, never raised
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else "?"
        evidence = Evidence(
            verdict=Verdict.ERROR,
            summary=f"{type(exc).__name__}: {exc} (at {where})",
            details={"traceback": traceback.format_exception(exc)[-6:]},
        )
    return Outcome(evidence=evidence, duration_s=time.perf_counter() - start)


def run_one(cert: Certificate, ctx: Context, *, negative_control: bool = False) -> Result:
    outcome = _execute(cert, ctx, mutated=False)
    mutant = _execute(cert, ctx, mutated=True) if negative_control else None
    return Result(certificate=cert, outcome=outcome, negative_control=mutant)


def run_all(
    certs: Iterable[Certificate],
    ctx: Context,
    *,
    negative_controls: bool = False,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    results = []
    for cert in certs:
        result = run_one(cert, ctx, negative_control=negative_controls)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
