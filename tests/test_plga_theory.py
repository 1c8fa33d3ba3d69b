"""PLGA: the ledger parts are consistent, and the certificates turn red when the theory they certify
is mutated (issue 11: the RoPE base, C_Theta, NOTEARS, the A_LM floor)."""

import sympy as sp

from attncert.certificates.engine.ledger import load_catalogue
from attncert.certificates.engine.model import Context, Verdict
from attncert.certificates.engine.registry import all_certificates
from attncert.certificates.engine.runner import run_one
from attncert.theory import plga as th

CERTS = {c.id: c for c in all_certificates(["plga"])}


def _verdict(cert_id: str) -> Verdict:
    return run_one(CERTS[cert_id], Context()).outcome.evidence.verdict


def test_every_ledger_key_names_an_entry_or_one_of_its_parts():
    catalogue = {item["key"]: item.get("parts", []) for item in load_catalogue("plga")}
    allowed = set(catalogue) | {f"{key} {part}" for key, parts in catalogue.items() for part in parts}
    for cert in CERTS.values():
        assert set(cert.claim.ledger) <= allowed, f"{cert.id}: {set(cert.claim.ledger) - allowed}"


def test_every_part_is_covered_or_the_entry_is_out_of_scope():
    named = {key for cert in CERTS.values() for key in cert.claim.ledger}
    uncovered = []
    for item in load_catalogue("plga"):
        if "reason" in item:
            continue
        for part in item.get("parts", []):
            if item["key"] not in named and f"{item['key']} {part}" not in named:
                uncovered.append(f"{item['key']} {part}")
        if not item.get("parts") and item["key"] not in named:
            uncovered.append(item["key"])
    assert not uncovered, uncovered


def test_changing_the_rope_base_in_theory_turns_certificates_red(monkeypatch):
    monkeypatch.setattr(th, "ROPE_BASE", 20_000)
    red = [
        cid
        for cid in (
            "plga.twirl_constant_enclosure",
            "plga.twirl_printed_values",
            "plga.rope_frequencies_are_not_rationally_independent",
        )
        if _verdict(cid) is not CERTS[cid].expected
    ]
    assert len(red) == 3, red


def test_a_mutated_twirl_constant_is_caught_by_the_interval(monkeypatch):
    def mutated(dk=th.D_K, base=None):
        thetas = th.rope_frequencies(dk, base)
        return 1 / sp.sin((thetas[-2] - thetas[-1]) / sp.Rational(20001, 10000))

    monkeypatch.setattr(th, "twirl_constant", mutated)
    assert _verdict("plga.twirl_constant_enclosure") is not Verdict.PROVED


def test_notears_certificate_calls_the_theory_function(monkeypatch):
    monkeypatch.setattr(th, "notears", lambda M: M.exp().trace() - M.shape[0])
    assert _verdict("plga.notears_vanishes_exactly_on_acyclic_supports") is not Verdict.PROVED


def test_the_floor_is_read_from_theory(monkeypatch):
    monkeypatch.setattr(th, "EPS_FLOOR", sp.Rational(1, 10**8))
    assert _verdict("plga.positivity_obstruction_floor") is not Verdict.PROVED


def test_commutant_dimension_counts_a_repeated_plane():
    thetas = th.rope_frequencies(8)
    assert th.commutant_dimension(thetas) == 8
    thetas[1] = thetas[0]
    assert th.commutant_dimension(thetas) == 12


def test_z3_abs_at_most_is_the_two_sided_bound():
    """A one-sided |x| <= b would let an envelope lemma prove half its claim (random mutation set)."""
    import z3

    def decide(x, b):
        return z3.is_true(z3.simplify(th.z3_abs_at_most(z3.RealVal(x), z3.RealVal(b))))

    assert [decide(x, 3) for x in (-4, -3, 0, 3, 4)] == [False, True, True, True, False]


def test_z3_admits_decides_satisfiability_at_the_witness():
    import z3

    x = z3.Real("x")
    assert th.z3_admits((x >= 0,), (x == 0,), "boundary").holds
    assert not th.z3_admits((x >= 1,), (x == 0,), "boundary").holds


def test_z3_admits_requires_the_witness_to_be_one_point():
    """A witness such as x != 1 is satisfiable away from the boundary it names, so a mutated
    witness (== to !=) would still 'admit' it: the witness must fix every variable."""
    import z3

    x, y = z3.Reals("x y")
    assert not th.z3_admits((x >= 0,), (x != 1,), "boundary").holds
    assert not th.z3_admits((x >= 0, y >= x), (x == 0,), "y free").holds
    assert th.z3_admits((x >= 0, y >= x), (x == 0, y == x), "y fixed through x").holds
    assert "at one point" in th.z3_admits((x >= 0,), (x == 0,), "boundary").how


def test_contraction_hypotheses_admit_the_zero_case():
    """Strengthening a hypothesis (delta_x >= 0 to >= 1) must not leave Prop 5.12 (ii) proved."""
    facts = dict(th.contraction_consequences_lemma())
    assert facts["(ii) its hypotheses admit every norm and constant = 0 (no case excluded)"].holds


def test_frequency_signs_fail_at_once_for_a_base_below_one():
    """A base family 1 - t (t > 0) leaves sign(log(1 - t)) open; the sign facts must then read False from
    the assumptions, not hand SymPy a simplify whose running time depends on the hash seed."""
    facts = dict(th.frequency_structure_lemma(lambda j, dk, base: th.rope_frequency(j, dk, 2 - base)))
    for name in (
        "log(theta_j / theta_0) = -2 j log(base)/d_k has sign -sign(j): <= 0, and 0 only at j = 0",
        "log(theta_{j+1}/theta_j) = -2 log(base)/d_k has sign -1 (strictly decreasing)",
    ):
        assert isinstance(facts[name], th.Decision)
        assert not facts[name].holds
        assert dict(th.frequency_structure_lemma())[name].holds
