"""Issue 10 §4: every PROVED of the real registry is exact evidence with a scope that may prove.

The runner turns a PROVED without scope, at an instance or without an exact expression or
interval into ERROR; this walks the checks' own evidence (before that guard), so a certificate
that relies on the guard to hide such a verdict fails here, by name.
"""

import pytest
from conftest import certificate_param, evidence_of

from attncert.certificates.engine.model import PASSING_VERDICTS_BY_METHOD, PROVING_SCOPES, Verdict
from attncert.certificates.engine.registry import all_certificates

CERTS = all_certificates()
PROVING = [c for c in CERTS if Verdict.PROVED in PASSING_VERDICTS_BY_METHOD[c.method]]


def test_only_exact_methods_expect_proved():
    wrong = [c.id for c in CERTS if c.expected is Verdict.PROVED and c not in PROVING]
    assert not wrong, f"certificates whose method cannot prove yet expect PROVED: {wrong}"


@pytest.mark.parametrize("cert", [certificate_param(c) for c in PROVING])
def test_every_proved_states_a_proving_scope_and_exact_evidence(cert, ctx):
    evidence = evidence_of(cert, ctx)
    if evidence.verdict is Verdict.PROVED:
        assert evidence.scope in PROVING_SCOPES, f"{cert.id}: PROVED with scope {evidence.scope}"
        assert evidence.expression is not None or evidence.interval is not None, f"{cert.id}: PROVED without exact evidence"


def test_reports_show_the_scope_and_assumptions_of_exact_verdicts():
    from rich.console import Console

    from attncert.certificates.engine.model import Certificate, Claim, Context, Evidence, Method, Mutant, Provenance, Scope
    from attncert.certificates.engine.runner import run_all
    from attncert.certificates.frontends.verify import _results_table
    from attncert.certificates.frontends.verify_output import report_markdown

    def check(ctx, *, scope):
        verdict = Verdict.VERIFIED if scope is Scope.INSTANCE else Verdict.PROVED
        return Evidence(verdict, "exact", expression="0", scope=scope, assumptions=("theta_j distinct in (0, pi)",))

    certs = [
        Certificate(
            id=f"psa.scope_{scope.name.lower()}",
            claim=Claim("psa", "t", "t", Provenance.DERIVED),
            method=Method.SYMBOLIC,
            expected=Verdict.PROVED,
            check=check,
            params={"scope": scope},
            mutant=Mutant("none", {}),
        )
        for scope in Scope
    ]
    results = run_all(certs, Context())
    markdown = report_markdown(results, Context(), [])
    assert "| PROVED | general (assuming theta_j distinct in (0, pi)) |" in markdown
    assert "| PROVED | stated range (assuming" in markdown
    assert "VERIFIED (unexpected) | instance (assuming" in markdown
    console = Console(width=250, record=True)
    console.print(_results_table(results, negative_controls=False))
    text = console.export_text()
    assert all(label in text for label in ("general", "stated range", "instance"))
