"""The defaults that define published numbers are guarded (issue 11, section 1).

Each default is read from the code, everywhere it is defined, and compared with the number its
documentation states (README, docstrings, command-line help, parsed from the text, so a change of
the code alone, or of the documentation alone, fails here) and with the number the spec states
(``shared/spec``; parsed from the spec text when the checkout has it, otherwise the value quoted
below with its section). The defaults: sigma_t = 2 (psa.md §1.7, §3.4), L = ln(T - 1) (psa.md §1.7
[D], §3.4), the Fig. 7 and Fig. 8 protocols (psa.md §3.4), the RoPE base 10^4 (plga.md §1.4, table
of constants), the clip C = 2 (gllm.md §1.10, §3.3), the crossover factor 8, the distractor scale 2
and the reference c-hat = 0.7242 (psa.md §1.7-§1.8, §3.4).
"""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from attncert.certificates.frontends import cli
from attncert.certificates.frontends.profiles import Selection
from attncert.solvers import grades, phase, score_model, score_quadrature
from attncert.solvers import plga as splga
from attncert.theory import plga as tplga
from attncert.theory import psa as tpsa

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
SPEC = next((p / "shared" / "spec" for p in (ROOT, *ROOT.parents) if (p / "shared" / "spec").is_dir()), None)
needs_spec = pytest.mark.skipif(SPEC is None, reason="this checkout has no shared/spec")

#: the published values, as the spec states them (section in the comment)
SIGMA_T = 2.0  # psa.md §1.7 "Make σ_t a parameter, defaulting to 2"; §3.4
FIG7_D_KS = (4, 8, 16, 32, 64, 128)  # psa.md §3.4 grid
FIG7_TS = (10, 15, 25)  # psa.md §3.4 grid
FIG7_L = (2.1972, 2.6391, 3.1781)  # psa.md §3.4: L = ln(T - 1) on the grid, 4 decimals
FIG7_GAMMA_POINTS, FIG7_GAMMA_MAX = 61, 8.0  # psa.md §3.4 "linspace(0, 8, 61)"
FIG7_SEEDS, FIG7_TRIALS = 5, 60_000  # psa.md §3.4 "5 seeds × 60,000 trials"
TAXIS_D_K, TAXIS_TS = 16, (6, 8, 9, 10, 12, 15, 20, 25, 30, 40)  # psa.md §3.4, Fig. 8
ROPE_BASE = 10_000  # plga.md §1.4 "base=10000"; constants table "RoPE base Θ = 10^4"
CLIP = 2.0  # gllm.md §1.10 "C = 2 is the planned value"; §3.3 "(L=4, C=2)"
CROSSOVER = 8  # psa.md Thm 64 (4): d_k* = 8L
DISTRACTOR = 2  # psa.md §1.7: s_j = gamma^2 * 2 Z_j
C_HAT = 0.7242  # psa.md §3.4 "ĉ = 0.7242"


def spec_text(paper: str) -> str:
    return (SPEC / f"{paper}.md").read_text()


def default(fn, name: str):
    """The default value of parameter ``name`` of ``fn``."""
    return inspect.signature(fn).parameters[name].default


def documented(text: str, pattern: str) -> float:
    """The number captured by ``pattern`` in ``text`` (the test fails when the sentence is gone)."""
    match = re.search(pattern, text)
    assert match, f"the documentation no longer states {pattern!r}"
    return float(match.group(1))


def numbers(text: str) -> tuple[float, ...]:
    return tuple(float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text))


def cli_default(command: str, dest: str):
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    return next(a for a in sub.choices[command]._actions if a.dest == dest)


# --- sigma_t = 2 --------------------------------------------------------------------------------------
def test_sigma_t_default_is_the_same_everywhere_in_the_code():
    values = {
        "ScoreModel().sigma_t": score_model.ScoreModel().sigma_t,
        "theory.psa.SIGMA_T_DEFAULT": tpsa.SIGMA_T_DEFAULT,
        "cli.SIGMA_T_DEFAULT": cli.SIGMA_T_DEFAULT,
        "attncert phase --sigma-t": cli_default("phase", "sigma_t").default,
        "plateau_quadrature(sigma_t=)": default(score_quadrature.plateau_quadrature, "sigma_t"),
    }
    assert set(values.values()) == {SIGMA_T}, values


def test_sigma_t_default_matches_its_documentation():
    assert documented(README, r"`sigma_t` \(the target noise\)[^.]*?defaults to (\d+(?:\.\d+)?)") == SIGMA_T
    assert documented(score_model.ScoreModel.__doc__, r"``sigma_t`` \(\[R\?\], default (\d+(?:\.\d+)?)\)") == SIGMA_T
    assert documented(score_model.__doc__, r"so sigma_t = (\d+(?:\.\d+)?) gives the target") == SIGMA_T
    assert documented(cli_default("phase", "sigma_t").help, r"\(default (\d+(?:\.\d+)?)\)") == SIGMA_T


@needs_spec
def test_sigma_t_default_matches_the_spec():
    assert documented(spec_text("psa"), r"Make `σ_t` a parameter, defaulting to (\d+)") == SIGMA_T
    assert documented(spec_text("psa"), r"Implement `σ_t` as a parameter, default (\d+)") == SIGMA_T


def test_the_monte_carlo_and_quadrature_engines_use_the_default_model():
    """The published r = 0.9876 comes from this model: target gamma^2 sqrt(d_k), distractor s.d. 2 gamma^2
    (psa.md §1.7), the same as theory.psa's target mean and distractor scale."""
    model = score_model.ScoreModel()
    for gamma, d_k in ((0.5, 16), (1.7, 64), (3.0, 4)):
        assert model.target_mean(gamma, d_k) == pytest.approx(float(tpsa.target_mean(d_k, gamma)), rel=1e-15)
        assert model.distractor_sd(gamma) == pytest.approx(float(tpsa.DISTRACTOR_SCALE) * gamma**2, rel=1e-15)
    assert tpsa.DISTRACTOR_SCALE == DISTRACTOR
    assert (model.sigma_t / 2) * model.distractor_sd(1.0) == model.distractor_sd(1.0)  # equal variances at sigma_t = 2


# --- L = ln(T - 1) --------------------------------------------------------------------------------------
def test_competitor_log_count_is_ln_T_minus_1():
    T = sp.Symbol("T", integer=True, positive=True)
    assert sp.simplify(tpsa.competitor_log_count(T) - sp.log(T - 1)) == 0
    for t in (*FIG7_TS, *TAXIS_TS):
        assert phase.log_competitors(t) == pytest.approx(math.log(t - 1), rel=1e-15)
        assert float(tpsa.competitor_log_count(t)) == pytest.approx(phase.log_competitors(t), rel=1e-15)
    assert [round(phase.log_competitors(t), 4) for t in FIG7_TS] == list(FIG7_L)
    assert "L = ln(T - 1)" in tpsa.competitor_log_count.__doc__


@needs_spec
def test_competitor_log_count_matches_the_spec():
    text = spec_text("psa")
    assert "`L = ln(T−1)`" in text
    stated = re.search(r"`L = ln\(T−1\) ∈ \{([^}]*)\}`", text)
    assert stated and numbers(stated.group(1)) == FIG7_L
    crossovers = re.search(r"`8L ∈ \{([^}]*)\}`", text)
    assert crossovers and numbers(crossovers.group(1)) == tuple(round(CROSSOVER * math.log(t - 1), 2) for t in FIG7_TS)


# --- the Fig. 7 and Fig. 8 protocols -----------------------------------------------------------------------
def test_fig7_protocol_is_the_published_grid():
    p = phase.FIG7
    assert (p.d_ks, p.Ts, p.seeds, p.trials) == (FIG7_D_KS, FIG7_TS, FIG7_SEEDS, FIG7_TRIALS)
    assert np.array_equal(p.gammas, np.linspace(0.0, FIG7_GAMMA_MAX, FIG7_GAMMA_POINTS))
    assert (phase.TAXIS.d_ks, phase.TAXIS.Ts) == ((TAXIS_D_K,), TAXIS_TS)
    assert (phase.TAXIS.seeds, phase.TAXIS.trials, len(phase.TAXIS.gammas)) == (FIG7_SEEDS, FIG7_TRIALS, FIG7_GAMMA_POINTS)
    assert phase.C_HAT_REFERENCE == C_HAT


def test_fig7_protocol_matches_its_documentation():
    p = phase.FIG7
    line = re.search(r"--protocol fig7 +# Fig\. 7: (\d+) points x (\d+) seeds x ([\d,]+) trials", README)
    assert line, "README no longer documents the fig7 protocol"
    assert numbers(line.group(0).split("#")[1])[1:] == (len(p.d_ks) * len(p.Ts), p.seeds, p.trials)
    assert documented(cli_default("phase", "trials").help, r"\(default (\d+)[;)]") == p.trials


@needs_spec
def test_fig7_protocol_matches_the_spec():
    text = spec_text("psa")
    grid = re.search(r"`d_k ∈ \{([^}]*)\}` × `T ∈ \{([^}]*)\}`, giving (\d+) points", text)
    assert grid and numbers(grid.group(1)) == phase.FIG7.d_ks and numbers(grid.group(2)) == phase.FIG7.Ts
    assert float(grid.group(3)) == len(phase.FIG7.d_ks) * len(phase.FIG7.Ts)
    per_point = re.search(r"Per point: (\d+) seeds × ([\d,]+) trials", text)
    assert per_point and numbers(per_point.group(0)) == (phase.FIG7.seeds, phase.FIG7.trials)
    gamma = re.search(r"γ grid: (\d+) points, `linspace\((\d+), (\d+), (\d+)\)`", text)
    assert gamma and numbers(gamma.group(0)) == (len(phase.FIG7.gammas), 0, phase.FIG7.gammas[-1], len(phase.FIG7.gammas))
    taxis = re.search(r"`d_k = (\d+)`, `T ∈ \{([^}]*)\}`, same extraction", text)
    assert taxis and (int(taxis.group(1)),) == phase.TAXIS.d_ks and numbers(taxis.group(2)) == phase.TAXIS.Ts
    assert documented(text, r"with `ĉ = (0\.\d+)`") == phase.C_HAT_REFERENCE


# --- the RoPE base ----------------------------------------------------------------------------------------
def test_rope_base_is_ten_thousand_everywhere():
    # One constant, theory.plga.ROPE_BASE, read at call time: every other place defaults to None ("the
    # theory's base") or states the same number.
    assert tplga.ROPE_BASE == ROPE_BASE
    assert default(tpsa.rope_frequency, "base") == ROPE_BASE
    for function in (tplga.rope_frequencies, tplga.twirl_constant, splga.rope_frequencies, splga.rope_rows):
        assert default(function, "base") is None, f"{function.__qualname__} has its own RoPE base default"
    assert splga.rope_rows(np.ones((2, 4)))[1] == pytest.approx(splga.rope_rows(np.ones((2, 4)), base=ROPE_BASE)[1])
    # the default is the one used: theta_{d_k/2} = base^{-(d_k - 2)/d_k} at d_k = 64
    assert tplga.rope_frequencies(64)[-1] == sp.Integer(ROPE_BASE) ** sp.Rational(-62, 64)
    assert splga.rope_frequencies(64)[-1] == pytest.approx(ROPE_BASE ** (-62 / 64), rel=1e-15)


@needs_spec
def test_rope_base_matches_the_spec():
    text = spec_text("plga")
    assert documented(text, r"RotaryPositionalEmbeddings\(dim=d_k, base=(\d+)\)") == ROPE_BASE
    assert re.search(r"\| RoPE base \$\\Theta\$ \| \$10\^4\$ \|", text)


# --- the clip C = 2 -------------------------------------------------------------------------------------------
def test_clip_default_is_two_everywhere():
    values = {
        "solve_clipped": default(grades.solve_clipped, "clip"),
        "solve_lbfgsb": default(grades.solve_lbfgsb, "clip"),
        "solve_cvxpy": default(grades.solve_cvxpy, "clip"),
        "profiles.Selection().clip": Selection().clip,
    }
    assert set(values.values()) == {CLIP}, values
    assert documented(README, r"`selection` \(`C` default (\d+)") == CLIP
    assert documented(README, r"--table3 +# regenerate Table 3 \(L = 4, C = (\d+)\)") == CLIP
    assert documented(cli_default("grades", "clip").help, r"default (\d+)\)") == CLIP


@needs_spec
def test_clip_default_matches_the_spec():
    assert documented(spec_text("gllm"), r"\$C=(\d+)\$ is the planned value") == CLIP
    assert documented(spec_text("gllm"), r"clip \$C=(\d+)\$ \(box") == CLIP


# --- the constants of the two-branch law ---------------------------------------------------------------------
def test_two_branch_constants():
    L = sp.Symbol("L", positive=True)
    assert tpsa.CROSSOVER_FACTOR == CROSSOVER
    assert sp.simplify(tpsa.crossover_dk(L) - CROSSOVER * L) == 0
    for t in FIG7_TS:
        boundary = CROSSOVER * math.log(t - 1)
        assert phase.branch(math.ceil(boundary), t) == "mean-field"
        assert phase.branch(math.floor(boundary), t) == "condensed"
    assert "d_k* = 8 L" in tpsa.crossover_dk.__doc__


@needs_spec
def test_two_branch_constants_match_the_spec():
    text = spec_text("psa")
    assert re.search(r"`d_k ≥ 8L`", text) and re.search(r"s_j=\\gamma\^2\\cdot 2Z_j", text)


# --- theory lemmas: the default is the claim its certificate proves -----------------------------------------
#: each theory.plga lemma whose one parameter has a default -> the certificate that proves the claim and
#: the certificate parameter its argument receives. A default nobody passes (every certificate passes its
#: own value, and its negative control another) could change unseen; pinned to the certificate's value,
#: it is covered by that certificate's proof.
LEMMA_CLAIMS = {
    "commutant_dimension_lemma": ("plga.rope_commutant_dimension_is_dk", "law"),
    "contraction_consequences_lemma": ("plga.contraction_transfer_and_separation", "with_lipschitz"),
    "envelope_lemma": ("plga.activation_derivative_envelopes", "quadratic"),
    "geometric_sum_lemma": ("plga.twirl_multiplier_geometric_sum", "multiple"),
    "layer_norm_jacobian_lemma": ("plga.layer_norm_jacobian_factorisation", "projection_weight"),
    "layer_norm_proxy_lemma": ("plga.layer_norm_proxy_is_rigorous", "constant"),
    "nonresonance_lemma": ("plga.standard_rope_frequencies_are_nonresonant", "law"),
    "notears_lemma": ("plga.notears_vanishes_exactly_on_acyclic_supports", "include_diagonal"),
    "order_parameter_lemma": ("plga.order_parameter_vanishes_iff_invariant", "piecewise"),
    "position_window_lemma": ("plga.relative_positions_on_a_window", "window"),
    "positivity_obstruction_lemma": ("plga.positivity_obstruction_floor", "floor_exponent"),
    "preactivation_bound_lemma": ("plga.a_priori_preactivation_bound_slack", "factor"),
    "row_factorisation_lemma": ("plga.metric_learner_row_factorisation_consequences", "shared"),
    "softmax_jacobian_lemma": ("plga.softmax_jacobian_norm_is_one_half", "constant"),
    "symmetric_projection_lemma": ("plga.twirl_projection_of_symmetric_matrix_has_no_j_part", "projection"),
}


def _defaulted_lemmas() -> dict[str, inspect.Parameter]:
    """theory.plga's *_lemma functions whose parameters all have defaults, with that one parameter."""
    found = {}
    for name, fn in inspect.getmembers(tplga, inspect.isfunction):
        params = list(inspect.signature(fn).parameters.values())
        if name.endswith("_lemma") and params and all(p.default is not inspect.Parameter.empty for p in params):
            (found[name],) = params
    return found


def _certificate(cert_id: str):
    """The registered plga certificate ``cert_id`` (imported here: loading the registry imports every check)."""
    from attncert.certificates.engine.registry import select

    (cert,) = [c for c in select(paper="plga", pattern=cert_id) if c.id == cert_id]
    return cert


def test_every_defaulted_lemma_names_the_certificate_of_its_claim():
    # injectivity_lemma's default probe is the identity map, checked below: its certificate builds the probe
    assert set(_defaulted_lemmas()) == {*LEMMA_CLAIMS, "injectivity_lemma"}


@pytest.mark.parametrize("lemma", sorted(LEMMA_CLAIMS))
def test_lemma_default_is_the_value_its_certificate_proves(lemma):
    from attncert.certificates.engine.model import Verdict

    cert_id, param = LEMMA_CLAIMS[lemma]
    cert = _certificate(cert_id)
    value = _defaulted_lemmas()[lemma].default
    assert cert.expected is Verdict.PROVED
    assert type(value) is type(cert.params[param]) and value == cert.params[param], (lemma, value, cert.params[param])
    assert cert.mutant.overrides[param] != value  # the negative control is another value


#: the one or two facts each lemma must fail at its certificate's negative-control value: the control is
#: rejected by the lemma's own logic, not only by a cross-check beside it (set 11: Thm 4.4's wrong reading
#: given the right offset stayed green, because the exhaustive d = 3 search rejected the control first)
NEGATIVE_CONTROL_FAILS = {
    "commutant_dimension_lemma": ["theta_0 < pi"],
    "contraction_consequences_lemma": [
        "(ii) transfer display",
        # the sharp point (K = 2) has a = K b above the control's bound, which drops K: a counterexample too
        "(ii) its hypotheses admit the sharp case: every bound tight, every norm positive, a = bound",
    ],
    "envelope_lemma": [
        "|iSwiGLU'(u)| <= 2 U s(U) + quadratic U^2 on |u| <= U",
        # U^2/8 is below iSwiGLU''s own U^2 s(1 - s) -> U^2/4 at u = U: the tightness fact sees it too
        "the envelope is tight at u = U as U -> 0+: (envelope(U) - iSwiGLU'(U)) / U^4 -> 1/16",
    ],
    "geometric_sum_lemma": ["y^2 (y^{2S} - 1)/(y^2 - 1) = y^{S+1} sin(S omega/2)/sin(omega/2)"],
    "layer_norm_jacobian_lemma": ["du/dr = (I - u u^T/d) P / sqrt(v + eps)"],
    "layer_norm_proxy_lemma": ["sqrt(1+x) - 1 <= 1/4 x"],
    "nonresonance_lemma": ["theta_0 < pi", "theta_0 = 1, the top of (0, 1]: 2 theta_0 < 2 pi needs 1 < pi"],
    "notears_lemma": ["tr N^k = 0 for k >= 1: the diagonal lies in the band"],
    "order_parameter_lemma": ["m = 0 iff the numerator |D(x1) - D(x2)| vanishes"],
    "position_window_lemma": ["the window contains the pairs (1, 1) and (2, 2) (offset 0 twice)"],
    "positivity_obstruction_lemma": ["A_ii >= eps => A_ii^2 >= eps^1", "d_k eps^2 = 6.4e-17 at d_k = 64"],
    "preactivation_bound_lemma": ["witness at d_k = 64: (W A)_11 = 6 = factor |W|_inf |A|_max (attained)"],
    "row_factorisation_lemma": ["(iii) a constant shared phi forces A^(h) = 1 alpha*^T for every head"],
    "softmax_jacobian_lemma": [
        "Gershgorin row bound 2 p_i (1 - p_i) <= constant",
        "sharp: diag(p) - p p^T at p = (1/2, 1/2) has eigenvalue 1/2 <= constant",
    ],
    "symmetric_projection_lemma": ["<B - P B, J>_F = 0", "symmetric block: J_2 component s = 0"],
}


@pytest.mark.parametrize("lemma", sorted(LEMMA_CLAIMS))
def test_lemma_fails_exactly_where_its_negative_control_is_wrong(lemma):
    from attncert.certificates.engine.evidence import holds_exactly

    cert_id, param = LEMMA_CLAIMS[lemma]
    cert = _certificate(cert_id)
    right, wrong = getattr(tplga, lemma)(), getattr(tplga, lemma)(cert.mutant.overrides[param])
    assert all(holds_exactly(fact) for _, fact in right)
    assert [label for label, fact in wrong if not holds_exactly(fact)] == NEGATIVE_CONTROL_FAILS[lemma]


def test_injectivity_lemma_default_probe_is_the_identity():
    """Cor 7.1 with unrestricted reachability: the probes see D itself."""
    D = sp.MatrixSymbol("D", 3, 3)
    assert _defaulted_lemmas()["injectivity_lemma"].default(D) == D
