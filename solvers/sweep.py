"""Sweep executors: run independent replicates locally or on a Dask cluster.

Every task carries its own seed (derived from the base seed and the task index, never from the
worker), so the local and the distributed runs give identical numbers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

EXECUTORS = ("local", "dask")


class ExecutorUnavailable(ValueError):
    """The requested executor cannot be used (unknown, not installed, or no scheduler address)."""


@dataclass(frozen=True)
class LocalExecutor:
    """A thread pool: numpy releases the GIL inside its kernels, so threads use every core without
    copying the draws between processes."""

    workers: int | None = None

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], on_done: Callable[[int], None] | None = None) -> list:
        workers = self.workers or min(len(items), os.cpu_count() or 1)
        out = []
        with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
            for i, value in enumerate(pool.map(fn, items)):
                out.append(value)
                if on_done:
                    on_done(i + 1)
        return out


@dataclass(frozen=True)
class DaskExecutor:
    """Tasks submitted to a dask.distributed scheduler at ``address`` (e.g. tcp://127.0.0.1:8786)."""

    address: str

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], on_done: Callable[[int], None] | None = None) -> list:
        from dask.distributed import Client

        with Client(self.address, set_as_default=False) as client:
            futures = client.map(fn, list(items), pure=False)
            out = []
            for done, future in enumerate(futures, start=1):  # in task order, so progress is monotone
                out.append(future.result())
                if on_done:
                    on_done(done)
            return out


def get_executor(name: str = "local", scheduler: str | None = None, workers: int | None = None):
    if name == "local":
        return LocalExecutor(workers)
    if name != "dask":
        raise ExecutorUnavailable(f"unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}")
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        raise ExecutorUnavailable("executor 'dask' needs dask.distributed: pip install 'attncert[distributed]'")
    if not scheduler:
        raise ExecutorUnavailable("executor 'dask' needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    return DaskExecutor(scheduler)
