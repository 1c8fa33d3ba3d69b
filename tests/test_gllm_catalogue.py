"""GLLM: ledger keys name catalogue entries or their parts, and the published parameters live in one place."""

import inspect

from attncert.certificates.engine.ledger import load_catalogue
from attncert.certificates.engine.registry import all_certificates
from attncert.certificates.frontends import grades_output
from attncert.solvers import grades
from attncert.theory import gllm


def _catalogue() -> dict[str, list[str]]:
    return {item["key"]: item.get("parts", []) for item in load_catalogue("gllm")}


def test_every_gllm_ledger_key_is_an_entry_or_one_of_its_parts():
    catalogue = _catalogue()
    for cert in all_certificates(["gllm"]):
        for key in cert.claim.ledger:
            if key in catalogue:
                continue
            owners = [k for k, parts in catalogue.items() if any(key == f"{k} {p}" for p in parts)]
            assert owners, f"{cert.id} names {key!r}, neither a catalogue key nor '<key> <part>'"


def test_every_part_of_a_checkable_gllm_claim_is_covered():
    covered = {key for cert in all_certificates(["gllm"]) for key in cert.claim.ledger}
    for item in load_catalogue("gllm"):
        if "reason" in item or item["key"] in covered:
            continue
        missing = [p for p in item.get("parts", []) if f"{item['key']} {p}" not in covered]
        assert item.get("parts") and not missing, f"{item['key']}: uncovered parts {missing or '(whole claim)'}"


def test_published_clip_and_table3_rows_agree_everywhere():
    """C = 2 and the Table 3 rows are defined in theory.gllm; the solver and the frontend must agree."""
    assert gllm.PUBLISHED_CLIP == 2
    for fn in (grades.solve_clipped, grades.solve_lbfgsb, grades.solve_cvxpy, grades_output.table3_values):
        assert inspect.signature(fn).parameters["clip"].default == float(gllm.PUBLISHED_CLIP), fn.__name__
    assert grades_output.TABLE3_ROWS == tuple((float(nu), float(mu)) for nu, mu in gllm.TABLE3_ROWS)
    assert inspect.signature(grades_output.table3_values).parameters["levels"].default == gllm.TABLE3_LEVELS
    assert inspect.signature(grades_output.table3_values).parameters["d_k"].default == gllm.TABLE3_D_K


def test_geometric_profiles_match_the_general_level_terms():
    import sympy as sp

    nu, mu = sp.Rational(3, 5), sp.Rational(3, 10)
    level = sp.Symbol("l", integer=True, nonnegative=True)
    for levels in range(1, 7):
        a, s = gllm.geometric_profiles(nu, mu, levels)
        ga, gs_ = (t.doit() for t in gllm.geometric_level_terms(nu, mu, levels, level))
        assert a == [ga.subs(level, k) for k in range(levels)]
        assert s == [gs_.subs(level, k) for k in range(levels)]
