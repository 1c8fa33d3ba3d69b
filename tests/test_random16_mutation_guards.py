"""Guards from the sixteenth random mutation set (benchmarks/mutations_random16.toml): facts that
no test pinned until a mutant of the line survived."""

import math

import numpy as np
import pytest
import sympy as sp

from attncert.certificates.engine.evidence import holds_exactly
from attncert.solvers import grades as gs
from attncert.solvers import plga as splga
from attncert.solvers import psa_operators as ops
from attncert.solvers.backend import get_backend
from attncert.theory import exact
from attncert.theory import plga as tplga

_SOLVERS = {
    "exact": lambda a, t, c: gs.solve_clipped(a, t, c),
    "unclipped": lambda a, t, c: gs.solve_unclipped(a, t),
    "lbfgsb": lambda a, t, c: gs.solve_lbfgsb(a, t, c),
    "regularized": lambda a, t, c: gs.solve_regularized(a, t, 1e-3, math.log(2.0), c),
}


_OUTSIDE = {
    "tau-zero": ([0.5, 0.5], [1.0, 0.0], 2.0, "tau > 0"),  # ln tau = -inf: the objective is undefined
    "tau-negative": ([0.5, 0.5], [1.0, -0.5], 2.0, "tau > 0"),
    "alpha-negative": ([0.5, -0.1], [0.5, 0.5], 2.0, "alpha >= 0"),
    "alpha-all-zero": ([0.0, 0.0], [0.5, 0.5], 2.0, "not all zero"),
    "clip-below-one": ([0.5, 0.5], [0.5, 0.5], 0.99, "the clip C must be a finite number >= 1"),
}


@pytest.mark.parametrize(
    ("solver", "case"),
    [(s, c) for s in sorted(_SOLVERS) for c in _OUTSIDE if not (s == "unclipped" and c == "clip-below-one")],
)
def test_every_solver_refuses_profiles_outside_its_domain(solver, case):
    """The program needs alpha >= 0 (not all zero), tau > 0 and C >= 1 (gllm.md §1.9); the zero policy
    of the CLI runs before the solvers, so a solver that meets a zero of tau must refuse it, not solve.
    (The unclipped program has no C.)"""
    alpha, tau, clip, message = _OUTSIDE[case]
    with pytest.raises(ValueError, match=message):
        _SOLVERS[solver](np.array(alpha), np.array(tau), clip)


def test_a_clip_of_exactly_one_is_admitted():
    """C = 1 is the edge of the domain: the box is the single grading g = 1."""
    sol = gs.solve_clipped(np.array([0.2, 0.8]), np.array([0.6, 0.4]), 1.0)
    np.testing.assert_array_equal(sol.g, [1.0, 1.0])


def test_the_induction_task_draws_the_other_tokens_from_the_whole_vocabulary_without_the_query():
    """Every token but the two copies of A is uniform over the vocab - 1 tokens other than A: each of
    them, the largest included, has frequency 1/(vocab - 1) (to 5 s.e.), and A never appears there."""
    batch, T, vocab = 20000, 6, 5
    tokens, p = ops.induction_task(3, batch=batch, T=T, vocab=vocab)
    query = tokens[:, -1]
    others = np.ones(tokens.shape, dtype=bool)
    others[np.arange(batch), p] = False
    others[:, -1] = False
    rank = tokens - (tokens > query[:, None])  # the token's index in the vocabulary without A
    assert not (tokens[others] == np.broadcast_to(query[:, None], tokens.shape)[others]).any()
    counts = np.bincount(rank[others], minlength=vocab)
    assert counts[-1] == 0  # ranks run over 0..vocab - 2 only
    freq, expected = counts[:-1] / others.sum(), 1 / (vocab - 1)
    assert np.all(np.abs(freq - expected) < 5 * math.sqrt(expected * (1 - expected) / others.sum()))
    assert set(tokens[others].tolist()) == set(range(vocab))


def test_bilinear_scores_with_no_taps_are_the_plain_score_of_prop_1():
    """gamma_q = gamma_k = 0 is the (0, 0) score s_j = x_{T-1}^T W x_j; both taps must be passed."""
    backend = get_backend("numpy")
    rng = np.random.default_rng(1)
    x, head = rng.standard_normal((2, 5, 3)), rng.standard_normal((3, 3))
    got = backend.to_numpy(ops.bilinear_induction_scores(backend, x, head, 0.0, 0.0))
    np.testing.assert_allclose(got, np.einsum("bd,de,bje->bj", x[:, -1], head, x[:, :-1]), rtol=1e-13)
    with pytest.raises(TypeError):
        ops.bilinear_induction_scores(backend, x, head, 0.0)


@pytest.mark.parametrize("dk", [0, -2, 3, 5, 2.5, True, False, math.nan, math.inf, sp.Rational(9, 2)])
def test_rope_refuses_a_width_that_is_not_a_positive_even_integer(dk):
    """RoPE rotates coordinate pairs (eq. 4.1): an odd d_k has no RoPE, and both layers say so."""
    for rope_frequencies in (tplga.rope_frequencies, splga.rope_frequencies):
        with pytest.raises(ValueError, match="RoPE needs d_k a positive even integer"):
            rope_frequencies(dk)


def test_rope_planes_counts_the_pairs():
    assert [tplga.rope_planes(dk) for dk in (2, 4, 64, sp.Integer(8))] == [1, 2, 32, 4]
    assert len(splga.rope_frequencies(6)) == 3


@pytest.mark.parametrize(
    "size",
    [sp.Symbol("d", integer=True, positive=False), sp.Symbol("d", positive=True), sp.Symbol("d", integer=True), sp.Symbol("d")],
    ids=["nonpositive-integer", "positive-real", "any-integer", "no-assumption"],
)
def test_matrix_identity_refuses_sizes_not_declared_positive_integers(size):
    """A matrix identity 'for every size' proved over sizes declared otherwise proves it over sizes no
    matrix has (set 16: Lemma 5.11 (iv) and Cor 7.1 stayed PROVED with d declared nonpositive)."""
    A = sp.MatrixSymbol("A", size, size)
    decision = exact.matrix_identity(A * sp.Identity(size) - A, "A I - A")
    assert not decision.holds
    assert "not declared positive integers" in decision.how


def test_matrix_identity_proves_over_positive_integer_sizes():
    n, m = sp.Symbol("n", integer=True, positive=True), sp.Symbol("m", integer=True, positive=True)
    A, B = sp.MatrixSymbol("A", n, m), sp.MatrixSymbol("B", m, n)
    assert exact.matrix_identity((A * B).T - B.T * A.T, "(A B)^T - B^T A^T").holds
    assert not exact.matrix_identity(A * B - (A * B).T, "A B - (A B)^T").holds


def _holds(facts) -> dict[str, bool]:
    return {name: holds_exactly(value) for name, value in facts}


def test_zero_band_induction_proves_the_band_of_the_powers():
    """(N^k)_ij = 0 for j < i + k when N_ij = 0 for j < i + 1: base, step, diagonal and k >= 1 all hold."""
    assert all(_holds(tplga.zero_band_induction(lambda k: k, 1)).values())


def test_zero_band_induction_rejects_a_band_that_grows_too_fast():
    """A claimed band 2k - 1 has the right base (1) but N^{k+1}'s band is only (2k - 1) + 1 = 2k < 2k + 1: the step
    alone must fail (set 16: a step whose premise read the band of N^{k-1} proved nothing about N^{k+1})."""
    facts = _holds(tplga.zero_band_induction(lambda k: 2 * k - 1, 1))
    assert [name for name, holds in facts.items() if not holds] == [
        "induction step: the zero band of N^{k+1} follows from those of N^k and N"
    ]


def test_softmax_jacobian_facts_tie_the_square_to_the_matrix():
    """Lemma 5.6: x^T J x is checked against diag(p) - p p^T, the square sum p_i (x_i - m)^2 is the one the
    PSD fact reads, and the two agree at m = sum p_i x_i (set 16: the PSD fact's own m went unchecked)."""
    facts = dict(tplga.softmax_jacobian_lemma())
    assert facts["x^T J x = sum_i p_i x_i^2 - (sum_i p_i x_i)^2 (the matrix at n = 3)"] == 0
    assert facts["x^T J x = sum p_i (x_i - m)^2 at m = sum_i p_i x_i when sum p_i = 1"] == 0
    assert facts["PSD: sum p_i (x_i - m)^2 >= 0 for p_i >= 0 and real x and m"] is sp.true


def test_softmax_shift_identities_hold_for_every_complex_shift():
    """Prop 5.2 (iii) 'if': the shift c carries no assumption, so the proof covers every complex c, the real
    shifts of the claim included (set 16: c declared nonreal left the facts green, proving them only for
    shifts the claim is not about)."""
    facts = tplga.softmax_shift_lemma(lambda z, c: z + c)
    assert all(_holds(facts).values())
    # a shift that is not common to every entry is caught by the same facts
    assert not all(_holds(tplga.softmax_shift_lemma(lambda z, c: 2 * z + c)).values())
