"""PSA exact certificates: general scope where the paper quantifies over n, d_k, L, and the checks
of issue 11 that must fail when the code they certify breaks (each test fails if a fix regresses)."""

import math

import numpy as np
import pytest
import sympy as sp

from attncert.certificates.engine.model import Scope, Verdict
from attncert.certificates.engine.registry import select
from attncert.certificates.engine.runner import run_one
from attncert.solvers import psa_operators as ops
from attncert.solvers import score_model as sm
from attncert.theory import psa as th

GENERAL = [
    "psa.shear_is_symplectic",
    "psa.shear_is_exact_hamiltonian_flow",
    "psa.joint_shear_is_symplectic_and_conserves_energy",
    "psa.shear_conserves_kinetic_energy",
    "psa.rotation_family_is_symplectic",
    "psa.transport_identity",
    "psa.unequal_shear_score_bias_is_linear",
    "psa.position_fixing_symplectic_maps_are_symmetric_shears",
    "psa.four_term_score_decomposition",
    "psa.lower_shear_is_not_operational",
    "psa.differential_transformer_at_first_order",
    "psa.pearson_scale_invariance",
    "psa.annealed_bound_on_target_mass",
    "psa.crossover_step_is_the_factor_c",
    "psa.condensed_branch_is_flat_in_dk",
    "psa.shear_is_applied_once_and_composes_exactly",
    "psa.argmax_invariance_is_exact",
    "psa.pre_rope_shear_coriolis_error",
]


def _cert(cert_id):
    (cert,) = [c for c in select(paper="psa", pattern=cert_id) if c.id == cert_id]
    return cert


@pytest.mark.parametrize("cert_id", GENERAL)
def test_headline_claims_are_proved_in_general(cert_id, ctx):
    evidence = run_one(_cert(cert_id), ctx).outcome.evidence
    assert evidence.verdict is Verdict.PROVED, evidence.summary
    assert evidence.scope is Scope.GENERAL
    assert evidence.assumptions


def test_kronecker_lift_reads_coefficients_and_refuses_other_blocks():
    n = th.dim
    shear = th.upper_shear(th.gamma, n)
    assert th.identity_coefficients(shear.T * shear) == sp.Matrix([[1, th.gamma], [th.gamma, th.gamma**2 + 1]])
    a = sp.MatrixSymbol("A", n, n)
    with pytest.raises(ValueError):
        th.identity_coefficients(sp.BlockMatrix([[a, sp.ZeroMatrix(n, n)], [sp.ZeroMatrix(n, n), a]]))


def test_scalar_part_identifies_equal_sums():
    a, b = sp.MatrixSymbol("a", th.dim, 1), sp.MatrixSymbol("b", th.dim, 1)
    assert th.scalar_part(a.T * b - b.T * a) == 0
    assert th.scalar_part(a.T * a) != 0


def test_coriolis_rejects_a_sign_error_in_the_magnitude(ctx):
    cert = _cert("psa.pre_rope_shear_coriolis_error")
    evidence = cert.check(ctx, magnitude=lambda a: -2 * sp.sin(a / 2))
    assert evidence.verdict is Verdict.REFUTED


def test_argmax_invariance_runs_the_solver_model(ctx, monkeypatch):
    cert = _cert("psa.argmax_is_gamma_invariant")
    assert cert.run(ctx).verdict is Verdict.VERIFIED
    original = sm.ScoreModel.target_mean
    monkeypatch.setattr(sm.ScoreModel, "target_mean", lambda self, g, d: original(self, g, d) + 0.5 * g)
    assert cert.run(ctx).verdict is not Verdict.VERIFIED


@pytest.mark.parametrize(
    "mutation",
    ["target mean x 1.03", "distractor spread x 1.03", "default sigma_t = 3"],
)
def test_quick_score_model_guard_catches_parameter_changes(mutation, ctx, monkeypatch):
    cert = _cert("psa.score_model_parameters_quick")
    assert cert.run(ctx).verdict is Verdict.VERIFIED
    if mutation.startswith("target"):
        original = sm.ScoreModel.target_mean
        monkeypatch.setattr(sm.ScoreModel, "target_mean", lambda self, g, d: 1.03 * original(self, g, d))
    elif mutation.startswith("distractor"):
        original_sd = sm.ScoreModel.distractor_sd
        monkeypatch.setattr(sm.ScoreModel, "distractor_sd", lambda self, g: 1.03 * original_sd(self, g))
    else:
        monkeypatch.setattr(sm.ScoreModel.__init__, "__defaults__", (3.0, "t4"))
    assert cert.run(ctx).verdict is not Verdict.VERIFIED


def test_condensed_branch_sees_a_dk_dependent_distractor_ensemble(ctx, monkeypatch):
    cert = _cert("psa.condensed_branch_is_flat_in_dk")
    monkeypatch.setattr(th, "annealed_exponent", lambda LL=th.L, g=th.gamma: LL + 2 * g**4 + th.d_k * g**4 / 100)
    assert cert.run(ctx).verdict is Verdict.REFUTED


def test_mean_field_cross_check_follows_the_crossover_factor(ctx, monkeypatch):
    cert = _cert("psa.mean_field_gamma_c_is_smaller_annealed_root")
    assert cert.run(ctx).cross_check.passed
    monkeypatch.setattr(th, "CROSSOVER_FACTOR", sp.Integer(9))
    evidence = cert.run(ctx)
    assert evidence.verdict is Verdict.REFUTED  # the theory's root no longer solves 2u^2 - sqrt(d_k) u + L


def test_errata_check_their_corrections(ctx, monkeypatch):
    fig58 = _cert("psa.fig58_transfer_function_is_high_pass")
    broken = fig58.check(ctx, filt=th.fig58_transfer_function(), corrected=th.fig58_transfer_function())
    assert broken.verdict is Verdict.ERROR
    table50 = _cert("psa.table50_crossover_ratio_column")
    assert table50.run(ctx).verdict is Verdict.MISMATCH
    monkeypatch.setattr(th, "CROSSOVER_FACTOR", sp.Integer(7))
    assert table50.run(ctx).verdict is Verdict.ERROR


def test_induction_task_has_one_earlier_occurrence_of_the_query():
    tokens, p = ops.induction_task(3, batch=500, T=12, vocab=20)
    query = tokens[:, -1]
    hits = tokens[:, :-1] == query[:, None]
    assert np.all(hits.sum(axis=1) == 1)
    assert np.array_equal(np.argmax(hits, axis=1), p)
    assert p.max() <= 12 - 3


def test_annealed_bound_is_below_the_monte_carlo_mass():
    """The bound's value at sigma_t = 2 sits below the solver's A(gamma) (a direct, looser check)."""
    bound = sp.lambdify(th.gamma, th.annealed_mass_lower_bound(64, sp.log(13), th.gamma, 2), "math")
    from attncert.solvers.backend import get_backend

    masses = sm.softmax_mass_mc(
        get_backend("numpy"), sm.ScoreModel(), d_ks=(64,), Ts=(15,), gammas=(0.6, 0.8), trials=4096, seed=1
    )
    for gam, mass in zip((0.6, 0.8), np.asarray(masses)[0, 0], strict=True):
        assert bound(gam) <= mass + 4 * 0.5 / math.sqrt(4096)
