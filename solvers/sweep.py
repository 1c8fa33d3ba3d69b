"""Sweep executors: run independent replicates locally or on a Dask cluster.

Every task carries its own seed (derived from the base seed and the task index, never from the
worker), so the local and the distributed runs give identical numbers.

Trust: ``--executor dask`` sends the tasks (pickled Python callables) to the scheduler at the
given address and takes back whatever its workers return. The scheduler and its workers run
arbitrary code on your behalf and their results are trusted: use only a cluster you control.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

EXECUTORS = ("local", "dask")
CONNECT_TIMEOUT_S = 3
#: the hard limit on starting a dask client, whose own timeout does not cover a stalled handshake
HANDSHAKE_LIMIT_S = 3 * CONNECT_TIMEOUT_S


class ExecutorUnavailable(ValueError):
    """The requested executor cannot be used (unknown, not installed, or no scheduler address)."""


@dataclass(frozen=True)
class LocalExecutor:
    """A thread pool: numpy releases the GIL inside its kernels, so threads use every core without
    copying the draws between processes."""

    workers: int | None = None

    def map(
        self,
        fn: Callable[[Any], Any],
        items: Sequence[Any],
        on_done: Callable[[int], None] | None = None,
        on_abort: Callable[[], None] | None = None,
    ) -> list:
        """``fn`` over ``items`` in order. On any exception in the caller's thread (a task's
        error, KeyboardInterrupt) ``on_abort()`` is called, so that running tasks can stop at
        their next check, queued tasks are cancelled, and the exception propagates."""
        workers = self.workers or min(len(items), os.cpu_count() or 1)
        out = []
        pool = ThreadPoolExecutor(max_workers=max(workers, 1))
        try:
            for i, value in enumerate(pool.map(fn, items)):
                out.append(value)
                if on_done:
                    on_done(i + 1)
        except BaseException:
            if on_abort:
                on_abort()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return out


@dataclass(frozen=True)
class DaskExecutor:
    """Tasks submitted to a dask.distributed scheduler at ``address`` (e.g. tcp://127.0.0.1:8786)."""

    address: str

    def check(self) -> None:
        """Fail before any work, within about CONNECT_TIMEOUT_S, when no scheduler answers:
        a plain TCP connection first (a refused or unroutable address fails fast), then a
        dask handshake."""
        host, port = _host_port(self.address)
        try:
            with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S) as sock:
                if self.address.startswith("tcp://"):
                    # a dask scheduler greets every connection with a handshake frame whose
                    # first 8 bytes are its length: a silent or foreign peer fails here, fast
                    sock.settimeout(CONNECT_TIMEOUT_S)
                    head = sock.recv(8)
                    if len(head) < 8 or not 0 < int.from_bytes(head, "little") < 2**20:
                        raise ExecutorUnavailable(f"--scheduler {self.address}: the peer is not a dask scheduler")
        except ExecutorUnavailable:
            raise  # the peer answered, but not as a dask scheduler: keep that message
        except TimeoutError:
            raise ExecutorUnavailable(
                f"--scheduler {self.address}: no dask scheduler answered within {CONNECT_TIMEOUT_S} s"
            ) from None
        except (OSError, ValueError) as exc:
            raise ExecutorUnavailable(f"--scheduler {self.address}: cannot connect ({_reason(exc)})") from None
        with self._client():
            pass

    def _client(self):
        from dask.distributed import Client

        # Client's own timeout does not bound its handshake: a peer that sends a plausible frame
        # length and then nothing kept it waiting for ever, so the start runs in a daemon thread
        # that is abandoned after a hard limit
        box: dict[str, Any] = {}

        def start() -> None:
            try:
                box["client"] = Client(self.address, set_as_default=False, timeout=f"{CONNECT_TIMEOUT_S}s")
            except Exception as exc:  # dask raises many kinds here, even MemoryError on a non-dask peer
                box["reason"] = _reason(exc)
            if "reason" in box:
                # The failed Client is garbage now (the exception held it). Collected later, inside
                # another Client's start, its __del__ waits for dask's LoopRunner lock, which that
                # very thread holds: every dask client in the process then hangs for ever. Here
                # this thread holds no lock, so it is collected at once.
                _silence_failed_client()
                gc.collect()

        # a daemon: abandoned mid-handshake it must not keep the process from exiting
        starter = threading.Thread(target=start, name="attncert-dask-start", daemon=True)
        with _dask_logs_muted():
            starter.start()
            starter.join(HANDSHAKE_LIMIT_S)
        if "client" in box:
            return box["client"]
        _silence_failed_client()
        if "reason" in box:
            why = f"no dask scheduler answered within {CONNECT_TIMEOUT_S} s ({box['reason']})"
        else:
            why = f"the peer stalled the dask handshake for {HANDSHAKE_LIMIT_S} s"
        raise ExecutorUnavailable(f"--scheduler {self.address}: {why}")

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], on_done: Callable[[int], None] | None = None) -> list:
        with self._client() as client:
            futures = client.map(fn, list(items), pure=False)
            out = []
            for done, future in enumerate(futures, start=1):  # in task order, so progress is monotone
                out.append(future.result())
                if on_done:
                    on_done(done)
            return out


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or type(exc).__name__


def _host_port(address: str) -> tuple[str, int]:
    """(host, port) of a dask address ``tcp://HOST:PORT`` (or ``HOST:PORT``)."""
    scheme, has_scheme, rest = address.partition("://")
    if not has_scheme:
        rest = address
    elif scheme not in ("tcp", "tls"):
        raise ExecutorUnavailable(f"--scheduler {address}: only tcp:// and tls:// addresses are supported")
    host, sep, port = rest.rpartition(":")
    host = host.strip("[]")
    # a path or a second scheme in the host ("tcp://h/x:1", "tcp://a://b:1") is a typo, not a name
    if not sep or not host or "/" in host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ExecutorUnavailable(f"--scheduler {address}: expected tcp://HOST:PORT")
    return host, int(port)


@contextlib.contextmanager
def _dask_logs_muted():
    """dask logs a peer's malformed reply (a traceback at CRITICAL) before its client gives up; the
    user gets the one-line error instead. Raises the level of every ``distributed`` logger that
    has one of its own (the others inherit it) for the time of the connection attempt."""
    manager = logging.root.manager
    names = ["distributed", *(n for n in manager.loggerDict if n.startswith("distributed."))]
    # a dotted name's missing parent is a PlaceHolder, without a level: getLogger would turn it into a
    # logger for good, so it reads as NOTSET and is left alone
    loggers = [
        logging.getLogger(n)
        for n in names
        if n == "distributed" or getattr(manager.loggerDict[n], "level", logging.NOTSET) != logging.NOTSET
    ]
    saved = [(logger, logger.level) for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in saved:
            logger.setLevel(level)


def _silence_failed_client() -> None:
    """A Client whose start failed complains again when it is garbage-collected; that message is
    not the user's concern (they already have the one-line error), so it is dropped. Installed
    once per process, however many connections fail."""
    previous = sys.unraisablehook
    if getattr(previous, "drops_failed_dask_clients", False):
        return

    def hook(info) -> None:
        if "Client.__del__" not in repr(info.object):
            previous(info)

    hook.drops_failed_dask_clients = True
    sys.unraisablehook = hook


def get_executor(name: str = "local", scheduler: str | None = None, workers: int | None = None):
    """The sweep executor ``name``: "local" (a thread pool of ``workers``) or "dask" (a client of
    ``scheduler``); ExecutorUnavailable with one line when it cannot be had."""
    if name == "local":
        return LocalExecutor(workers)
    if name != "dask":
        raise ExecutorUnavailable(f"unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}")
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        raise ExecutorUnavailable("executor 'dask' needs dask.distributed: pip install 'attncert[distributed]'")
    if not scheduler:
        raise ExecutorUnavailable("executor 'dask' needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    executor = DaskExecutor(scheduler)
    executor.check()
    return executor
