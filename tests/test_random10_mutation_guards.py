"""Guards found by the tenth random mutation set (issue 11, benchmarks/mutations_random10.toml, seed
20261211): each test pins what a survivor of that set exposed, against an independent computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from conftest import logistic_normal_mean
from scipy import special

from attncert.certificates.engine.evidence import holds_exactly
from attncert.solvers import score_quadrature as sq
from attncert.solvers.grades import bracketed_root
from attncert.theory import gllm, plga, psa


@pytest.mark.parametrize("s", [0.5, 2.0])
@pytest.mark.parametrize("a", [0.0, 5.0, 12.0])
def test_the_t_window_loses_no_mass_the_error_estimate_cannot_see(a, s):
    """_conditional_masses integrates F_m(a) = int exp(w - e^w) phi(w - a)^m dw over w in
    [W_LO, V_HI]. Its truncation biases A one way, and step doubling is blind to it, so it must sit
    below the printed error estimate (3e-13 on the fig7 grid). m = 0 is the Gumbel density itself
    (integral 1); m = 1 is a logistic-normal mean, computed here by mpmath. At W_LO = -23 the
    Gumbel mass came out 1e-10 short, and so did F_1 wherever phi ~ 1 on the cut-off tail."""
    h = 0.1
    y0, q = sq._phi_complement_table(s, h)
    masses = sq._conditional_masses(np.array([a]), sq._padded_powers(q, [0, 1]), y0, h)
    assert masses[0][0] == pytest.approx(1.0, abs=1e-14)
    assert masses[1][0] == pytest.approx(logistic_normal_mean(a, s), abs=1e-13)


def test_git_form_refuses_lists_of_different_lengths():
    """Prop 12 (i)'s form reads alpha by index into t: an alpha one longer used to give a wrong
    form silently (its last weight multiplied the whole product)."""
    x, y = sp.symbols("x y", positive=True)
    half = sp.Rational(1, 2)
    with pytest.raises(ValueError, match="one length, not 3, 2 and 2"):
        gllm.git_form([half, half, 1], [half, half], [x, y])
    with pytest.raises(ValueError, match="one length, not 2, 1 and 2"):
        gllm.git_form([half, half], [1], [x, y])
    with pytest.raises(ValueError, match="one length, not 2, 2 and 3"):
        gllm.git_form([half, half], [half, half], [x, y, 1])


@pytest.mark.parametrize(
    ("f", "lo", "hi", "root", "stale"),
    [(math.log, 0.01, 100.0, 1.0, "lo"), (lambda x: math.exp(x) - 2, 0.0, 10.0, math.log(2), "hi")],
)
def test_bracketed_root_halves_whichever_end_goes_stale(f, lo, hi, root, stale):
    """The Illinois modification: when the same end moves twice running, the other end's value is
    halved, so both ends close in. log on [0.01, 100] leaves lo stale under plain regula falsi
    (205 evaluations without the halving, 30 with it), e^x - 2 on [0, 10] leaves hi stale (over 400
    without, the budget, against 25 with)."""
    calls = []

    def counted(x):
        calls.append(x)
        return f(x)

    assert bracketed_root(counted, lo, hi) == pytest.approx(root, rel=1e-14)
    assert len(calls) <= 40, f"{len(calls)} evaluations: the {stale} end was never halved"


@pytest.mark.parametrize("sigma_t", [0.0, 0.5, 1.0, 2.0, 3.0])
@pytest.mark.parametrize("d_k", [1, 16, 128])
def test_plateau_with_one_distractor_is_a_normal_probability(d_k, sigma_t):
    """T = 3 (m = 1 distractor): p_inf = E Phi((sqrt(d_k) + sigma_t Z)/2) = Phi(sqrt(d_k) / sqrt(4 + sigma_t^2)),
    since E Phi(a + b Z) = Phi(a / sqrt(1 + b^2)). The closed form holds at every sigma_t, so the
    shortcut plateau_quadrature takes at sigma_t = 0 can be neither skipped nor taken elsewhere."""
    expected = special.ndtr(math.sqrt(d_k) / math.sqrt(4 + sigma_t**2))
    assert sq.plateau_quadrature(d_k, 3, sigma_t=sigma_t) == pytest.approx(expected, abs=1e-12)


def test_extra_decode_state_grows_with_the_filter_memory():
    """Prop 73 counts q and k each keeping fir_memory(H) past raw vectors of width d per layer. The
    paper's shear reads one past input, where streams * memory and streams / memory agree; a
    filter reading two (1 + gamma (1 - z^-1)^2) keeps 2 * 2 * d * L scalars."""
    d, layers, g = sp.symbols("d L gamma", positive=True)
    second_difference = 1 + g * (1 - psa.z**-1) ** 2
    assert psa.fir_memory(second_difference) == 2
    assert psa.decode_extra_state(d, layers, second_difference) == 4 * d * layers
    assert psa.decode_extra_state(d, layers, second_difference, streams=3) == 6 * d * layers
    assert psa.decode_extra_state(d, layers, psa.transfer_function()) == 2 * d * layers


def test_preactivation_bound_lemma_defaults_to_the_attained_factor_one():
    """E3: |(W A)_ij| <= |W|_inf |A|_max with factor 1, attained on W = 2 1 1^T/d_k, A = 3 1 1^T. The
    certificate passes its factor explicitly, so the default is checked here: every fact holds at
    the default, and the witness refuses a factor 2 (valid, but not attained) as well as 1/2."""
    assert all(holds_exactly(fact) for _, fact in plga.preactivation_bound_lemma())
    for factor in (2, sp.Rational(1, 2)):
        assert not all(holds_exactly(fact) for _, fact in plga.preactivation_bound_lemma(factor))


def test_z3_range_end_needs_the_witness_at_the_end():
    """Set 10 moved two lemma witnesses inside their ranges unseen. z3_range_end holds only when the
    constraints admit the end and nothing beyond it: on 0 <= p <= 1, p = 0 is the low end and p = 1
    the high end; p = 1/2 is admitted but no end; a constraint p > 0 no longer admits p = 0."""
    import z3

    p, q = z3.Reals("p q")
    unit = (p >= 0, p <= 1)
    assert plga.z3_range_end(unit, p, 0, side="low", how="p = 0").holds
    assert plga.z3_range_end(unit, p, 1, side="high", how="p = 1").holds
    assert not plga.z3_range_end(unit, p, z3.RealVal("1/2"), side="low", how="p = 1/2").holds
    assert not plga.z3_range_end(unit, p, 1, side="low", how="p = 1").holds
    assert not plga.z3_range_end((p > 0, p <= 1), p, 0, side="low", how="p = 0").holds
    # a second variable must be pinned, or the witness is not one point
    assert not plga.z3_range_end((*unit, q >= p), p, 0, side="low", how="p = 0").holds
    assert plga.z3_range_end((*unit, q >= p), p, 0, side="low", pins=(q == 0,), how="p = q = 0").holds
    with pytest.raises(ValueError, match="side must be 'low' or 'high'"):
        plga.z3_range_end(unit, p, 0, side="bottom", how="p = 0")
