"""The claims catalogue and the certificates agree with each other."""

from attncert.certificates.engine.ledger import catalogued_papers, ledger, load_catalogue
from attncert.certificates.engine.registry import all_certificates


def test_every_ledger_key_named_by_a_certificate_is_catalogued():
    for paper in catalogued_papers():
        keys = {item["key"] for item in load_catalogue(paper)}
        for cert in all_certificates():
            if cert.paper == paper:
                missing = set(cert.claim.ledger) - keys
                assert not missing, f"{cert.id} names uncatalogued claims {missing}"


def test_out_of_scope_entries_have_reasons_and_no_certificates():
    for entry in ledger():
        assert entry.klass in {"S", "I", "N", "MC", "T", "TR", "M", "D"}, entry.key
        if entry.klass in {"TR", "M", "D"}:
            assert entry.reason, f"{entry.key} is class {entry.klass} without a reason"
        if entry.reason is not None:
            assert not entry.certificates, f"{entry.key} is out of scope yet certified"


def test_catalogue_keys_are_unique():
    for paper in catalogued_papers():
        keys = [item["key"] for item in load_catalogue(paper)]
        assert len(keys) == len(set(keys))
