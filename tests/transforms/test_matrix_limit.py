"""A matrix cell's time limit counts CPU time, so a machine busy with other work does not fail
a cell; a cell that waits without computing is still stopped, by the wall clock."""

from __future__ import annotations

import signal
import time

import pytest

from . import matrix


def test_a_cell_that_computes_past_its_limit_is_stopped_by_cpu_time(monkeypatch):
    monkeypatch.setattr(matrix, "CELL_WALL_FACTOR", 600)  # however loaded the machine, CPU time ends it
    start = time.process_time()
    with pytest.raises(matrix.Timeout, match="of CPU time"), matrix._limit(1):
        while True:
            pass
    assert 0.9 <= time.process_time() - start < 5


def test_a_cell_that_waits_is_stopped_by_the_wall_clock(monkeypatch):
    monkeypatch.setattr(matrix, "CELL_WALL_FACTOR", 1)
    start = time.monotonic()
    with pytest.raises(matrix.Timeout, match="no answer within 1 s$"), matrix._limit(1):
        time.sleep(30)
    assert time.monotonic() - start < 20


def test_no_timer_outlives_a_cell():
    before = signal.getsignal(signal.SIGPROF), signal.getsignal(signal.SIGALRM)
    with matrix._limit(1):
        pass
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0) and signal.alarm(0) == 0
    assert (signal.getsignal(signal.SIGPROF), signal.getsignal(signal.SIGALRM)) == before
