"""Running an evaluation's episodes: threads, processes or Ray, always into one run folder.

- ``threads`` (model policies): ``concurrency`` episodes in flight in this process, one
  worker (KB, graph view, metered hub) shared by all; the episodes wait on the model server,
  not on the CPU, and the hub's one limit keeps the server at ``concurrency`` requests.
  Step lines are written as each step completes.
- ``processes`` (the model-free graph policy, CPU-bound): up to ``concurrency`` worker
  processes (at most one per core), each with its own worker; an episode's lines are written
  when it comes back. The web suite always runs in processes, whatever the policy: each
  worker drives a Chromium of its own, and Playwright's sync API belongs to one thread.
- ``ray``: the same workers as Ray actors (``guigraph.eval.ray_exec``).

Whatever runs them, only this process writes the run folder: step lines first, then the
episode line, so the folder is always resumable.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from guigraph.choices import Policy
from guigraph.errors import GuigraphError
from guigraph.eval.runfolder import RunFolder
from guigraph.eval.worker import EvalSpec, Job, Row, Worker

OnEpisode = Callable[[Row], None]
EXECUTORS = ("local", "ray")


def execute(
    spec: EvalSpec,
    jobs: Sequence[Job],
    folder: RunFolder,
    *,
    executor: str = "local",
    concurrency: int = 1,
    ray_address: str | None = None,
    on_episode: OnEpisode = lambda row: None,
) -> None:
    if not jobs:
        return
    if executor == "ray":
        from guigraph.eval.ray_exec import run_on_ray

        run_on_ray(spec, jobs, folder, concurrency, ray_address, on_episode)
    elif spec.suite == "web":
        run_in_processes(spec, jobs, folder, concurrency, on_episode,
                         per_core=spec.policy is Policy.GRAPH)  # fmt: skip
    elif spec.policy is Policy.GRAPH and concurrency > 1 and (os.cpu_count() or 1) > 1:
        run_in_processes(spec, jobs, folder, concurrency, on_episode)
    else:
        run_in_threads(spec, jobs, folder, concurrency, on_episode)


def run_in_threads(
    spec: EvalSpec, jobs: Sequence[Job], folder: RunFolder, concurrency: int, on_episode: OnEpisode
) -> None:
    worker = Worker(spec, concurrency)
    todo: queue.Queue[Job] = queue.Queue()
    for job in jobs:
        todo.put(job)
    results: queue.Queue[tuple[str, Any]] = queue.Queue()
    stop = threading.Event()

    def emit(row: Row) -> None:
        folder.append_steps([row])

    def loop() -> None:
        while not stop.is_set():
            try:
                job = todo.get_nowait()
            except queue.Empty:
                return
            try:
                results.put(("done", worker.run(job, emit)))
            except BaseException as exc:  # reported by the main thread, which stops the run
                results.put(("error", exc))
                return

    # Daemon threads: on Ctrl-C the process leaves at once; the interrupted episodes'
    # lines are removed when the run is resumed.
    threads = [
        threading.Thread(target=loop, daemon=True, name=f"eval-{i}")
        for i in range(min(concurrency, len(jobs)))
    ]
    for thread in threads:
        thread.start()
    try:
        for _ in jobs:
            kind, payload = _next_result(results)
            if kind == "error":
                raise payload
            folder.append_episode(payload)
            on_episode(payload)
    finally:
        stop.set()
    for thread in threads:
        thread.join()
    worker.close()


def _next_result(results: queue.Queue[tuple[str, Any]]) -> tuple[str, Any]:
    while True:  # a timeout keeps the main thread responsive to Ctrl-C
        try:
            return results.get(timeout=0.5)
        except queue.Empty:
            continue


# -- processes --------------------------------------------------------------------------
_PROCESS_WORKER: Worker | None = None


def _init_process(spec: EvalSpec) -> None:
    global _PROCESS_WORKER
    import signal
    from multiprocessing.util import Finalize

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent()
    _PROCESS_WORKER = Worker(spec, 1)
    # A pool's worker leaves through os._exit (no atexit): close its browser and KB on the
    # way out of a pool that is closed and joined.
    Finalize(_PROCESS_WORKER, _PROCESS_WORKER.close, exitpriority=10)


def _die_with_parent() -> None:
    """A worker process must not outlive a killed evaluation (Linux: PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    import contextlib
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def _run_in_process(job: Job) -> tuple[list[Row], Row]:
    assert _PROCESS_WORKER is not None
    steps: list[Row] = []
    try:
        row = _PROCESS_WORKER.run(job, steps.append)
    except GuigraphError as exc:
        raise WorkerFailure(f"{type(exc).__name__}: {exc}") from None
    return steps, row


class WorkerFailure(Exception):
    """A typed error inside a worker process, carried back as its message."""


def run_in_processes(
    spec: EvalSpec, jobs: Sequence[Job], folder: RunFolder, concurrency: int,
    on_episode: OnEpisode, per_core: bool = True,
) -> None:  # fmt: skip
    """``per_core``: at most one process per core (CPU-bound episodes); otherwise up to
    ``concurrency`` (episodes that wait on a model server)."""
    cores = (os.cpu_count() or 1) if per_core else concurrency
    processes = max(1, min(concurrency, cores, len(jobs)))
    context = multiprocessing.get_context("spawn")  # no fork of a threaded process
    with context.Pool(processes, initializer=_init_process, initargs=(spec,)) as pool:
        try:
            for steps, row in pool.imap_unordered(_run_in_process, jobs):
                folder.append_steps(steps)
                folder.append_episode(row)
                on_episode(row)
        except WorkerFailure as exc:
            raise GuigraphError(str(exc)) from None
        # Every episode is in: let the workers leave on their own (their finalizers close
        # what they opened) rather than be terminated on the way out of the block.
        pool.close()
        pool.join()
