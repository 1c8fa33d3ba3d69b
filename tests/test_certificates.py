"""Every registered certificate is its own test, and so is its negative control.

``pytest -k symplectic`` selects by certificate id. Full-tier certificates are marked slow.
"""

import pytest
from conftest import certificate_param, evidence_of

from attncert.certificates.engine.model import Verdict
from attncert.certificates.engine.registry import all_certificates
from attncert.certificates.engine.runner import guard

CERTS = all_certificates()


@pytest.mark.parametrize("cert", [certificate_param(c) for c in CERTS])
def test_certificate_reaches_expected_verdict(cert, ctx):
    evidence = guard(cert, evidence_of(cert, ctx))  # what the runner reports
    assert evidence.verdict is cert.expected, f"{cert.id}: {evidence.verdict} ({evidence.summary})"
    if evidence.cross_check is not None:
        assert evidence.cross_check.passed, evidence.cross_check


@pytest.mark.parametrize("cert", [certificate_param(c) for c in CERTS])
def test_negative_control_is_rejected(cert, ctx):
    mutant = evidence_of(cert, ctx, mutated=True)
    assert mutant.verdict is not cert.expected, f"{cert.id}: mutant '{cert.mutant.description}' survived"
    assert mutant.verdict is not Verdict.ERROR, f"{cert.id}: mutant crashed instead of being rejected: {mutant.summary}"
