"""Recording mode of the suite: every program `check_gradient` checks, written to a corpus file.

``SRCDIFF_RECORD_PROGRAMS=tests/transforms/recorded.json pytest -q tests`` runs the suite as
usual; each ``check_gradient(f, args, wrt)`` of a test that passes is kept, and at the end
the programs that can be found again by import (a module-level function or method, not a
lambda or a function defined inside a test) are written as JSON: module, qualified name,
arguments (floats, ints, bools, strings, None, arrays, tuples, lists and dicts of them),
`wrt`, and the test that checked it.  The transformation matrix (matrix.py) reads that file.
"""

from __future__ import annotations

import copy
import json
import os

import numpy as np

ENV = "SRCDIFF_RECORD_PROGRAMS"


class Unencodable(Exception):
    """An argument the corpus file cannot hold."""


def encode(value):
    """`value` as JSON data; tagged dicts hold arrays, tuples and dicts."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if type(value) is float:
        return value
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return {"array": value.tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, np.floating):
        return {"scalar": float(value), "dtype": value.dtype.str}
    if type(value) is tuple:
        return {"tuple": [encode(v) for v in value]}
    if type(value) is list:
        return {"list": [encode(v) for v in value]}
    if type(value) is dict and all(isinstance(k, str) for k in value):
        return {"dict": [[k, encode(v)] for k, v in value.items()]}
    raise Unencodable(type(value).__name__)


def decode(data):
    """The value `encode` made `data` of."""
    if not isinstance(data, dict):
        return data
    if "array" in data:
        return np.array(data["array"], dtype=np.dtype(data["dtype"])).reshape(data["shape"])
    if "scalar" in data:
        return np.dtype(data["dtype"]).type(data["scalar"])
    if "tuple" in data:
        return tuple(decode(v) for v in data["tuple"])
    if "list" in data:
        return [decode(v) for v in data["list"]]
    return {k: decode(v) for k, v in data["dict"]}


def findable(f) -> bool:
    """Whether `f` can be imported again by module and qualified name."""
    qualname = getattr(f, "__qualname__", "")
    return bool(qualname) and "<" not in qualname and getattr(f, "__module__", None) not in (None, "__main__")


class Recorder:
    """A pytest plugin: collects `check_gradient` calls, keeps those of passing tests."""

    def __init__(self, path: str):
        self.path, self.pending, self.kept, self.dropped = path, [], [], {}

    def record(self, f, args, wrt) -> None:
        self.pending.append((f, copy.deepcopy(tuple(args)), wrt))

    def pytest_runtest_logreport(self, report):
        if report.when != "call":
            if report.when == "setup" and report.failed:
                self.pending = []
            return
        taken, self.pending = self.pending, []
        if not report.passed:
            return
        for f, args, wrt in taken:
            if not findable(f):
                self.dropped["not importable (lambda or local function)"] = \
                    self.dropped.get("not importable (lambda or local function)", 0) + 1
                continue
            try:
                entry = {"module": f.__module__, "qualname": f.__qualname__, "args": [encode(a) for a in args],
                         "wrt": list(wrt) if isinstance(wrt, (tuple, list)) else wrt, "test": report.nodeid}
            except Unencodable as exc:
                reason = f"argument not encodable ({exc})"
                self.dropped[reason] = self.dropped.get(reason, 0) + 1
                continue
            self.kept.append(entry)

    def pytest_sessionfinish(self, session):
        seen, unique = set(), []
        for entry in self.kept:
            key = json.dumps([entry["module"], entry["qualname"], entry["args"], entry["wrt"]], sort_keys=True)
            if key not in seen:
                seen.add(key)
                unique.append(entry)
        unique.sort(key=lambda e: (e["module"], e["qualname"], e["test"]))
        with open(self.path, "w") as out:
            json.dump({"programs": unique, "dropped": self.dropped}, out, indent=None, separators=(",", ":"))
            out.write("\n")


RECORDER: Recorder | None = Recorder(os.environ[ENV]) if os.environ.get(ENV) else None


def record(f, args, wrt) -> None:
    """Keep (f, args, wrt) when recording; nothing otherwise."""
    if RECORDER is not None:
        RECORDER.record(f, args, wrt)
