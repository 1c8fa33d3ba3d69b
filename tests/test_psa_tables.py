"""The printed-table machinery of the PSA certificates: the rounding helpers, the errata guard, the
arithmetic of theory.psa against SciPy, and certificates that fail when the code they certify breaks."""

import pytest
import sympy as sp
from scipy import stats

from attncert.certificates.engine.evidence import printed
from attncert.certificates.engine.model import Verdict
from attncert.certificates.engine.registry import select
from attncert.certificates.psa.tables import erratum, from_rounded_inputs, half_unit
from attncert.theory import psa as th

Q = sp.Rational


def _run(cert_id, ctx):
    (cert,) = select(paper="psa", pattern=cert_id)
    return cert.run(ctx)


def _sub(a, b):
    return a - b


def test_half_unit_reads_the_printed_digits():
    assert half_unit("0.0056") == Q(5, 100_000)
    assert half_unit("3.22e-4") == Q(5, 10**7)
    assert half_unit("53") == Q(1, 2)


def test_from_rounded_inputs_direct_input_rounding_and_mismatch():
    direct = from_rounded_inputs([("a", _sub, ("44.5", "11.1"), "+33.4")], what="direct")
    assert direct.verdict is Verdict.REPRODUCED
    # 66.6 - 11.6 = 55.0, printed 55.1: reachable only because both inputs are rounded to 0.1
    via = from_rounded_inputs([("b", _sub, ("66.6", "11.6"), "+55.1")], what="via inputs")
    assert via.verdict is Verdict.REPRODUCED
    assert via.details["regenerated within input rounding"] == ["b"]
    off = from_rounded_inputs([("c", _sub, ("66.6", "11.6"), "+55.3")], what="off")
    assert off.verdict is Verdict.MISMATCH


def test_erratum_turns_error_when_the_correction_breaks():
    claim = printed([("x", Q(1, 3), "0.5")], what="claim")
    good = printed([("x", Q(1, 3), "0.33")], what="fix")
    bad = printed([("x", Q(1, 3), "0.30")], what="fix")
    assert claim.verdict is Verdict.MISMATCH
    assert erratum(claim, good, corrected="1/3").verdict is Verdict.MISMATCH
    assert erratum(claim, bad, corrected="1/3").verdict is Verdict.ERROR


def test_p_values_agree_with_scipy():
    r, n = -0.679, 20
    t = r * ((n - 2) / (1 - r * r)) ** 0.5
    assert float(th.pearson_p_value(Q("-0.679"), n)) == pytest.approx(2 * stats.t.sf(abs(t), n - 2), rel=1e-10)
    assert float(th.student_t_two_sided_p(Q("-2.91"), 94)) == pytest.approx(2 * stats.t.sf(2.91, 94), rel=1e-10)
    assert float(th.f_test_p_value(Q("12.04"), 1, 112)) == pytest.approx(stats.f.sf(12.04, 1, 112), rel=1e-10)


def test_t_statistics_agree_with_scipy():
    a, b = [Q(0)] * 5, [Q(v, 10) for v in (1, 3, 2, 5, 4, 7)]
    floats = [float(x) for x in b]
    assert float(th.pooled_t_statistic(a, b)) == pytest.approx(stats.ttest_ind([0.0] * 5, floats).statistic)
    welch = stats.ttest_ind([0.0] * 5, floats, equal_var=False).statistic
    assert float(th.welch_t_statistic(a, b)) == pytest.approx(welch)


def test_table_arithmetic_functions():
    assert th.task_difficulty(sp.Integer(24), sp.Integer(512)) == 1
    assert th.transformer_parameters(12, 768, 8192, tied=True) == 91_226_112
    assert th.step_ratio_limit(0) == sp.sqrt(2)
    assert th.fir_memory(th.transfer_function()) == 1
    assert th.standard_deviation([Q(1), Q(3)], 0) == 1


def test_fir_memory_counts_the_delays_whatever_the_transfers_symbols():
    """A coefficient named w is a coefficient: 1 + w z^-1 reads one past input, w z^-1 - z^-2 two. With the
    substitution z -> 1/w through a plain Symbol("w"), the first counted 2 and the second raised."""
    w = sp.Symbol("w")
    assert th.fir_memory(1 + w / th.z) == 1
    assert th.fir_memory(w / th.z - 1 / th.z**2) == 2


def test_extra_state_certificate_counts_the_filter_memory(ctx, monkeypatch):
    """Issue 11: the Prop 73 fraction is checked against a count, not against its own definition."""
    assert _run("psa.extra_state_is_one_over_T_of_the_cache", ctx).verdict is Verdict.PROVED
    monkeypatch.setattr(th, "fir_memory", lambda transfer, zz=th.z: 2)
    assert _run("psa.extra_state_is_one_over_T_of_the_cache", ctx).verdict is Verdict.REFUTED


def test_extra_state_certificate_calls_the_theory_fraction(ctx, monkeypatch):
    monkeypatch.setattr(th, "extra_state_fraction", lambda d, layers, T: 2 / T)
    assert _run("psa.extra_state_is_one_over_T_of_the_cache", ctx).verdict is Verdict.REFUTED


def test_int8_extra_bits_checked_against_the_sheared_value(ctx, monkeypatch):
    """Issue 11: the extra-bits line compares Prop 77's formula with the headroom the shear needs."""
    monkeypatch.setattr(th, "int8_extra_bits", lambda g=th.gamma: sp.log(1 + g, 2))
    assert _run("psa.int8_headroom_is_tight_at_nyquist", ctx).verdict is Verdict.REFUTED


def test_erratum_certificate_goes_red_when_its_correction_breaks(ctx, monkeypatch):
    monkeypatch.setattr(th, "relative_change", lambda new, old: (new - old) / new)
    assert _run("psa.table75_medium_difficulty_summary", ctx).verdict is Verdict.ERROR
