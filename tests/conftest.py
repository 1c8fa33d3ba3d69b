"""Shared fixtures: one deterministic context for every certificate test, and each check's
evidence computed once per test process."""

import math
import os
import socket
import threading

# pytest-xdist workers already share the cores: a BLAS thread pool per worker only oversubscribes them
# (small L-BFGS-B solves ran 10x slower). Set before numpy is first imported; a user's setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mpmath
import numpy as np
import pytest

from attncert.certificates.engine.model import Certificate, Context, Evidence, Tier

_EVIDENCE: dict[tuple[str, bool, Context], Evidence | Exception] = {}


def evidence_of(cert: Certificate, ctx: Context, *, mutated: bool = False) -> Evidence:
    """``cert.run(ctx, mutated=mutated)``, run once per test process: several test files look at the
    same check's evidence (its verdict, its scope), and checks are deterministic (explicit seeds).
    A check that raises raises again for every test that asks."""
    key = (cert.id, mutated, ctx)
    if key not in _EVIDENCE:
        try:
            _EVIDENCE[key] = cert.run(ctx, mutated=mutated)
        except Exception as exc:
            _EVIDENCE[key] = exc
    found = _EVIDENCE[key]
    if isinstance(found, Exception):
        raise found
    return found


def regularized_kkt_violation(la, lt, u, *, nu: float, log_lam: float, clip: float | None, scale: float = 1.0) -> float:
    """How far u misses Cor 4's KKT conditions on 0 <= u <= 2 ln C (no upper face when ``clip`` is None):
    the largest of |grad| inside, -grad at u = 0 and grad at u = 2 ln C, for the gradient of
    LSE(ln alpha - u) + LSE(ln tau + u) + nu / (4 ln^2 lambda) |u|^2 divided by ``scale``. Computed
    here from the objective, not from the solver's change of variable."""
    xa, xt = la - u, lt + u
    pa, pt = np.exp(xa - xa.max()), np.exp(xt - xt.max())
    grad = (-pa / pa.sum() + pt / pt.sum() + nu / (2 * log_lam**2) * u) / scale
    upper = math.inf if clip is None else 2 * math.log(clip)
    inside = (u > 1e-9) & (u < upper - 1e-9)
    return float(max([0.0, *np.abs(grad[inside]), *(-grad[u <= 1e-9]), *grad[u >= upper - 1e-9]]))


def reference_psa_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, gamma_q: float, gamma_k: float) -> np.ndarray:
    """Causal PSA attention, one query row at a time, with explicit loops (no masks)."""
    seq, width = q.shape
    out = np.empty_like(v)
    for t in range(seq):
        q_tilde = (1 + gamma_q) * q[t] - gamma_q * q[max(t - 1, 0)]
        keys = np.array([(1 + gamma_k) * k[j] - gamma_k * k[max(j - 1, 0)] for j in range(t + 1)])
        scores = keys @ q_tilde / np.sqrt(width)
        weights = np.exp(scores - scores.max())
        out[t] = weights @ v[: t + 1] / weights.sum()
    return out


def logistic_normal_mean(a: float, s: float) -> float:
    """E[1 / (1 + e^{-a} e^{s Z})] = E[logistic(a + s Z)], Z standard normal, by mpmath's tanh-sinh
    quadrature at 30 digits, split at the density's peak and where the logistic factor turns
    (z = a / s): unsplit, the peak far from the ends is undersampled (5e-11 off at a/s = 24)."""
    with mpmath.workdps(30):
        density = lambda z: mpmath.npdf(z) / (1 + mpmath.exp(s * z - a))  # noqa: E731
        return float(mpmath.quad(density, [-mpmath.inf, *sorted({0.0, a / s}), mpmath.inf]))


def certificate_param(cert: Certificate):
    """``cert`` as a test parameter, named by its id; full-tier checks are marked slow."""
    return pytest.param(cert, id=cert.id, marks=[pytest.mark.slow] if cert.tier is Tier.FULL else [])


@pytest.fixture(scope="session")
def ctx() -> Context:
    return Context()


@pytest.fixture
def scripted_minimize(monkeypatch):
    """Replace scipy.optimize.minimize by a scripted run: ``script(step)`` makes each run move x to
    step(x) and report fun = |x|_1, and returns the list of starting points the runs were given."""
    from types import SimpleNamespace

    from scipy import optimize

    def script(step) -> list[np.ndarray]:
        calls: list[np.ndarray] = []

        def run(objective, x, **kwargs):
            calls.append(np.array(x))
            y = step(np.asarray(x, dtype=float))
            return SimpleNamespace(x=y, fun=float(np.abs(y).sum()))

        monkeypatch.setattr(optimize, "minimize", run)
        return calls

    return script


@pytest.fixture
def greeting_peer():
    """A local TCP peer that answers every connection with fixed bytes, a stand-in for a service that is
    no dask scheduler. ``start(greeting, hang_up=...)`` returns its tcp:// address and the list of the
    connections it accepted; listeners and connections are closed when the test ends."""
    listeners: list[socket.socket] = []
    accepted: list[socket.socket] = []

    def start(greeting: bytes, *, hang_up: bool = False) -> tuple[str, list[socket.socket]]:
        listener = socket.create_server(("127.0.0.1", 0))
        listeners.append(listener)
        connections: list[socket.socket] = []

        def greet() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:  # the listener was closed
                    return
                connections.append(conn)
                accepted.append(conn)
                conn.sendall(greeting)
                if hang_up:
                    conn.close()

        threading.Thread(target=greet, daemon=True).start()
        return f"tcp://127.0.0.1:{listener.getsockname()[1]}", connections

    yield start
    for item in (*listeners, *accepted):
        item.close()
