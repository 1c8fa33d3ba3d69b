"""Reports of a verify run: a terminal table, a schema-versioned JSON file and Markdown."""

from __future__ import annotations

import dataclasses
import json
import math
import platform
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from attncert.certificates.engine.ledger import Coverer, LedgerEntry
from attncert.certificates.engine.model import Context, Evidence, Method, Scope, Tier, Verdict
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


#: the shape of a saved report, as far as ``claims --from`` and ``report --from`` read it: a dict
#: maps keys to shapes (a key ending in "?" may be absent), a one-item list is a list of that
#: shape, a tuple of strings is a choice (``None`` in it: may be null), a type is a JSON scalar
_CLAIM_SHAPE = {"label": str, "statement": str, "provenance": str, "ledger": [str]}
_RESULT_SHAPE = {
    "id": str,
    "paper": ("plga", "gllm", "psa"),
    "claim": _CLAIM_SHAPE,
    "method": tuple(m.value for m in Method),
    "tier": tuple(t.value for t in Tier),
    "mutant": str,
    "expected": tuple(v.value for v in Verdict),
    "verdict": tuple(v.value for v in Verdict),
    "as_expected": bool,
    "scope": (None, *(s.value for s in Scope)),
    "assumptions": [str],
    "evidence": {"summary": str, "duration_s": float},
    "negative_control?": {"killed": bool, "evidence": {"summary": str, "duration_s": float}},
}
_REPORT_SHAPE = {
    "schema": str,
    "created?": str,
    "environment": {"seed": int, "backend": str},
    "selection": {"tier?": (None, "quick", "full"), "negative_controls?": bool},
    "summary": {"negative_controls": {"run": int, "killed": int}},
    "results": [_RESULT_SHAPE],
    "out_of_scope?": [{"paper": ("plga", "gllm", "psa"), "claim": str, "statement": str, "reason": str}],
}
MAX_REPORT_BYTES = 256 * 2**20


def _misfit(value: Any, shape: Any, where: str) -> str | None:
    """Where and how ``value`` departs from ``shape`` (None: it fits)."""
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return f"{where or 'the document'} is not an object"
        for key, inner in shape.items():
            name = key.rstrip("?")
            if name not in value:
                if key.endswith("?"):
                    continue
                return f"{where}.{name} is missing" if where else f"{name} is missing"
            problem = _misfit(value[name], inner, f"{where}.{name}" if where else name)
            if problem:
                return problem
        return None
    if isinstance(shape, list):
        if not isinstance(value, list):
            return f"{where} is not a list"
        return next((p for i, item in enumerate(value) if (p := _misfit(item, shape[0], f"{where}[{i}]"))), None)
    if isinstance(shape, tuple):
        return None if value in shape and (value is None or isinstance(value, str)) else f"{where} is not one of {shape}"
    if shape is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        return None if ok else f"{where} is not a finite number"
    if shape is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else f"{where} is not an integer"
    return None if isinstance(value, shape) else f"{where} is not a {shape.__name__}"


def load_report(path: Path) -> dict[str, Any]:
    """A saved verify report (``attncert verify --json``), checked to be of this schema and shape
    before anything reads it (a hand-edited or truncated file gets one line, exit 2)."""
    again = "write it again with 'attncert verify --json'"
    try:
        if path.exists() and not path.is_file():  # a folder, or a FIFO that would block the read
            raise UsageError(f"{path}: not a regular file")
        if path.stat().st_size > MAX_REPORT_BYTES:
            raise UsageError(f"{path}: larger than {MAX_REPORT_BYTES >> 20} MB; not a verify report")
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: not a verify report: {exc}") from None
    except (RecursionError, ValueError):  # nested too deep, or an integer of thousands of digits
        raise UsageError(f"{path}: not a verify report: nested too deeply or a number too long") from None
    schema = report.get("schema") if isinstance(report, dict) else None
    if schema != SCHEMA:
        raise UsageError(f"{path}: schema {_shown(schema)} is not {SCHEMA!r}; {again}")
    problem = _misfit(report, _REPORT_SHAPE, "")
    ids = [r["id"] for r in report["results"]] if problem is None else []
    if problem is None and len(set(ids)) < len(ids):
        problem = f"certificate {_shown(next(i for i in ids if ids.count(i) > 1))} is recorded twice"
    if problem:
        raise UsageError(f"{path}: not a verify report: {problem}; {again}")
    return report


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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
