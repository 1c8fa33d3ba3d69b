"""Guards found by the fifth random mutation set (issue 11, benchmarks/mutations_random5.toml, seed
20261205): each test pins what a survivor of that set changed, against the spec, an independent
computation or the project's stated conventions."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import pkgutil

import numpy as np
import pytest

import attncert.solvers
import attncert.theory
from attncert.solvers import gllm_models, grades
from attncert.solvers.plga import PLDRDecoder, causal_softmax


def _dataclasses_of(package) -> list[type]:
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found += [
            obj
            for _, obj in inspect.getmembers(module, inspect.isclass)
            if obj.__module__ == module.__name__ and dataclasses.is_dataclass(obj)
        ]
    return found


DATACLASSES = _dataclasses_of(attncert.theory) + _dataclasses_of(attncert.solvers)


@pytest.mark.parametrize("cls", DATACLASSES, ids=lambda c: c.__qualname__)
def test_every_dataclass_of_theory_and_solvers_is_frozen(cls):
    """Results and configurations are frozen (the project's convention: scipy's small frozen result), so a
    result cannot be edited after its certificate read it and an executor's settings are fixed."""
    assert cls.__dataclass_params__.frozen, f"{cls.__qualname__} is not frozen"


def test_the_dataclass_census_is_not_empty():
    """The frozen-ness test above must have something to check: the solvers' results and executors."""
    assert {"ClippedSolution", "LocalExecutor", "PLDRDecoder", "ScoreModel"} <= {c.__name__ for c in DATACLASSES}


def test_level_ffn_refuses_a_level_without_its_ffn():
    """Sec. 4.5: one GeGLU FFN per level subspace; a missing FFN must not silently drop a level."""
    rng = np.random.default_rng(20261205)
    bases = [np.linalg.qr(rng.normal(size=(4, 4)))[0][:, :2], np.linalg.qr(rng.normal(size=(4, 4)))[0][:, 2:]]
    with pytest.raises(ValueError):
        gllm_models.level_ffn(rng.normal(size=(3, 4)), bases, [lambda h: h])


@pytest.mark.parametrize(
    ("alpha", "tau"),
    [([0.5, 0.3, 0.2], [0.1, 0.2, 0.7]), ([2.0, 3.0, 5.0], [7.0, 1.0, 2.0]), ([0.6, 0.4, 0.0], [0.1, 0.2, 0.7])],
)
def test_unclipped_closed_form_is_the_squared_bhattacharyya_coefficient(alpha, tau):
    """Prop 7 (iii): the unclipped optimum is BC^2, BC = sum_j sqrt(alpha_j tau_j) over normalised
    profiles (over alpha's support when alpha has zeros, tau not renormalised: gllm.md §4.3 rule 2)."""
    a, t = np.array(alpha) / sum(alpha), np.array(tau) / sum(tau)
    bc_squared = math.fsum(math.sqrt(x * y) for x, y in zip(a, t, strict=True)) ** 2
    solution = grades.solve_unclipped(alpha, tau)
    assert solution.diagnostics["closed_form"] == pytest.approx(bc_squared, rel=1e-13)
    assert solution.value == pytest.approx(bc_squared, rel=1e-13)


def test_reference_decoder_has_the_sizes_it_was_asked_for():
    """The Def 4.3 reference decoder's sizes are the caller's (the certificates state theirs): every
    weight's shape follows from vocab, heads, d_k, layers, d_ff and the metric learner's n_res x a_dff."""
    size = {"vocab": 11, "heads": 3, "dk": 4, "n_layers": 3, "d_ff": 7, "n_res": 2, "a_dff": 5}
    model = PLDRDecoder.random(1, **size)
    d = 3 * 4
    assert model.embed.shape == (11, d) and model.unembed.shape == (d, 11) and model.b_vocab.shape == (11,)
    assert (model.heads, model.dk, len(model.layers)) == (3, 4, 3)
    for layer in model.layers:
        assert {layer[w].shape for w in ("wq", "wk", "wv", "wo")} == {(d, d)}
        assert (layer["w1"].shape, layer["w2"].shape, layer["w3"].shape) == ((d, 7), (d, 7), (7, d))
        assert len(layer["heads"]) == 3 and all(h.W.shape == (4, 4) for h in layer["heads"])
        blocks = layer["phi"].blocks
        assert len(blocks) == 2 and all(unit[0].shape == (4, 5) for unit in blocks)
    assert model(np.array([0, 10, 3, 3])).shape == (4, 11)


@pytest.mark.parametrize(
    ("alpha", "tau"),
    [([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]), ([0.7, 0.2, 0.1], [0.1, 0.3, 0.6]), ([0.4, 0.35, 0.25], [0.3, 0.3, 0.4])],
)
def test_lbfgsb_cross_check_reports_the_canonical_grading(alpha, tau):
    """Lambda is invariant under g -> c g, so a solver must name one minimiser: the canonical one, min g = 1
    (ClippedSolution). With alpha = tau every constant grading is optimal and L-BFGS-B stays at its
    start u = ln C (g = sqrt(C)); it must still report g = 1 and agree with the exact solver's grading."""
    clip = 2.0
    exact = grades.solve_clipped(alpha, tau, clip)
    cross = grades.solve_lbfgsb(alpha, tau, clip)
    assert cross.g.min() == 1.0 and cross.g.max() <= clip
    np.testing.assert_allclose(cross.g, exact.g, rtol=1e-5)
    assert cross.lo.tolist() == exact.lo.tolist() and cross.hi.tolist() == exact.hi.tolist()


@pytest.mark.parametrize("clip", [None, 2.0])
def test_cor4_solution_reports_g_equal_one_exactly_where_it_is(clip):
    """Cor 4's penalised optimum (nu = 0.5, lambda = 2): g = (1.4175, 1.0195, 1) to 4 digits, so only the
    last coordinate sits at the bound g = 1; a grading 2 % above the bound is interior, not at it."""
    sol = grades.solve_regularized(np.array([0.7, 0.2, 0.1]), np.array([0.1, 0.3, 0.6]), 0.5, math.log(2.0), clip)
    np.testing.assert_allclose(sol.g, [1.41749, 1.01948, 1.0], rtol=2e-5)
    assert sol.lo.tolist() == [2] and sol.hi.tolist() == []


def test_cor4_clipped_solution_reports_its_upper_active_set():
    """A bug this set's review found: with a clip, Cor 4's solver reported no coordinate at g = C even
    where the optimum sits there, so ``attncert grades`` printed the active sets "1 / 3 / 0" for a
    profile whose two top levels are clipped. With a tiny penalty the active sets are the exact clipped
    solver's (here g = (1.5, 1.2247, 1): the first coordinate at C = 1.5, the last at 1)."""
    a, t = np.array([0.97, 0.02, 0.01]), np.array([0.01, 0.02, 0.97])
    sol = grades.solve_regularized(a, t, 1e-6, math.log(2.0), 1.5)
    exact = grades.solve_clipped(a, t, 1.5)
    assert (sol.lo.tolist(), sol.hi.tolist()) == (exact.lo.tolist(), exact.hi.tolist()) == ([2], [0])
    np.testing.assert_allclose(sol.g, exact.g, rtol=1e-5)


@pytest.mark.parametrize("shape", [(1, 3), (3, 2), (4,)])
def test_causal_softmax_refuses_scores_that_are_not_square(shape):
    """The causal mask is S x S (queries and keys are the same S tokens): a 1 x 3 row used to come out as an
    unmasked softmax, which no causal reading gives."""
    with pytest.raises(ValueError, match="square"):
        causal_softmax(np.zeros(shape))


@pytest.mark.parametrize(
    ("alpha", "tau", "clip"),
    [
        ([0.4, 0.35, 0.25], [0.3, 0.3, 0.4], 2.0),
        ([0.97, 0.02, 0.01], [0.01, 0.02, 0.97], 1.5),
        ([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], 3.0),
        # alpha_0 = 0 with a heavy tau_0: the optimum lies past the last breakpoint, where k was once
        # clamped to that breakpoint + 1 (set 40)
        ([0.0, 1.0, 1.0], [1000.0, 1.0, 2.0], 2.0),
    ],
)
def test_active_set_threshold_reproduces_the_grading(alpha, tau, clip):
    """The same kind as the closed form above, a diagnostic nothing read: the exact solver's threshold k
    (``diagnostics["log_k"]``) is the spec's k = sqrt(T_0 / A_0) over the reported active sets, and the KKT
    form g_j^2 = clip(k sqrt(alpha_j / tau_j), 1, C^2) (gllm.md §1.9) gives back the grading coordinate by
    coordinate."""
    sol = grades.solve_clipped(alpha, tau, clip)
    a, t = np.array(alpha) / sum(alpha), np.array(tau) / sum(tau)
    a0 = a[sol.lo].sum() + a[sol.hi].sum() / clip**2
    t0 = t[sol.lo].sum() + t[sol.hi].sum() * clip**2
    assert math.exp(sol.diagnostics["log_k"]) == pytest.approx(math.sqrt(t0 / a0), rel=1e-12)
    g_squared = np.clip(math.exp(sol.diagnostics["log_k"]) * np.sqrt(a / t), 1.0, clip**2)
    np.testing.assert_allclose(sol.g, np.sqrt(g_squared), rtol=1e-12)


def test_cross_check_solvers_report_how_they_ended():
    """The cross-check solvers' own diagnostics, which the grades report turns into notes: L-BFGS-B flags a
    run cut by its time limit (its value is then only an upper bound on the exact optimum) and not a run that
    finished; cvxpy reports an optimal status and no warnings on a well-posed profile."""
    alpha, tau = [0.7, 0.2, 0.1], [0.1, 0.3, 0.6]
    exact = grades.solve_clipped(alpha, tau, 2.0).value
    cut = grades.solve_lbfgsb(alpha, tau, 2.0, time_limit_s=0.0)
    assert cut.diagnostics["time_limited"] is True and cut.value >= exact * (1 - 1e-12)
    assert grades.solve_lbfgsb(alpha, tau, 2.0).diagnostics["time_limited"] is False
    assert grades.solve_cvxpy(alpha, tau, 2.0).diagnostics == {"status": "optimal", "warnings": []}
