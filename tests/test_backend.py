"""The array backend layer: numpy always, torch when installed; seeds are reproducible."""

import numpy as np
import pytest

from attncert.solvers import psa_operators as ops
from attncert.solvers.backend import BackendUnavailable, available_backends, get_backend


def test_numpy_is_always_available_and_seeded():
    b = get_backend("numpy")
    assert b.name == "numpy"
    np.testing.assert_array_equal(b.standard_normal(3, (5,)), b.standard_normal(3, (5,)))
    assert not np.array_equal(b.standard_normal(3, (5,)), b.standard_normal(4, (5,)))


@pytest.mark.parametrize("name", available_backends())
def test_to_numpy_keeps_double_precision(name):
    """Results come back as float64 unchanged (1/3 and 1 + 2^-52 do not survive a float32 round trip)."""
    b = get_backend(name)
    x = np.array([1 / 3, 1 + 2.0**-52])
    y = b.to_numpy(b.asarray(x))
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, x)


def test_unknown_backend_is_rejected():
    with pytest.raises(BackendUnavailable, match="unknown backend"):
        get_backend("jax")


def test_auto_falls_back_to_numpy_without_a_gpu(monkeypatch):
    """``auto`` picks a GPU backend only when a GPU is visible; otherwise numpy, even where the CPU
    build of torch is installed (as in CI)."""
    from attncert.solvers import backend

    monkeypatch.setattr(backend, "_gpu_count", lambda name: 0)
    assert get_backend("auto").name == "numpy"


@pytest.mark.skipif("torch" not in available_backends(), reason="torch is not installed")
def test_torch_and_numpy_agree_on_psa_operators():
    bn, bt = get_backend("numpy"), get_backend("torch")
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((24, 8)) for _ in range(3))
    outs = [b.to_numpy(ops.causal_attention(b, b.asarray(q), b.asarray(k), b.asarray(v), 0.7, 0.3)) for b in (bn, bt)]
    np.testing.assert_allclose(outs[0], outs[1], rtol=0, atol=1e-12)
    for b in (bn, bt):
        assert ops.symplectic_residual(b, ops.shear_matrix(b, 0.37, 64), ops.symplectic_matrix(b, 64)) == 0.0
