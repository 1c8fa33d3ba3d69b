"""Run checks in worker processes, each check isolated: a crash or a hang is that check's ERROR.

The workers are forked from the process that selected the certificates, so they inherit the
registry (and any test registry) and look each certificate up by its id; nothing but ids goes
to them and nothing but evidence comes back. A worker that dies (a segfault, ``os._exit``) or
runs past the time limit is killed and replaced; the checks not yet run go on in the others.
Results are gathered in the order of the tasks, so a parallel run reports exactly what the
serial run reports (apart from durations).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import pickle
import signal
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection, wait
from typing import Any

from attncert.certificates.engine.model import Certificate, Context, Evidence, Method, Verdict
from attncert.certificates.engine.plain import to_jsonable
from attncert.certificates.engine.runner import Outcome, Task, execute

_Key = tuple[str, bool]  # (certificate id, mutated)


def _picklable(value: Any) -> Any:
    try:
        pickle.dumps(value)
    except Exception:  # e.g. a lambda or a local function: send its plain (report) form
        return to_jsonable(value)
    return value


def portable(evidence: Evidence) -> Evidence:
    """``evidence`` with every field that cannot be pickled replaced by its plain report form
    (the entries of ``details`` one by one), so the reports written from it are unchanged."""
    try:
        pickle.dumps(evidence)
    except Exception:
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(evidence):
            value = getattr(evidence, f.name)
            if f.name == "details":
                changes[f.name] = {k: _picklable(v) for k, v in value.items()}
            else:
                changes[f.name] = _picklable(value)
        return dataclasses.replace(evidence, **changes)
    return evidence


def _serve(conn: Connection, certificates: Mapping[str, Certificate], ctx: Context) -> None:
    """A worker: run the checks it is sent, by id, until told to stop (``None``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            key = conn.recv()
        except EOFError:
            return
        if key is None:
            return
        cert_id, mutated = key
        outcome = execute(certificates[cert_id], ctx, mutated=mutated)
        conn.send((key, Outcome(evidence=portable(outcome.evidence), duration_s=outcome.duration_s)))


@dataclasses.dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    task: Task | None = None
    started: float = 0.0


def _died(process: multiprocessing.process.BaseProcess) -> str:
    process.join(timeout=1.0)
    code = process.exitcode
    if code is not None and code < 0:
        return f"killed by signal {signal.Signals(-code).name}"
    return f"exit code {code}"


def _error(summary: str, duration: float) -> Outcome:
    return Outcome(evidence=Evidence(verdict=Verdict.ERROR, summary=summary), duration_s=duration)


def prepare_shared(tasks: Sequence[Task], ctx: Context, *, on_prepare: Callable[[list[str]], None] | None = None) -> None:
    """Call every distinct ``prepare`` of ``tasks`` here, concurrently, before the workers fork,
    so that the computations several checks share are done once and inherited by every worker.

    A failure is ignored: the check computes the same thing again and reports it as its ERROR."""
    calls: dict[tuple[Any, str], tuple[Callable[..., Any], dict[str, Any]]] = {}
    for task in tasks:
        prepare = task.certificate.prepare
        if prepare is not None:
            kwargs = task.certificate.arguments(mutated=task.mutated)
            calls.setdefault((prepare, repr(sorted(kwargs.items()))), (prepare, kwargs))
    if not calls:
        return
    if on_prepare is not None:
        on_prepare(sorted({t.certificate.id for t in tasks if t.certificate.prepare is not None}))
    with ThreadPoolExecutor(max_workers=len(calls)) as threads:
        futures = [threads.submit(prepare, ctx, **kwargs) for prepare, kwargs in calls.values()]
        for future in futures:
            future.exception()


def run_tasks(
    tasks: Sequence[Task],
    ctx: Context,
    *,
    jobs: int,
    timeout: float,
    on_start: Callable[[Task], None] | None = None,
    on_finish: Callable[[Task, Outcome], None] | None = None,
    on_prepare: Callable[[list[str]], None] | None = None,
) -> list[Outcome]:
    """The outcome of every task, in the order of ``tasks``, computed by ``jobs`` workers, after
    the shared computations (``prepare_shared``; ``on_prepare`` gets the ids that share them)."""
    mp = multiprocessing.get_context("fork")
    certificates = {t.certificate.id: t.certificate for t in tasks}

    def spawn() -> _Worker:
        ours, theirs = mp.Pipe()
        # not daemonic, so a check may start processes of its own; the finally clause below stops every worker
        process = mp.Process(target=_serve, args=(theirs, certificates, ctx))
        process.start()
        theirs.close()
        return _Worker(process, ours)

    prepare_shared(tasks, ctx, on_prepare=on_prepare)
    # Monte Carlo checks are the longest: started first, they do not leave one worker busy at the
    # end while the others idle (results are still gathered in the order of ``tasks``)
    queue = deque(sorted(tasks, key=lambda t: t.certificate.method is not Method.MONTE_CARLO))
    done: dict[_Key, Outcome] = {}

    def finish(worker: _Worker, outcome: Outcome) -> None:
        task = worker.task
        assert task is not None
        done[(task.certificate.id, task.mutated)] = outcome
        worker.task = None
        if on_finish is not None:
            on_finish(task, outcome)

    workers = [spawn() for _ in range(min(jobs, len(tasks)))]
    try:
        while len(done) < len(tasks):
            for i, worker in enumerate(workers):
                if worker.task is None and queue:
                    if not worker.process.is_alive():  # it died or was stopped: replace it
                        worker.conn.close()
                        workers[i] = worker = spawn()
                    worker.task = queue.popleft()
                    worker.started = time.perf_counter()
                    worker.conn.send((worker.task.certificate.id, worker.task.mutated))
                    if on_start is not None:
                        on_start(worker.task)
            busy = [w for w in workers if w.task is not None]
            next_deadline = min(w.started + timeout for w in busy)
            wait([w.conn for w in busy] + [w.process.sentinel for w in busy], max(0.0, next_deadline - time.perf_counter()))
            now = time.perf_counter()
            for worker in workers:
                if worker.task is None:
                    continue
                if worker.conn.poll():
                    try:
                        _, outcome = worker.conn.recv()
                    except (EOFError, OSError):
                        outcome = _error(f"the worker running this check died ({_died(worker.process)})", now - worker.started)
                    finish(worker, outcome)
                elif not worker.process.is_alive():
                    finish(worker, _error(f"the worker running this check died ({_died(worker.process)})", now - worker.started))
                elif now - worker.started > timeout:
                    worker.process.kill()
                    worker.process.join()
                    finish(worker, _error(f"timed out: stopped after {timeout:g} s (the per-check limit)", now - worker.started))
    finally:
        for worker in workers:
            if worker.task is None and worker.process.is_alive():
                try:
                    worker.conn.send(None)
                except OSError:
                    worker.process.kill()
            else:
                worker.process.kill()
        for worker in workers:
            worker.process.join(timeout=5.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
    return [done[(t.certificate.id, t.mutated)] for t in tasks]
