"""Every registered certificate is its own test, and so is its negative control; every PROVED is
exact evidence with a scope that may prove (issue 10 §4).

The tests are grouped in one class per certificate module (``TestPsaPhase`` holds the
certificates of ``certificates/psa/phase.py``), and pytest-xdist's ``--dist loadscope`` sends a
class to one worker: there each check runs once for all its tests (``conftest.evidence_of``), and
the Monte Carlo sweeps that a module's certificates share are computed once.
``pytest -k symplectic`` selects by certificate id. Full-tier certificates are marked slow.
"""

from itertools import groupby

import pytest
from conftest import certificate_param, evidence_of

from attncert.certificates.engine.model import PASSING_VERDICTS_BY_METHOD, PROVING_SCOPES, Verdict
from attncert.certificates.engine.registry import all_certificates
from attncert.certificates.engine.runner import guard

CERTS = all_certificates()


def _reaches_expected_verdict(self, cert, ctx):
    evidence = guard(cert, evidence_of(cert, ctx))  # what the runner reports
    assert evidence.verdict is cert.expected, f"{cert.id}: {evidence.verdict} ({evidence.summary})"
    if evidence.cross_check is not None:
        assert evidence.cross_check.passed, evidence.cross_check


def _negative_control_is_rejected(self, cert, ctx):
    mutant = evidence_of(cert, ctx, mutated=True)
    assert mutant.verdict is not cert.expected, f"{cert.id}: mutant '{cert.mutant.description}' survived"
    assert mutant.verdict is not Verdict.ERROR, f"{cert.id}: mutant crashed instead of being rejected: {mutant.summary}"


def _proved_states_a_proving_scope(self, cert, ctx):
    """The check's own evidence, before the runner's guard: a certificate that relies on the guard
    to hide a PROVED without scope, at an instance or without an exact expression or interval
    fails here, by name."""
    evidence = evidence_of(cert, ctx)
    if evidence.verdict is Verdict.PROVED:
        assert evidence.scope in PROVING_SCOPES, f"{cert.id}: PROVED with scope {evidence.scope}"
        assert evidence.expression is not None or evidence.interval is not None, f"{cert.id}: PROVED without exact evidence"


def _parametrized(test, certs: list):
    """A new function running ``test`` for each of ``certs`` (marks stick to a function object)."""

    def run(self, cert, ctx):
        test(self, cert, ctx)

    run.__doc__ = test.__doc__
    return pytest.mark.parametrize("cert", [certificate_param(c) for c in certs])(run)


def _test_class(module: str, certs: list) -> type:
    tests = {
        "test_certificate_reaches_expected_verdict": _parametrized(_reaches_expected_verdict, certs),
        "test_negative_control_is_rejected": _parametrized(_negative_control_is_rejected, certs),
    }
    proving = [c for c in certs if Verdict.PROVED in PASSING_VERDICTS_BY_METHOD[c.method]]
    if proving:
        scope_test = _parametrized(_proved_states_a_proving_scope, proving)
        tests["test_every_proved_states_a_proving_scope_and_exact_evidence"] = scope_test
    name = "Test" + "".join(part.capitalize() for part in module.rsplit(".", 2)[-2:])  # ...psa.phase -> TestPsaPhase
    return type(name, (), {"__doc__": f"The certificates of {module}.", **tests})


def _module(cert) -> str:
    return cert.check.__module__


for _name, _certs in groupby(sorted(CERTS, key=_module), key=_module):
    _cls = _test_class(_name, list(_certs))
    globals()[_cls.__name__] = _cls
