"""The reduced score model G(d_k, T; gamma) of PSA Def. 62 and its Monte Carlo engine.

Model (psa.md §1.7): one target and m = T - 2 distractors. In the default ``t4`` variant the
target score is gamma^2 (sqrt(d_k) + sigma_t Z_0) and each distractor score is gamma^2 * 2 Z_j,
all Z standard normal. Every variant has the form

    target     = mu(gamma) + (sigma_t / 2) * s(gamma) * Z_0
    distractor = s(gamma) * Z_j

so sigma_t = 2 gives the target the distractors' variance. The observable is the expected target
softmax mass A(gamma) = E[softmax(s)_target] = E[expit(target - logsumexp_j distractor_j)].

Engine. The distractor term logsumexp_j s(gamma) Z_j does not depend on d_k, so for each seed the
draws are made once (common random numbers across the gamma grid, across d_k and across T: the T
points use the first m distractor columns) and every (d_k, T, gamma) is evaluated from them.
Draws come from numpy's PCG64 on the host, per (seed, chunk), so every backend sees the same
numbers and the same seed gives bit-identical results on the same backend.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attncert.solvers.backend import Backend

VARIANTS: tuple[str, ...] = ("t4", "t3t4", "key-only")
CHUNK_TRIALS = 16_384  # part of the protocol: draws are seeded per (seed, chunk)


@dataclass(frozen=True)
class ScoreModel:
    """G(d_k, T; gamma) with target noise ``sigma_t`` ([R?], default 2) and a score variant.

    ``t4``: the T4-only Gaussian reduction (Thm 64). ``t3t4``: the T3-restored model, target
    gamma (1 + gamma) sqrt(d_k), distractor variance 2 gamma^2 ((1 + gamma)^2 + gamma^2).
    ``key-only``: target gamma sqrt(d_k), distractor variance 2 gamma^2 (Cor 69, [R?]).
    """

    sigma_t: float = 2.0
    variant: str = "t4"

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {self.variant!r}")
        if not (math.isfinite(self.sigma_t) and self.sigma_t >= 0):
            raise ValueError(f"sigma_t must be a finite number >= 0, not {self.sigma_t!r}")

    def target_mean(self, gamma: float, d_k: float) -> float:
        if self.variant == "t4":
            return gamma**2 * math.sqrt(d_k)
        if self.variant == "t3t4":
            return gamma * (1 + gamma) * math.sqrt(d_k)
        return gamma * math.sqrt(d_k)

    def distractor_sd(self, gamma: float) -> float:
        if self.variant == "t4":
            return 2 * gamma**2
        if self.variant == "t3t4":
            return gamma * math.sqrt(2 * ((1 + gamma) ** 2 + gamma**2))
        return gamma * math.sqrt(2)


def chance(T: int) -> float:
    """A(0) = 1/(T - 1): T - 1 candidates, all scores equal."""
    return 1.0 / (T - 1)


def _draws(seed: int, chunk: int, trials: int, width: int) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, chunk])))
    return rng.standard_normal((trials, width))


def _chunks(trials: int) -> list[tuple[int, int]]:
    return [(i, min(CHUNK_TRIALS, trials - start)) for i, start in enumerate(range(0, trials, CHUNK_TRIALS))]


def _logsumexp_columns(xp: Any, x: Any) -> Any:
    top = xp.max(x, axis=0)
    return top + xp.log(xp.sum(xp.exp(x - top), axis=0))


def nested_logsumexp(xp: Any, x: Any, ms: Sequence[int]) -> dict[int, Any]:
    """logsumexp over the first m rows of ``x`` (distractors x trials), for each m in ``ms``
    (sorted), sharing one exponential per entry: one shift by the column maximum, then prefix
    sums. A prefix whose sum underflows (its own maximum far below the column's) is recomputed
    exactly with its own shift. Rows are distractors so that every reduction is a contiguous,
    vectorised sum of whole rows."""
    top = xp.max(x, axis=0)
    e = xp.exp(x - top)
    out, partial, start = {}, None, 0
    for m in ms:
        block = xp.sum(e[start:m], axis=0)
        partial = block if partial is None else partial + block
        start = m
        with np.errstate(divide="ignore"):  # log 0 of an underflowed prefix, replaced just below
            logs = top + xp.log(partial)
        underflow = partial <= 1e-290
        if bool(xp.any(underflow)):
            logs = xp.where(underflow, _logsumexp_columns(xp, x[:m]), logs)
        out[m] = logs
    return out


GROUP_SPAN = 600.0


def _mean_groups(means: Sequence[float]) -> list[list[int]]:
    """Indices of ``means`` grouped so that each group spans at most GROUP_SPAN (a difference of means):
    taken in increasing order, a mean opens a new group only when it lies more than GROUP_SPAN above the
    current group's first (smallest) mean, so that one exponential per trial serves as many as it can.

    Within a group, e^{ref - mu} lies in [e^-300, e^300], so q * e^{ref - mu} is exact to
    rounding wherever the target mass is not 0 or 1 to double precision: an overflow of q
    (or of the product) only happens where the mass is below e^-300, an underflow only where
    it is above 1 - e^-300.
    """
    order = sorted(range(len(means)), key=lambda i: means[i])
    groups: list[list[int]] = []
    for i in order:
        if groups and means[i] - means[groups[-1][0]] <= GROUP_SPAN:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def softmax_mass_mc(
    backend: Backend,
    model: ScoreModel,
    *,
    d_ks: Sequence[int],
    Ts: Sequence[int],
    gammas: Sequence[float],
    trials: int,
    seed: int,
    on_chunk: Callable[[], None] | None = None,
) -> np.ndarray:
    """Monte Carlo A(gamma) for one seed, shape (len(d_ks), len(Ts), len(gammas)).

    Trials are processed in chunks of CHUNK_TRIALS; partial sums are added in a fixed order, so
    peak memory is a few chunks of draws whatever the trial count (see ``replicate_bytes``).
    ``on_chunk()`` is called after each gamma of each chunk (progress; it may raise to cancel).
    """
    if trials < 1:
        raise ValueError(f"trials must be >= 1, not {trials}")
    if min(Ts) < 3:
        raise ValueError(f"T must be >= 3 (one target and at least one distractor), not {min(Ts)}")
    ms = sorted({T - 2 for T in Ts})
    width = 1 + max(ms)
    sums = np.zeros((len(d_ks), len(Ts), len(gammas)))
    # q * factor overflows to inf exactly where the mass is 0; log(0) of an underflowed prefix sum
    # is replaced by its exact recomputation (nested_logsumexp)
    with np.errstate(over="ignore", divide="ignore"):
        _accumulate(
            backend, model, sums, d_ks=d_ks, Ts=Ts, ms=ms, gammas=gammas, trials=trials, seed=seed, width=width, on_chunk=on_chunk
        )
    return sums / trials


def replicate_bytes(trials: int, Ts: Sequence[int]) -> int:
    """Peak working memory of one Monte Carlo replicate: the chunk's draws, their transposed copy,
    the scaled distractor scores and their exponentials (chunk x (T_max - 1) doubles each), plus
    a few per-trial vectors."""
    chunk = min(trials, CHUNK_TRIALS)
    return 8 * chunk * (4 * (max(Ts) - 1) + 16)


def chunk_count(trials: int) -> int:
    """The number of chunks of at most CHUNK_TRIALS trials that ``trials`` is drawn in."""
    return -(-trials // CHUNK_TRIALS)


def _accumulate(backend, model, sums, *, d_ks, Ts, ms, gammas, trials, seed, width, on_chunk=None) -> None:
    """Add the target masses of every (d_k, T, gamma) over all chunks into ``sums``."""
    xp = backend.xp
    for chunk, n in _chunks(trials):
        z = backend.asarray(np.ascontiguousarray(_draws(seed, chunk, n, width).T))
        z0, zd = z[0], z[1:]
        for g_i, gamma in enumerate(gammas):
            if on_chunk is not None:
                on_chunk()
            sd = model.distractor_sd(gamma)
            if sd == 0.0:  # gamma = 0: every score is 0, A = 1/(T - 1) exactly
                sums[:, :, g_i] += n * np.array([chance(T) for T in Ts])[None, :]
                continue
            log_s = nested_logsumexp(xp, sd * zd, ms)
            noise = (model.sigma_t / 2) * sd * z0
            means = [model.target_mean(gamma, d_k) for d_k in d_ks]
            for t_i, T in enumerate(Ts):
                base = noise - log_s[T - 2]
                for group in _mean_groups(means):
                    # expit(mu_d + base) = 1/(1 + q e^{ref - mu_d}) with q = e^{-(base + ref)}:
                    # one exponential per trial serves every d_k of the group (see _mean_groups)
                    ref = 0.5 * (means[group[0]] + means[group[-1]])
                    q = xp.exp(-(base + ref))
                    for d_i in group:
                        factor = math.exp(ref - means[d_i])
                        sums[d_i, t_i, g_i] += float(xp.sum(1.0 / (1.0 + q * factor)))


def argmax_plateau_mc(backend: Backend, *, d_k: float, T: int, sigma_t: float, trials: int, seed: int) -> float:
    """Direct argmax Monte Carlo of p_inf: P(sqrt(d_k) + sigma_t Z_0 > 2 max_j Z_j), m = T - 2.

    This is the gamma -> infinity limit of A in the T4 model, where softmax mass and the argmax
    indicator coincide (Thm 64 (1)); C7 checks the quadrature of Eq. 51 against it."""
    xp = backend.xp
    wins = 0
    for chunk, n in _chunks(trials):
        z = backend.asarray(np.ascontiguousarray(_draws(seed, chunk, n, T - 1).T))
        target = math.sqrt(d_k) + sigma_t * z[0]
        wins += int(xp.sum(xp.astype(target > 2 * xp.max(z[1:], axis=0), xp.int64)))
    return wins / trials
