"""Guards from the nineteenth random mutation set (benchmarks/mutations_random19.toml): facts that
no test pinned until a mutant of the line survived."""

import pytest

from attncert.solvers import phase, sweep
from attncert.solvers.backend import Backend, get_backend
from attncert.solvers.score_model import ScoreModel


class _Chosen(Exception):
    """Stops run_sweep as soon as it has built its default executor."""


@pytest.mark.parametrize(("name", "workers"), [("numpy", None), ("torch", 1), ("cupy", 1)])
def test_the_default_executor_uses_every_core_for_numpy_and_one_thread_for_other_backends(monkeypatch, name, workers):
    """run_sweep's default executor: local threads on every core for numpy (whose kernels release
    the GIL), one thread for torch and cupy, which parallelise each call themselves. Handing
    numpy one thread gives the same numbers, only slower, so no golden value sees it."""
    chosen = []

    def record(n=None):
        chosen.append(n)
        raise _Chosen

    monkeypatch.setattr(sweep, "LocalExecutor", record)
    backend = Backend(name, get_backend("numpy").xp, "cpu")
    tiny = phase.Protocol("tiny", d_ks=(4,), Ts=(10,), gammas=(0.0, 1.0), seeds=1, trials=100)
    with pytest.raises(_Chosen):
        phase.run_sweep(tiny, ScoreModel(), engine="mc", backend=backend, seed=0)
    assert chosen == [workers]
