"""Reports of a verify run: a terminal table, a schema-versioned JSON file and Markdown."""

from __future__ import annotations

import dataclasses
import json
import platform
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from attncert.certificates.engine.ledger import Coverer, LedgerEntry
from attncert.certificates.engine.model import Context, Evidence, Scope, Verdict
from attncert.certificates.engine.runner import Outcome, Result
from attncert.certificates.frontends.common import UsageError, to_jsonable

# /2: every record states the scope and the assumptions of its exact evidence ("general",
# "stated-range", "instance"; null for numeric, Monte Carlo and table evidence).
SCHEMA = "attncert.verify-report/2"
_PACKAGES = ("attncert", "sympy", "mpmath", "numpy", "scipy", "cvxpy", "array-api-compat", "torch", "cupy")


def environment(ctx: Context) -> dict[str, Any]:
    versions = {}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "backend": ctx.backend,
        "seed": ctx.seed,
    }


@dataclasses.dataclass(frozen=True)
class Summary:
    counts: dict[str, int]
    scopes: dict[str, int]  # exact verdicts by scope: "PROVED general", "VERIFIED instance", ...
    unexpected: list[str]
    controls_run: int
    controls_killed: int
    out_of_scope: int

    @property
    def ok(self) -> bool:
        return not self.unexpected and self.controls_killed == self.controls_run


def summarise(results: Iterable[Result], oos: list[LedgerEntry]) -> Summary:
    results = list(results)
    controls = [r for r in results if r.negative_control is not None]
    return Summary(
        counts=dict(Counter(r.verdict.value for r in results)),
        scopes=dict(
            Counter(
                f"{r.verdict.value} {scope_label(r.outcome.evidence)}" for r in results if r.outcome.evidence.scope is not None
            )
        ),
        unexpected=[r.certificate.id for r in results if not r.as_expected],
        controls_run=len(controls),
        controls_killed=sum(1 for r in controls if r.mutant_killed),
        out_of_scope=len(oos),
    )


SCOPE_LABELS = {
    Scope.GENERAL: "general",
    Scope.STATED_RANGE: "stated range",
    Scope.INSTANCE: "instance",
}


def scope_label(evidence: Evidence) -> str:
    """How much of the claim an exact verdict covers ("" for numeric evidence, which has no scope)."""
    return SCOPE_LABELS[evidence.scope] if evidence.scope is not None else ""


def scope_with_assumptions(evidence: Evidence) -> str:
    """The scope, followed by the assumptions the exact check used."""
    label = scope_label(evidence)
    if label and evidence.assumptions:
        return f"{label} (assuming {'; '.join(evidence.assumptions)})"
    return label


def coverer_text(c: Coverer) -> str:
    """A certificate in the ledger: its verdict and scope once run, else the verdict it expects."""
    if c.verdict is None:
        return f"{c.id} (expects {c.expected.value})"
    scope = f", {SCOPE_LABELS[c.scope]}" if c.scope is not None else ""
    unexpected = "" if c.as_expected else f"; expected {c.expected.value}"
    return f"{c.id}: {c.verdict.value}{scope}{unexpected}"


def load_report(path: Path) -> dict[str, Any]:
    """A saved verify report (``attncert verify --json``), checked to be of this schema."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: not a verify report: {exc}") from None
    schema = report.get("schema") if isinstance(report, dict) else None
    if schema != SCHEMA:
        raise UsageError(f"{path}: schema {schema!r} is not {SCHEMA!r}; write it again with 'attncert verify --json'")
    return report


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {"duration_s": round(outcome.duration_s, 6), **to_jsonable(outcome.evidence)}


def result_json(result: Result) -> dict[str, Any]:
    cert = result.certificate
    record: dict[str, Any] = {
        "id": cert.id,
        "paper": cert.paper,
        "claim": to_jsonable(cert.claim),
        "method": cert.method.value,
        "tier": cert.tier.value,
        "tags": list(cert.tags),
        "mutant": cert.mutant.description,
        "expected": cert.expected.value,
        "verdict": result.verdict.value,
        "as_expected": result.as_expected,
        "scope": to_jsonable(result.outcome.evidence.scope),
        "assumptions": list(result.outcome.evidence.assumptions),
        "evidence": _outcome_json(result.outcome),
    }
    if result.negative_control is not None:
        record["negative_control"] = {
            "mutation": cert.mutant.description,
            "killed": result.mutant_killed,
            "evidence": _outcome_json(result.negative_control),
        }
    return record


def report_json(results: list[Result], ctx: Context, oos: list[LedgerEntry], selection: dict[str, Any]) -> dict:
    summary = summarise(results, oos)
    return {
        "schema": SCHEMA,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "environment": environment(ctx),
        "selection": selection,
        "summary": {
            "ok": summary.ok,
            "counts": summary.counts,
            "scopes": summary.scopes,
            "unexpected": summary.unexpected,
            "negative_controls": {"run": summary.controls_run, "killed": summary.controls_killed},
            "out_of_scope_claims": summary.out_of_scope,
        },
        "results": [result_json(r) for r in results],
        "out_of_scope": [{"paper": e.paper, "claim": e.key, "statement": e.statement, "reason": e.reason} for e in oos],
    }


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_markdown(results: list[Result], ctx: Context, oos: list[LedgerEntry]) -> str:
    summary = summarise(results, oos)
    lines = [
        "# attncert verify report",
        "",
        f"seed {ctx.seed}, backend {ctx.backend}; "
        + ", ".join(f"{k} {v}" for k, v in sorted(summary.counts.items()))
        + f"; negative controls killed {summary.controls_killed}/{summary.controls_run}",
        "",
        "| id | claim | method | expected | verdict | scope | evidence | time (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        c, ev = r.certificate, r.outcome.evidence
        lines.append(
            f"| `{c.id}` | {_md_cell(c.claim.label)} | {c.method.value} | {c.expected.value} | "
            f"{r.verdict.value}{'' if r.as_expected else ' (unexpected)'} | "
            f"{_md_cell(scope_with_assumptions(ev))} | {_md_cell(ev.summary)} | {r.outcome.duration_s:.2f} |"
        )
    if oos:
        lines += ["", "## Out of scope (never counted as a pass)", "", "| paper | claim | reason |", "|---|---|---|"]
        lines += [f"| {e.paper} | {_md_cell(e.key)} | {_md_cell(e.reason or '')} |" for e in oos]
    return "\n".join(lines) + "\n"


VERDICT_STYLES = {
    Verdict.PROVED: "bold green",
    Verdict.VERIFIED: "green",
    Verdict.REPRODUCED: "cyan",
    Verdict.REFUTED: "bold red",
    Verdict.MISMATCH: "magenta",
    Verdict.OUT_OF_SCOPE: "dim",
    Verdict.ERROR: "bold white on red",
}
