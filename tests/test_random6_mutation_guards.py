"""Guards found by the sixth random mutation set (issue 11, benchmarks/mutations_random6.toml, seed
20261206): each test pins what a survivor of that set changed, against an independent computation."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from attncert.solvers.plga import sdpa
from attncert.theory import plga as tp


def _sdpa_mpmath(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Causal softmax(Q K^T / sqrt(d_k)) V at 40 digits, written from Eq. 7 alone."""
    S, dk = q.shape
    out = np.empty_like(v)
    with mpmath.workdps(40):
        for i in range(S):
            logits = [
                mpmath.fsum(mpmath.mpf(float(a)) * float(b) for a, b in zip(q[i], k[j], strict=True)) / mpmath.sqrt(dk)
                for j in range(i + 1)
            ]
            weights = [mpmath.exp(x) for x in logits]
            total = mpmath.fsum(weights)
            out[i] = [float(mpmath.fsum(w / total * float(v[j, c]) for j, w in enumerate(weights))) for c in range(v.shape[1])]
    return out


def test_reference_sdpa_survives_logits_beyond_the_exponent_range():
    """Logits of order 10^3 (exp overflows past 709): the reference attention of Thm 5.4 (i) must
    shift by the row maximum, as every softmax here does; the mutant `+ max` gave nan."""
    rng = np.random.default_rng(6)
    q, k, v = 30 * rng.normal(size=(5, 4)), 30 * rng.normal(size=(5, 4)), rng.normal(size=(5, 3))
    got = sdpa(q, k, v)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, _sdpa_mpmath(q, k, v), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "thetas",
    [
        [sp.Integer(0)],
        [sp.pi],
        [sp.pi / 2],
        [sp.Integer(0), sp.pi],
        [sp.Integer(0), sp.pi / 3, sp.pi],
        [sp.pi / 3, sp.pi / 3, sp.Integer(1)],
        # repeated planes with R = +-I, and equal cosines of different angles (theta, -theta, 2 pi - theta,
        # theta + 2 pi): each block pair with one cosine counts, 4 where the sine vanishes (set 13)
        [sp.Integer(0), sp.Integer(0)],
        [sp.pi, sp.pi],
        [sp.pi / 3, -sp.pi / 3],
        [sp.pi / 3, 5 * sp.pi / 3],
        [sp.pi / 2, 5 * sp.pi / 2],
    ],
)
def test_commutant_dimension_is_the_nullity_of_the_commutator_map(thetas):
    """dim {G : G R = R G} for R = (+)_j Rot(theta_j), against the exact nullity of
    G -> R G - G R, i.e. of I (x) R - R^T (x) I: a block with sin theta = 0 (R = +-I) contributes 4,
    which no RoPE angle reaches, so only this test reads that branch."""
    R = sp.diag(*(tp.rotation(t) for t in thetas))
    size = R.shape[0]
    commutator = sp.kronecker_product(sp.eye(size), R) - sp.kronecker_product(R.T, sp.eye(size))
    assert tp.commutant_dimension(list(thetas)) == size * size - commutator.rank(simplify=True)
