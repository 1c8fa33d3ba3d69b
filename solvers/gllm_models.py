"""Tiny reference models for GLLM (gllm.md §1.1, §1.3, §1.4): MHSA (Eq. 6-7), EG-MHSA (Eq. 11-12), the
compiled head (Rem 1 / Cor 1) and the level-decomposed FFN (Sec. 4.5).

Arrays are numpy float64, or numpy object arrays of SymPy numbers for exact evaluation (rational weights,
exact square roots and exponentials): the same code path computes both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import sympy as sp


def _exact(a: np.ndarray) -> bool:
    return a.dtype == object


def softmax_rows(scores: np.ndarray, causal: bool) -> np.ndarray:
    """Row softmax with the causal mask (entries j > i get weight 0, Eq. 7) of square n x n self-attention scores."""
    if scores.ndim != 2 or scores.shape[0] != scores.shape[1]:
        raise ValueError(f"scores must be a square n x n matrix (self-attention, Eq. 7), got shape {scores.shape}")
    n = len(scores)  # = scores.shape[1], checked above
    allowed = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    if _exact(scores):
        weights = np.array(
            [
                [sp.exp(s) if ok else sp.Integer(0) for s, ok in zip(row, mask, strict=True)]
                for row, mask in zip(scores, allowed, strict=True)
            ]
        )
        return weights / weights.sum(axis=1, keepdims=True)
    shifted = np.where(allowed, scores - np.max(np.where(allowed, scores, -np.inf), axis=1, keepdims=True), -np.inf)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=1, keepdims=True)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = True) -> np.ndarray:
    """softmax(Q K^T / sqrt(d_k) + M_causal) V (Eq. 7)."""
    d_k = q.shape[1]
    scale = sp.sqrt(d_k) if _exact(q) else np.sqrt(d_k)
    return softmax_rows(q @ k.T / scale, causal) @ v


def head_slices(d_model: int, heads: int) -> list[slice]:
    """The column blocks of W_Q, W_K, W_V (and row blocks of W_O) belonging to each head, d_k = d / H."""
    d_k = d_model // heads
    return [slice(h * d_k, (h + 1) * d_k) for h in range(heads)]


def mhsa(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray, wo: np.ndarray, heads: int) -> np.ndarray:
    """Concat(Head_1..Head_H) W_O with Head_h = Attention(X W_Qh, X W_Kh, X W_Vh) (Eq. 6)."""
    outs = [attention(x @ wq[:, s], x @ wk[:, s], x @ wv[:, s]) for s in head_slices(wq.shape[1], heads)]
    return np.concatenate(outs, axis=1) @ wo


def grading_matrix(grades: Sequence, lam) -> np.ndarray:
    """M_{q,lambda} = diag(lambda^{q_1}, ..., lambda^{q_{d_k}}) (Sec. 3.1)."""
    values = [lam**q for q in grades]
    out = np.zeros((len(values), len(values)), dtype=object if isinstance(lam, sp.Basic) else float)
    out[...] = 0 if out.dtype != object else sp.Integer(0)
    for j, value in enumerate(values):
        out[j, j] = value
    return out


def eg_mhsa(
    x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray, wo: np.ndarray, heads: int, grades: Sequence, lam
) -> np.ndarray:
    """EG-MHSA (Eq. 11-12): Q'_h = Q_h M_h, K'_h = K_h M_h, V'_h = V_h M_h with M_h = M_{q_h, lambda}."""
    outs = []
    for s, q_h in zip(head_slices(wq.shape[1], heads), grades, strict=True):
        m = grading_matrix(q_h, lam)
        outs.append(attention((x @ wq[:, s]) @ m, (x @ wk[:, s]) @ m, (x @ wv[:, s]) @ m))
    return np.concatenate(outs, axis=1) @ wo


def compile_graded(w: np.ndarray, heads: int, grades: Sequence, lam) -> np.ndarray:
    """W~_h = W_h M_{q_h, lambda}, head by head (Rem 1 / Cor 1): a standard head computing the graded one."""
    blocks = [w[:, s] @ grading_matrix(q_h, lam) for s, q_h in zip(head_slices(w.shape[1], heads), grades, strict=True)]
    return np.concatenate(blocks, axis=1)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh form."""
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def geglu(x: np.ndarray, w: np.ndarray, v: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """GeGLU(x) = (GELU(x W) * (x V)) W_2."""
    return (gelu(x @ w) * (x @ v)) @ w2


def level_ffn(x: np.ndarray, bases: Sequence[np.ndarray], ffns: Sequence[Callable[[np.ndarray], np.ndarray]]) -> np.ndarray:
    """FFN_ell(X) = sum_l GeGLU_l(X P_l) P_l^T (Sec. 4.5): each level's FFN reads and writes its own subspace."""
    return sum(f(x @ p) @ p.T for p, f in zip(bases, ffns, strict=True))
