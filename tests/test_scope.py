"""Issue 10 §4: PROVED only from exact methods, and reports show scopes and assumptions.

That every PROVED of the real registry is exact evidence with a scope that may prove is checked
certificate by certificate in tests/test_certificates.py (with the rest of each check's tests).
"""

from attncert.certificates.engine.model import PASSING_VERDICTS_BY_METHOD, Verdict
from attncert.certificates.engine.registry import all_certificates

CERTS = all_certificates()
PROVING = [c for c in CERTS if Verdict.PROVED in PASSING_VERDICTS_BY_METHOD[c.method]]


def test_only_exact_methods_expect_proved():
    wrong = [c.id for c in CERTS if c.expected is Verdict.PROVED and c not in PROVING]
    assert not wrong, f"certificates whose method cannot prove yet expect PROVED: {wrong}"


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
