"""Every registered certificate is its own test, and so is its negative control.

``pytest -k symplectic`` selects by certificate id. Full-tier certificates are marked slow.
"""

import pytest

from attncert.certificates.engine.model import Tier, Verdict
from attncert.certificates.engine.registry import all_certificates
from attncert.certificates.engine.runner import run_one

CERTS = all_certificates()


def _param(cert):
    marks = [pytest.mark.slow] if cert.tier is Tier.FULL else []
    return pytest.param(cert, id=cert.id, marks=marks)


@pytest.mark.parametrize("cert", [_param(c) for c in CERTS])
def test_certificate_reaches_expected_verdict(cert, ctx):
    result = run_one(cert, ctx)
    evidence = result.outcome.evidence
    assert evidence.verdict is cert.expected, f"{cert.id}: {evidence.verdict} ({evidence.summary})"
    if evidence.cross_check is not None:
        assert evidence.cross_check.passed, evidence.cross_check


@pytest.mark.parametrize("cert", [_param(c) for c in CERTS])
def test_negative_control_is_rejected(cert, ctx):
    mutant = cert.run(ctx, mutated=True)
    assert mutant.verdict is not cert.expected, f"{cert.id}: mutant '{cert.mutant.description}' survived"
    assert mutant.verdict is not Verdict.ERROR, f"{cert.id}: mutant crashed instead of being rejected: {mutant.summary}"
