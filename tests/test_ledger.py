"""The claims catalogue and the certificates agree with each other; the ledger tracks parts."""

import pytest

from attncert.certificates.engine import ledger as ledger_module
from attncert.certificates.engine.ledger import Coverer, catalogued_papers, ledger, ledger_keys, load_catalogue
from attncert.certificates.engine.model import Scope, Verdict
from attncert.certificates.engine.registry import all_certificates


def test_every_ledger_key_named_by_a_certificate_is_catalogued():
    """A certificate names a whole entry ("Prop 8") or one of its parts ("Prop 8 (ii)")."""
    for paper in catalogued_papers():
        keys = ledger_keys(paper)
        for cert in all_certificates((paper,)):
            missing = set(cert.claim.ledger) - set(keys)
            assert not missing, f"{cert.id} names uncatalogued claims or parts {missing}"


def test_out_of_scope_entries_have_reasons_and_no_certificates():
    for entry in ledger():
        assert entry.klass in {"S", "I", "N", "MC", "T", "TR", "M", "D"}, entry.key
        if entry.klass in {"TR", "M", "D"}:
            assert entry.reason, f"{entry.key} is class {entry.klass} without a reason"
        if entry.reason is not None:
            assert not entry.certificates, f"{entry.key} is out of scope yet certified"


def test_catalogue_keys_and_parts_are_unique_and_unambiguous():
    for paper in catalogued_papers():
        items = load_catalogue(paper)
        keys = [item["key"] for item in items]
        assert len(keys) == len(set(keys))
        part_keys = [f"{item['key']} {part}" for item in items for part in item.get("parts", ())]
        assert len(part_keys) == len(set(part_keys)), f"{paper}: a part is listed twice"
        assert not set(part_keys) & set(keys), f"{paper}: a part key is also an entry key"


CATALOGUE = [
    {"key": "Prop 8", "class": "S", "statement": "three parts", "parts": ["(i)", "(ii)", "(iii)"]},
    {"key": "Lemma 1", "class": "S", "statement": "one statement"},
    {"key": "Table 9", "class": "TR", "statement": "trained", "reason": "needs training runs"},
    {"key": "Prop 9", "class": "S", "statement": "two parts", "parts": ["positivity", "group law"]},
]


@pytest.fixture
def catalogue(monkeypatch):
    monkeypatch.setattr(ledger_module, "catalogued_papers", lambda: ["psa"])
    monkeypatch.setattr(ledger_module, "load_catalogue", lambda paper: CATALOGUE)


def _c(id, *keys, verdict=None, scope=None, expected=Verdict.PROVED):
    return Coverer(id, "psa", keys, expected, verdict, scope)


def test_a_claim_is_certified_only_when_every_part_is_covered(catalogue):
    entries = {
        e.key: e
        for e in ledger(
            covered_by=[
                _c("psa.a", "Prop 8 (i)"),
                _c("psa.b", "Prop 8 (ii)", "Prop 8 (iii)"),
                _c("psa.c", "Prop 9 positivity"),
                _c("psa.d", "Lemma 1"),
                _c("psa.e", "No such claim"),
            ]
        )
    }
    assert entries["Prop 8"].status == "certified"
    assert [c.id for c in entries["Prop 8"].covering("(ii)")] == ["psa.b"]
    assert entries["Prop 9"].status == "partly certified" and entries["Prop 9"].uncovered == ("group law",)
    assert entries["Lemma 1"].status == "certified" and entries["Lemma 1"].rows == (None,)
    assert entries["Table 9"].status == "OUT_OF_SCOPE"
    whole = {e.key: e for e in ledger(covered_by=[_c("psa.w", "Prop 9")])}
    assert whole["Prop 9"].status == "certified"  # the whole key covers every part
    assert whole["Prop 8"].status == "not yet certified"


def test_the_ledger_distinguishes_what_a_run_established(catalogue):
    entries = {
        e.key: e
        for e in ledger(
            covered_by=[
                _c("psa.a", "Prop 8 (i)", verdict=Verdict.PROVED, scope=Scope.GENERAL),
                _c("psa.b", "Prop 8 (ii)", verdict=Verdict.PROVED, scope=Scope.STATED_RANGE),
                _c("psa.c", "Prop 8 (iii)", verdict=Verdict.VERIFIED, scope=Scope.INSTANCE),
                _c("psa.d", "Prop 8 (iii)", verdict=Verdict.PROVED, scope=Scope.GENERAL),
                _c("psa.e", "Lemma 1", verdict=Verdict.VERIFIED, scope=Scope.INSTANCE, expected=Verdict.VERIFIED),
                _c("psa.f", "Prop 9", verdict=None),
            ]
        )
    }
    prop8 = entries["Prop 8"]
    assert prop8.standing("(i)") == "proved in general"
    assert prop8.standing("(ii)") == "proved on the stated range"
    assert prop8.standing("(iii)") == "proved in general"  # the best certificate of a part counts
    assert prop8.claim_standing == "proved on the stated range"  # the weakest part counts for the claim
    assert entries["Lemma 1"].claim_standing == "checked at instances"
    assert entries["Prop 9"].claim_standing == "not run"
    assert entries["Table 9"].claim_standing is None
