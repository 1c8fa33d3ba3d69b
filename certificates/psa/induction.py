"""Prop 1 / Rem 2 on a synthetic induction task, and Eq. 36 (psa.md §2.2).

The task generator is reconstructed here (the paper's is not in the dump): see
``solvers.psa_operators.induction_task``."""

from __future__ import annotations

import math

import numpy as np

from attncert.certificates.engine.evidence import within
from attncert.certificates.engine.model import Context, Evidence, Method, Mutant, Provenance, Verdict
from attncert.certificates.engine.registry import certificate
from attncert.certificates.psa import claim
from attncert.solvers import psa_operators as ops
from attncert.solvers.backend import get_backend

PROP1_TASK = {"batch": 10_000, "T": 15, "vocab": 64, "d": 32}
RANDOM_HEADS = 4


@certificate(
    "psa.one_layer_bilinear_score_fails_induction",
    claim=claim(
        "Prop 1; Rem 2",
        "a one-layer bilinear score of joint order (0, 0) cannot carry key-side order, so it fails induction: on a "
        "synthetic induction task (reconstructed: T = 15, vocabulary 64, d = 32, 10,000 seeded sequences) its target "
        "accuracy is at most the cap 1/(T-2) for every head W (identity, its negative and 4 random Gaussian heads; "
        "tolerance 4 s.e.), and the matching head W = I scores below chance 1/(T-1) because the previous-token "
        "position (the earlier occurrence of the query token) takes the argmax (>= 95% of sequences)",
        Provenance.RECONSTRUCTED,
        "Prop 1",
    ),
    method=Method.MONTE_CARLO,
    expected=Verdict.VERIFIED,
    params={"gamma_k": 0.0},
    mutant=Mutant("restore key-side order: the key-only shear (0, 1) with gamma_k = 1", {"gamma_k": 1.0}),
    tags=("prop1", "induction"),
)
def bilinear_fails_induction(ctx: Context, *, gamma_k) -> Evidence:
    backend = get_backend(ctx.backend)
    xp = backend.xp
    batch, T, vocab, d = (PROP1_TASK[k] for k in ("batch", "T", "vocab", "d"))
    rng = np.random.Generator(np.random.PCG64(ctx.seed))
    embeddings = rng.standard_normal((vocab, d)) / math.sqrt(d)
    tokens, p = ops.induction_task(ctx.seed, batch=batch, T=T, vocab=vocab)
    x = backend.asarray(embeddings[tokens])
    heads = {"identity": np.eye(d), "negative identity": -np.eye(d)}
    heads |= {f"random {i}": rng.standard_normal((d, d)) for i in range(RANDOM_HEADS)}
    cap, chance = 1 / (T - 2), 1 / (T - 1)
    accuracy, previous_token = {}, 0.0
    for name, head in heads.items():
        scores = ops.bilinear_induction_scores(backend, x, backend.asarray(head), gamma_k, gamma_q=0.0)  # no query tap
        winner = backend.to_numpy(xp.argmax(scores, axis=1))
        accuracy[name] = float(np.mean(winner == p + 1))
        if name == "identity":
            previous_token = float(np.mean(winner == p))
    se = math.sqrt(cap * (1 - cap) / batch)
    excess = max(max(accuracy.values()) - cap - 4 * se, 0.95 - previous_token, accuracy["identity"] - chance, 0.0)
    return within(
        excess,
        tolerance=0.0,
        what=(
            f"max target accuracy {max(accuracy.values()):.4f} vs cap 1/(T-2) = {cap:.4f} + 4 s.e.; W = I: accuracy "
            f"{accuracy['identity']:.4f} < chance {chance:.4f}, argmax at the previous-token position {previous_token:.3f}"
        ),
        measured=accuracy,
        reference={"cap": cap, "chance": chance},
        details={"previous_token_argmax_identity": previous_token, "task": PROP1_TASK, "provenance": "reconstructed task"},
    )


@certificate(
    "psa.query_only_shear_is_capped_at_one_over_T_minus_2",
    claim=claim(
        "Cor 68",
        "the query-only operator (1, 0) still has key-side order 0, so its induction accuracy is capped at 1/(T-2) "
        "(1/13 = 0.077 at T = 15) and the cap is attained: on the reconstructed synthetic task (as for Prop 1) the "
        "largest accuracy over gamma_q in {0.5, 2} and the heads +-I and 2 random Gaussian heads is within 4 s.e. "
        "of 1/(T-2), never above it",
        Provenance.RECONSTRUCTED,
        "Cor 68",
    ),
    method=Method.MONTE_CARLO,
    expected=Verdict.VERIFIED,
    params={"gamma_k": 0.0},
    mutant=Mutant("a key-side tap as well (the symmetric operator, gamma_k = gamma_q)", {"gamma_k": None}),
    tags=("cor68", "induction"),
)
def query_only_cap(ctx: Context, *, gamma_k) -> Evidence:
    backend = get_backend(ctx.backend)
    xp = backend.xp
    batch, T, vocab, d = (PROP1_TASK[k] for k in ("batch", "T", "vocab", "d"))
    rng = np.random.Generator(np.random.PCG64(ctx.seed + 1))
    embeddings = rng.standard_normal((vocab, d)) / math.sqrt(d)
    tokens, p = ops.induction_task(ctx.seed + 1, batch=batch, T=T, vocab=vocab)
    x = backend.asarray(embeddings[tokens])
    heads = {"identity": np.eye(d), "negative identity": -np.eye(d)}
    heads |= {f"random {i}": rng.standard_normal((d, d)) for i in range(2)}
    accuracy = {}
    for gamma_q in (0.5, 2.0):
        key_gamma = gamma_q if gamma_k is None else gamma_k
        for name, head in heads.items():
            scores = ops.bilinear_induction_scores(backend, x, backend.asarray(head), key_gamma, gamma_q)
            winner = backend.to_numpy(xp.argmax(scores, axis=1))
            accuracy[f"{name}, gamma_q = {gamma_q}"] = float(np.mean(winner == p + 1))
    cap = 1 / (T - 2)
    se = math.sqrt(cap * (1 - cap) / batch)
    best = max(accuracy.values())
    return within(
        abs(best - cap) / se,
        tolerance=4.0,
        what=f"|max accuracy {best:.4f} - cap 1/(T-2) = {cap:.4f}| / s.e.",
        measured=accuracy,
        reference=cap,
        details={"task": PROP1_TASK, "provenance": "reconstructed task"},
    )
