"""Run certificates and their negative controls; never let a crashing check crash the run."""

from __future__ import annotations

import os
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


def guard(cert: Certificate, evidence: Evidence) -> Evidence:
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


def execute(cert: Certificate, ctx: Context, *, mutated: bool) -> Outcome:
    """Run one check (the certificate, or its mutant when ``mutated``) under the guard; a crash
    inside the check becomes ERROR evidence naming the exception and where it was raised."""
    start = time.perf_counter()
    try:
        evidence = guard(cert, cert.run(ctx, mutated=mutated))
    except Exception as exc:  # a crash inside a check is reported, never raised
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else "?"
        evidence = Evidence(
            verdict=Verdict.ERROR,
            summary=f"{type(exc).__name__}: {exc} (at {where})",
            details={"traceback": traceback.format_exception(exc)[-6:]},
        )
    return Outcome(evidence=evidence, duration_s=time.perf_counter() - start)


@dataclass(frozen=True)
class Task:
    """One check of a run: a certificate, or its negative control when ``mutated``."""

    certificate: Certificate
    mutated: bool

    @property
    def label(self) -> str:
        return f"{self.certificate.id} (mutant)" if self.mutated else self.certificate.id


#: Default per-check time limit in worker processes, in seconds (generous: the slowest full-tier
#: check takes about 30 s on a 2-core machine).
DEFAULT_TIMEOUT_S = 300.0


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def run_one(cert: Certificate, ctx: Context, *, negative_control: bool = False) -> Result:
    outcome = execute(cert, ctx, mutated=False)
    mutant = execute(cert, ctx, mutated=True) if negative_control else None
    return Result(certificate=cert, outcome=outcome, negative_control=mutant)


def run_all(
    certs: Iterable[Certificate],
    ctx: Context,
    *,
    negative_controls: bool = False,
    jobs: int = 1,
    timeout: float = DEFAULT_TIMEOUT_S,
    on_start: Callable[[Task], None] | None = None,
    on_finish: Callable[[Task, Outcome], None] | None = None,
    on_prepare: Callable[[list[str]], None] | None = None,
) -> list[Result]:
    """Run ``certs`` (and their mutants) and return their results in the order given.

    ``jobs == 1`` runs every check here, one after the other (no time limit). ``jobs > 1`` runs
    them in that many worker processes (:mod:`attncert.certificates.engine.pool`): the results are
    the same, a check that crashes its worker or runs past ``timeout`` seconds is reported as
    ERROR for that check alone; computations several checks share (``Certificate.prepare``) are
    done first, once, in this process. ``on_start``/``on_finish`` follow each check and
    ``on_prepare`` the shared computations (for progress displays).
    """
    certs = list(certs)
    tasks = [Task(c, mutated) for c in certs for mutated in ((False, True) if negative_controls else (False,))]
    if jobs > 1:
        from attncert.certificates.engine.pool import run_tasks

        outcomes = run_tasks(
            tasks, ctx, jobs=jobs, timeout=timeout, on_start=on_start, on_finish=on_finish, on_prepare=on_prepare
        )
    else:
        outcomes = []
        for task in tasks:
            if on_start is not None:
                on_start(task)
            outcome = execute(task.certificate, ctx, mutated=task.mutated)
            outcomes.append(outcome)
            if on_finish is not None:
                on_finish(task, outcome)
    by_task = dict(zip(((t.certificate.id, t.mutated) for t in tasks), outcomes, strict=True))
    return [
        Result(
            certificate=c,
            outcome=by_task[(c.id, False)],
            negative_control=by_task[(c.id, True)] if negative_controls else None,
        )
        for c in certs
    ]
