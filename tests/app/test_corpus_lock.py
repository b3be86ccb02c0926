"""`app.corpus.lock`: one driver per output folder, atomically on a local folder (#70): of two drivers
started at the same instant exactly one holds the lock, 20 times over; a dead driver's lock is taken
over; a live one refuses with E129."""
import json
import multiprocessing
import os

import pytest

pytest.importorskip("pyarrow")


def _try(path: str, barrier, results) -> None:
    import pyarrow.fs as pafs

    from spacy_gdcws.app.corpus.lock import OutputLock

    lock = OutputLock(pafs.LocalFileSystem(), path)
    barrier.wait()
    try:
        lock.acquire()
        results.put("held")
    except ValueError as err:
        results.put("E129" if "E129" in str(err) else str(err))
    barrier.wait()  # the holder keeps the lock until both have tried


def test_70_two_drivers_at_the_same_instant_one_runs_20_times(tmp_path):
    context = multiprocessing.get_context("fork")
    for round_ in range(20):
        folder = tmp_path / str(round_)
        folder.mkdir()
        barrier, results = context.Barrier(2, timeout=30), context.Queue()
        procs = [context.Process(target=_try, args=(str(folder), barrier, results)) for _ in range(2)]
        for p in procs:
            p.start()
        outcomes = sorted(results.get(timeout=30) for _ in procs)
        for p in procs:
            p.join(timeout=30)
        assert outcomes == ["E129", "held"], (round_, outcomes)


def test_70_a_dead_drivers_lock_is_taken_over_and_a_live_ones_refuses(tmp_path):
    import socket

    import pyarrow.fs as pafs

    from spacy_gdcws.app.corpus.lock import LOCK_NAME, OutputLock

    fs = pafs.LocalFileSystem()
    dead = context_pid = os.fork()
    if dead == 0:  # a child that exits at once: its pid is a dead driver's
        os._exit(0)
    os.waitpid(context_pid, 0)
    (tmp_path / LOCK_NAME).write_text(json.dumps({"host": socket.gethostname(), "pid": dead}), encoding="utf8")
    with OutputLock(fs, str(tmp_path)) as lock:
        assert json.loads((tmp_path / LOCK_NAME).read_text(encoding="utf8"))["token"] == lock.owner["token"]
        with pytest.raises(ValueError, match="E129"):
            OutputLock(fs, str(tmp_path)).acquire()
    assert not (tmp_path / LOCK_NAME).exists() and not list(tmp_path.iterdir())
