"""Concurrent first calls of jit="numba" gradients: threads, and processes sharing one cache.

What was found and fixed, and the census, are in tests/transforms/test_wave33j.py's docstring;
these are its numba rows (here so the default run always has them)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from numeric import assert_close, central_difference
from transforms import wave33j_programs as w
from transforms.test_wave33j import at_once

import srcdiff
from srcdiff.backend import module_files
from srcdiff.backend.numba import cache_races

numba = pytest.importorskip("numba")


def test_numba_first_calls_from_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCDIFF_NUMBA_CACHE", str(tmp_path))
    f = w.fresh_loop()
    x = np.linspace(0.2, 1.1, 5)
    shared = srcdiff.grad(f, jit="numba")
    got = at_once(4, lambda i: (shared if i % 2 else srcdiff.grad(f, jit="numba"))(x))
    want = central_difference(f, (x,), 0)
    for g in got:
        assert not isinstance(g, BaseException), repr(g)
        assert_close(g, want)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]  # no temporary file left


def test_numba_cache_failure_is_retried_without_the_cache(tmp_path, monkeypatch):
    """numba's "no compiled object yet" on saving (another process mid-way): the same value."""
    from numba.core import caching
    monkeypatch.setenv("SRCDIFF_NUMBA_CACHE", str(tmp_path))

    def failing(self, sig, data):
        raise RuntimeError("no compiled object yet for <Library 'leapfrog_grad' ...>")
    monkeypatch.setattr(caching.Cache, "save_overload", failing)
    f = w.fresh_loop()
    x = np.linspace(0.2, 1.1, 5)
    assert_close(srcdiff.grad(f, jit="numba")(x), central_difference(f, (x,), 0))


def test_transient_is_only_numbas_cache_failures():
    assert cache_races.transient(RuntimeError("no compiled object yet for <Library 'f'>"))
    assert cache_races.transient(EOFError("Ran out of input"))
    assert cache_races.transient(FileNotFoundError(2, "gone", "/c/f-3.py311.1.nbc"))
    assert not cache_races.transient(ValueError("shapes (3,) and (4,) not aligned"))
    assert not cache_races.transient(FileNotFoundError(2, "gone", "/data/x.npy"))


def test_a_module_file_another_process_wrote_is_kept(tmp_path, monkeypatch):
    """Written once: numba's cache index is keyed on the file's time stamp."""
    monkeypatch.setenv("SRCDIFF_NUMBA_CACHE", str(tmp_path))
    text = "VALUE = 33\n"
    module = module_files.load("wave33j_kept", text)
    path = module.__file__
    os.utime(path, ns=(10**18, 10**18))
    sys.modules.pop(module.__name__)
    again = module_files.load("wave33j_kept", text)
    assert again.VALUE == 33 and os.stat(path).st_mtime_ns == 10**18
    sys.modules.pop(again.__name__)
    assert os.listdir(tmp_path) == [os.path.basename(path)]


PROCESS = """
import numpy as np, srcdiff
from transforms import wave33j_programs as w
from numeric import central_difference
f = w.leapfrog_like() if {which} % 2 else w.fresh_loop()
x = np.array([[0.0, 0.1], [0.2, 0.9]]) if {which} % 2 else np.linspace(0.2, 1.1, 5)
g = srcdiff.grad(f, jit="numba")(x)
assert np.allclose(g, central_difference(f, (x,), 0), rtol=1e-6, atol=1e-7), g
print("ok")
"""


@pytest.mark.slow
def test_processes_compiling_at_once_share_one_cache(tmp_path):
    """4 processes, two gradients, one fresh cache, three times (the report's setting)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for round_ in range(3):
        paths = os.pathsep.join([root, os.path.join(root, "tests")])
        env = {**os.environ, "SRCDIFF_NUMBA_CACHE": str(tmp_path / f"cache{round_ % 2}"), "PYTHONPATH": paths}
        runs = [subprocess.Popen([sys.executable, "-c", PROCESS.format(which=i)], cwd=root, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(4)]
        for run in runs:
            out, err = run.communicate(timeout=600)
            assert run.returncode == 0 and out.strip() == "ok", err[-2000:]
