"""Float operators of PSA on the array backend: shear matrices at full head width, the
sheared streams, and causal attention computed in full or incrementally with a KV cache
(Props 73, 76). Conventions: psa.md §1.1-§1.3 (p_0 = 0, so x~_0 = x_0)."""

from __future__ import annotations

from typing import Any

from array_api_compat import device

from attncert.solvers.backend import Backend


def kron_block(backend: Backend, block: list[list[float]], dk: int) -> Any:
    """kron(block, I_dk) for a 2x2 ``block``, built exactly (entries are copies of block's)."""
    xp = backend.xp
    eye = backend.asarray(xp.eye(dk, dtype=xp.float64))
    rows = [xp.concat([block[r][0] * eye, block[r][1] * eye], axis=1) for r in range(2)]
    return xp.concat(rows, axis=0)


def shear_matrix(backend: Backend, gamma: float, dk: int) -> Any:
    """M_gamma = [[I, gamma I], [0, I]] in float64, shape (2 dk, 2 dk)."""
    return kron_block(backend, [[1.0, gamma], [0.0, 1.0]], dk)


def symplectic_matrix(backend: Backend, dk: int) -> Any:
    """J = [[0, I], [-I, 0]] in float64."""
    return kron_block(backend, [[0.0, 1.0], [-1.0, 0.0]], dk)


def block_diag(backend: Backend, a: Any, b: Any) -> Any:
    """a (+) b: the block-diagonal matrix of two 2-D arrays, on ``a``'s device."""
    xp = backend.xp
    za = xp.zeros((a.shape[0], b.shape[1]), dtype=xp.float64, device=device(a))
    zb = xp.zeros((b.shape[0], a.shape[1]), dtype=xp.float64, device=device(a))
    return xp.concat([xp.concat([a, za], axis=1), xp.concat([zb, b], axis=1)], axis=0)


def symplectic_residual(backend: Backend, m: Any, j: Any) -> float:
    """max |M^T J M - J| (exactly 0.0 for a shear: entries are 0, +-1, +-gamma)."""
    xp = backend.xp
    return float(xp.max(xp.abs(m.T @ j @ m - j)))


def sheared_stream(backend: Backend, x: Any, gamma: float) -> Any:
    """x~_t = x_t + gamma (x_t - x_{t-1}) along axis 0, with p_0 = 0."""
    xp = backend.xp
    prev = xp.concat([x[:1], x[:-1]], axis=0)
    return x + gamma * (x - prev)


def _softmax_rows(backend: Backend, s: Any) -> Any:
    xp = backend.xp
    s = s - xp.max(s, axis=-1, keepdims=True)
    e = xp.exp(s)
    return e / xp.sum(e, axis=-1, keepdims=True)


def causal_attention(backend: Backend, q: Any, k: Any, v: Any, gamma_q: float, gamma_k: float) -> Any:
    """PSA(Q, K, V) = Attn(Q~, K~, V) with a causal mask, recomputed over the whole sequence."""
    xp = backend.xp
    qs, ks = sheared_stream(backend, q, gamma_q), sheared_stream(backend, k, gamma_k)
    T = q.shape[0]
    scores = qs @ ks.T / q.shape[1] ** 0.5
    idx = xp.arange(T)
    mask = idx[None, :] > idx[:, None]
    scores = xp.where(mask, xp.asarray(-float("inf"), dtype=xp.float64), scores)
    return _softmax_rows(backend, scores) @ v


def incremental_decode(
    backend: Backend,
    q: Any,
    k: Any,
    v: Any,
    gamma_q: float,
    gamma_k: float,
    *,
    carry_previous: bool = True,
) -> Any:
    """Token-by-token decoding with a KV cache of *sheared* keys (Prop 73).

    The only extra persistent state is the previous raw q and k. ``carry_previous=False``
    drops that state (p_t = 0 at every step): the negative control of Prop 73.
    """
    xp = backend.xp
    keys, values, outputs = [], [], []
    q_prev = k_prev = None
    for t in range(q.shape[0]):
        qt, kt = q[t], k[t]
        qp = q_prev if (carry_previous and q_prev is not None) else qt
        kp = k_prev if (carry_previous and k_prev is not None) else kt
        keys.append(kt + gamma_k * (kt - kp))
        values.append(v[t])
        q_tilde = qt + gamma_q * (qt - qp)
        scores = xp.stack(keys) @ q_tilde / q.shape[1] ** 0.5
        outputs.append(_softmax_rows(backend, scores[None, :])[0] @ xp.stack(values))
        q_prev, k_prev = qt, kt
    return xp.stack(outputs)


def induction_task(seed: int, *, batch: int, T: int, vocab: int) -> tuple[Any, Any]:
    """Synthetic induction sequences for Prop 1 [R?: reconstructed, the paper's task generator is not
    in the dump]: T tokens from a vocabulary of ``vocab``; the last token (the query A) occurs exactly
    once earlier, at a uniform position p in [0, T - 3]; the target is p + 1, the token after A's earlier
    occurrence. Every other token is uniform over the vocabulary without A. Returns (tokens, p),
    numpy arrays of shapes (batch, T) and (batch,)."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, T, vocab])))
    query = rng.integers(0, vocab, size=batch)
    others = rng.integers(0, vocab - 1, size=(batch, T))
    tokens = others + (others >= query[:, None])  # uniform over the vocabulary without A
    p = rng.integers(0, T - 2, size=batch)
    rows = np.arange(batch)
    tokens[rows, p] = query
    tokens[:, -1] = query
    return tokens, p


def bilinear_induction_scores(backend: Backend, x: Any, head: Any, gamma_k: float, gamma_q: float) -> Any:
    """One-layer bilinear scores of the query (last token) against the T - 1 earlier keys,
    s_j = q~^T W k~_j with the query-side shear q~ = (1 + gamma_q) x_{T-1} - gamma_q x_{T-2} and the key-side
    shear k~_j of order (0, 1): ``gamma_q = gamma_k = 0`` is the plain (0, 0) score of Prop 1, ``gamma_k = 0``
    the query-only operator of Cor 68. ``x``: embedded sequences (batch, T, d). Shape (batch, T - 1).
    Both taps are required: a default would decide silently which operator a caller certifies."""
    xp = backend.xp
    query = (x[:, -1, :] + gamma_q * (x[:, -1, :] - x[:, -2, :])) @ head  # (batch, d)
    raw = (x[:, :-1, :] @ query[:, :, None])[:, :, 0]  # s_j = q~^T W k_j, (batch, T - 1)
    previous = xp.concat([raw[:, :1], raw[:, :-1]], axis=1)  # p_0 = 0 (psa.md §1.1)
    return raw + gamma_k * (raw - previous)  # the score is linear in the key: q~^T W k~_j = (1 + g) s_j - g s_{j-1}
