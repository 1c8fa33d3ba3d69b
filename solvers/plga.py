"""A reference PLGA head (Def 3.2) in float64 numpy, with the random initialisation law of the
native code (plga.md §1.3, §1.9): W, P, a Xavier-normal; b_W, b_a zero; the metric learner
Phi_res of N_res = 8 residual units of n_A = 2 SwiGLU blocks (A_dff = 170), each unit ending
in a LayerNorm (eps 1e-6, gamma = 1, beta = 0 at init). Random-init only: no checkpoint."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attncert.theory import plga as th

EPS_FLOOR = float(th.EPS_FLOOR)  # the A_LM floor epsilon
EPS_LN = float(th.EPS_LN)


def layer_norm(x: np.ndarray, eps: float = EPS_LN) -> np.ndarray:
    """Row-wise LayerNorm with the biased variance, gamma = 1, beta = 0."""
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps)


def silu(x: np.ndarray) -> np.ndarray:
    """SiLU(x) = x sigmoid(x)."""
    return x / (1.0 + np.exp(-x))


def iswiglu(x: np.ndarray) -> np.ndarray:
    """iSwiGLU(x) = x SiLU(x) = x^2 sigmoid(x) (PLDR-LLM)."""
    return x * silu(x)


def _xavier_normal(rng: np.random.Generator, fan_in: int, fan_out: int) -> np.ndarray:
    return rng.normal(0.0, np.sqrt(2.0 / (fan_in + fan_out)), (fan_in, fan_out))


def _xavier_uniform(rng: np.random.Generator, fan_in: int, fan_out: int) -> np.ndarray:
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, (fan_in, fan_out))


@dataclass(frozen=True)
class MetricLearner:
    """Phi_res: a row-wise map R^{d_k} -> R^{d_k} (residual SwiGLU units, LayerNorm after each)."""

    blocks: tuple[tuple[np.ndarray, ...], ...]  # per unit: (W1, b1, W2, b2, W3, b3) x n_A flattened

    @classmethod
    def random(cls, rng: np.random.Generator, dk: int, n_res: int = 8, n_a: int = 2, a_dff: int = 170) -> MetricLearner:
        units = []
        for _ in range(n_res):
            unit = []
            for _ in range(n_a):
                unit += [
                    _xavier_uniform(rng, dk, a_dff),
                    np.zeros(a_dff),
                    _xavier_uniform(rng, dk, a_dff),
                    np.zeros(a_dff),
                    _xavier_uniform(rng, a_dff, dk),
                    np.zeros(dk),
                ]
            units.append(tuple(unit))
        return cls(tuple(units))

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        r = rows
        for unit in self.blocks:
            h = r
            for k in range(0, len(unit), 6):
                w1, b1, w2, b2, w3, b3 = unit[k : k + 6]
                h = (silu(h @ w1 + b1) * (h @ w2 + b2)) @ w3 + b3
            r = layer_norm(r + h)
        return r


@dataclass(frozen=True)
class PLGAHead:
    """One head: D = Q^T Q, A = Phi(LN(D)), A_LM = iSwiGLU(W A + b_W) + eps, A_P = A_LM^(o P),
    G = a A_P + b_a, E = Q G K^T / sqrt(d_k), causal softmax, V_LM = E_LM V."""

    W: np.ndarray
    b_W: np.ndarray
    P: np.ndarray
    a: np.ndarray
    b_a: np.ndarray
    phi: MetricLearner

    @classmethod
    def random(cls, seed: int, dk: int) -> PLGAHead:
        rng = np.random.default_rng(seed)
        z = np.zeros((dk, dk))
        return cls(
            _xavier_normal(rng, dk, dk),
            z,
            _xavier_normal(rng, dk, dk),
            _xavier_normal(rng, dk, dk),
            z,
            MetricLearner.random(rng, dk),
        )

    def generator(self, q: np.ndarray) -> np.ndarray:
        return self.phi(layer_norm(q.T @ q))

    def operators(self, A: np.ndarray) -> dict[str, np.ndarray]:
        a_lm = iswiglu(self.W @ A + self.b_W) + EPS_FLOOR
        a_p = np.exp(self.P * np.log(a_lm))
        return {"A": A, "A_LM": a_lm, "A_P": a_p, "G_LM": self.a @ a_p + self.b_a}

    def attend(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, G: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(E_LM, V_LM) with the ideal causal mask; G defaults to this head's G_LM(q)."""
        if G is None:
            G = self.operators(self.generator(q))["G_LM"]
        scores = q @ G @ k.T / np.sqrt(q.shape[1])
        return causal_softmax(scores), causal_softmax(scores) @ v


def order_parameter(t1: np.ndarray, t2: np.ndarray) -> float:
    """m = |T1 - T2|_rms / ((|T1|_rms + |T2|_rms)/2), and m = 0 whenever the numerator is 0 (Def 5.1, eq. 5.1)."""
    numerator = float(np.sqrt(np.mean((t1 - t2) ** 2)))
    if numerator == 0.0:
        return 0.0
    return numerator / (0.5 * (float(np.sqrt(np.mean(t1**2))) + float(np.sqrt(np.mean(t2**2)))))


def causal_softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the allowed set j <= i, exact zeros above the diagonal, of square S x S
    self-attention scores."""
    if scores.ndim != 2 or scores.shape[0] != scores.shape[1]:
        raise ValueError(f"scores must be a square S x S matrix (causal self-attention), got shape {scores.shape}")
    S = scores.shape[0]
    mask = np.tril(np.ones((S, S), dtype=bool))
    z = np.where(mask, scores, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.where(mask, np.exp(z), 0.0)
    return e / e.sum(axis=1, keepdims=True)


def sdpa(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """An independent causal scaled dot-product attention (no G), for Thm 5.4 (i)."""
    S, dk = q.shape
    out = np.empty_like(v)
    for i in range(S):
        logits = np.array([q[i] @ k[j] for j in range(i + 1)]) / np.sqrt(dk)
        w = np.exp(logits - logits.max())
        out[i] = (w / w.sum()) @ v[: i + 1]
    return out


def rope_frequencies(dk: int, base: float | None = None) -> np.ndarray:
    """theta_j = base^{-2(j-1)/d_k} in float64 (base: theory.plga.ROPE_BASE unless given)."""
    return float(th.ROPE_BASE if base is None else base) ** (-2 * np.arange(th.rope_planes(dk)) / dk)


def difference_frequencies(thetas: np.ndarray, ordered: bool = True) -> np.ndarray:
    """The nonzero twirl frequencies: each 2 theta_a once, and |theta_a - theta_b|, theta_a + theta_b for
    every ordered (or unordered) pair a != b (plga.md C25, E2: the ordered multiset reproduces D.4)."""
    n = len(thetas)
    pairs = (
        [(a, b) for a in range(n) for b in range(n) if a != b] if ordered else [(a, b) for a in range(n) for b in range(a + 1, n)]
    )
    out = [2 * t for t in thetas]
    for a, b in pairs:
        out += [abs(thetas[a] - thetas[b]), thetas[a] + thetas[b]]
    return np.array(out)


def rope_matrix(thetas: np.ndarray, n: int) -> np.ndarray:
    """R_n = (+)_j Rot(n theta_j) on interleaved planes (2a, 2a+1)."""
    d = 2 * len(thetas)
    R = np.zeros((d, d))
    c, s = np.cos(n * thetas), np.sin(n * thetas)
    idx = np.arange(0, d, 2)
    R[idx, idx], R[idx, idx + 1], R[idx + 1, idx], R[idx + 1, idx + 1] = c, -s, s, c
    return R


def commutant_projection(M: np.ndarray) -> np.ndarray:
    """Frobenius projection onto the torus commutant: per diagonal 2x2 block c I + s J, with
    c = (B11 + B22)/2 and s = (B21 - B12)/2; off-diagonal blocks are zeroed. M must be d x d with d even
    (d/2 RoPE planes); any other shape raises ValueError."""
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] % 2:
        raise ValueError(f"commutant_projection needs a square matrix of even size (d x d, d = 2 x planes), got shape {M.shape}")
    out = np.zeros_like(M)
    idx = np.arange(0, M.shape[0], 2)
    c = (M[idx, idx] + M[idx + 1, idx + 1]) / 2
    s = (M[idx + 1, idx] - M[idx, idx + 1]) / 2
    out[idx, idx], out[idx, idx + 1], out[idx + 1, idx], out[idx + 1, idx + 1] = c, -s, s, c
    return out


def rope_rows(x: np.ndarray, base: float | None = None, offset: int = 0) -> np.ndarray:
    """RoPE on the rows of x (S x d_k): row n is rotated by R_{n + offset} (0-based positions,
    interleaved planes, as in the reference code; plga.md §1.4)."""
    S, dk = x.shape
    thetas = rope_frequencies(dk, base)
    angles = (np.arange(S) + offset)[:, None] * thetas[None, :]
    c, s = np.cos(angles), np.sin(angles)
    out = np.empty_like(x)
    out[:, 0::2] = c * x[:, 0::2] - s * x[:, 1::2]
    out[:, 1::2] = s * x[:, 0::2] + c * x[:, 1::2]
    return out


@dataclass(frozen=True)
class PLDRDecoder:
    """A small post-LN PLDR decoder (Def 4.3) with random-init weights: embedding, per-layer PLGA
    heads on RoPE-rotated queries and keys with a metric learner shared by the layer's heads,
    W_O, SwiGLU FFN, untied unembedding. ``operator`` overrides G_LM (e.g. the identity) for the
    SDPA special case; ``causal=False`` drops the mask (a negative control).

    Init: the embedding N(0, 1), PyTorch's ``nn.Embedding`` default (the spec names none); the q, k, v
    biases N(0, 0.02^2); the dense layers and the unembedding Xavier-uniform, its bias zero; the heads' W,
    P, a Xavier-normal with zero biases (plga.md §1.9); each layer's metric learner ``MetricLearner.random``."""

    embed: np.ndarray
    layers: tuple[dict, ...]
    unembed: np.ndarray
    b_vocab: np.ndarray
    heads: int
    dk: int

    @classmethod
    def random(
        cls, seed: int, *, vocab: int, heads: int, dk: int, n_layers: int, d_ff: int, n_res: int, a_dff: int
    ) -> PLDRDecoder:
        """Random init at the stated sizes: ``n_res`` residual units of width ``a_dff`` in each layer's
        metric learner (the paper's are 8 and 170; a small decoder for the certificates uses fewer)."""
        rng = np.random.default_rng(seed)
        d = heads * dk
        layers = []
        for _ in range(n_layers):
            layers.append(
                {
                    "wq": _xavier_uniform(rng, d, d),
                    "bq": rng.normal(0, 0.02, d),
                    "wk": _xavier_uniform(rng, d, d),
                    "bk": rng.normal(0, 0.02, d),
                    "wv": _xavier_uniform(rng, d, d),
                    "bv": rng.normal(0, 0.02, d),
                    "wo": _xavier_uniform(rng, d, d),
                    "bo": np.zeros(d),
                    "phi": MetricLearner.random(rng, dk, n_res=n_res, a_dff=a_dff),
                    "heads": [
                        PLGAHead(
                            _xavier_normal(rng, dk, dk),
                            np.zeros((dk, dk)),
                            _xavier_normal(rng, dk, dk),
                            _xavier_normal(rng, dk, dk),
                            np.zeros((dk, dk)),
                            None,
                        )
                        for _ in range(heads)
                    ],
                    "w1": _xavier_uniform(rng, d, d_ff),
                    "w2": _xavier_uniform(rng, d, d_ff),
                    "w3": _xavier_uniform(rng, d_ff, d),
                }
            )
        return cls(rng.normal(0, 1, (vocab, d)), tuple(layers), _xavier_uniform(rng, d, vocab), np.zeros(vocab), heads, dk)

    def __call__(self, tokens: np.ndarray, *, operator: np.ndarray | None = None, causal: bool = True) -> np.ndarray:
        d = self.heads * self.dk
        x = layer_norm(np.sqrt(d) * self.embed[tokens])
        for layer in self.layers:
            q, k, v = (x @ layer[w] + layer[b] for w, b in (("wq", "bq"), ("wk", "bk"), ("wv", "bv")))
            outs = []
            for i, head in enumerate(layer["heads"]):
                cols = slice(i * self.dk, (i + 1) * self.dk)
                qh, kh = rope_rows(q[:, cols]), rope_rows(k[:, cols])
                if operator is None:
                    A = layer["phi"](layer_norm(qh.T @ qh))
                    G = PLGAHead(head.W, head.b_W, head.P, head.a, head.b_a, layer["phi"]).operators(A)["G_LM"]
                else:
                    G = operator
                scores = qh @ G @ kh.T / np.sqrt(self.dk)
                weights = causal_softmax(scores) if causal else _full_softmax(scores)
                outs.append(weights @ v[:, cols])
            x = _post_attention(x, outs, layer)
        return _full_softmax(x @ self.unembed + self.b_vocab)

    def sdpa_reference(self, tokens: np.ndarray) -> np.ndarray:
        """The same network with plain causal SDPA heads, written independently (Thm 5.4 (i))."""
        d = self.heads * self.dk
        x = layer_norm(np.sqrt(d) * self.embed[tokens])
        for layer in self.layers:
            q, k, v = x @ layer["wq"] + layer["bq"], x @ layer["wk"] + layer["bk"], x @ layer["wv"] + layer["bv"]
            heads = [
                sdpa(
                    rope_rows(q[:, i * self.dk : (i + 1) * self.dk]),
                    rope_rows(k[:, i * self.dk : (i + 1) * self.dk]),
                    v[:, i * self.dk : (i + 1) * self.dk],
                )
                for i in range(self.heads)
            ]
            x = _post_attention(x, heads, layer)
        return _full_softmax(x @ self.unembed + self.b_vocab)


def _post_attention(x: np.ndarray, head_outputs: list[np.ndarray], layer: dict) -> np.ndarray:
    """Post-LN residual blocks shared by both decoders: U = LN(X + [heads] W_O + b_O), LN(U + SwiGLU(U))."""
    u = layer_norm(x + np.concatenate(head_outputs, axis=1) @ layer["wo"] + layer["bo"])
    return layer_norm(u + (silu(u @ layer["w1"]) * (u @ layer["w2"])) @ layer["w3"])


def _full_softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
