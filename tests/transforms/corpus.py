"""The programs of the transformation matrix: those the suite already checks, not new ones.

* ``recorded_programs.json``: every ``check_gradient(f, args, wrt)`` of a passing test whose
  `f` can be imported again (written by ``SRCDIFF_RECORD_PROGRAMS=... pytest``; see
  recording.py and ``python tests/transforms/matrix_report.py --record``).  The rule specs of
  test_numpy_rules.py live in a module that test writes to a temporary folder; it is written
  again here, from the same specs, so their functions can be found.
* tables of tests that compare gradients without `check_gradient`: test_user_programs.CASES,
  test_jvp.FUNCTIONS, test_higher_order.HESSIAN_SPECS, test_library_code.LIBRARY.
* the red team's programs (redteam_programs.py), written for the matrix.

A program is one function, its arguments and one differentiated parameter; a recorded call
with ``wrt=(0, 1)`` gives two programs.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import inspect
import json
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from . import leaves
from .recording import decode

HERE = Path(__file__).parent
RECORDED = HERE / "recorded_programs.json"
PER_FUNCTION = 4  # programs kept per (function, parameter): branches at a few points, not hundreds


@dataclasses.dataclass
class Program:
    name: str  # module:qualname[wrt], unique in the corpus
    func: object
    args: tuple
    wrt: int  # position of the differentiated parameter
    origin: str  # the test or table it comes from

    @property
    def size(self) -> int:
        return int(sum(leaves.sizes(self.args[self.wrt])))


def _seed(text: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(text.encode()))


_SPEC_FOLDER: dict = {}  # holds the folder until the test process exits, which removes it


@functools.lru_cache(maxsize=None)
def _rule_specs():
    """The rule spec table's functions (tests/rules/specs.py), written as its tests write them."""
    from rules import specs
    folder = _SPEC_FOLDER.setdefault("dir", tempfile.TemporaryDirectory(prefix="srcdiff-matrix-specs-"))
    return specs.spec_module(Path(folder.name), module_name="matrix_rule_specs")


def _test_module(name: str) -> str:
    """The importable name of a test module: a corpus recorded before the tests moved into
    packages names it bare (``test_writes``, now ``language.test_writes``)."""
    if "." not in name and name.startswith("test_") and importlib.util.find_spec(name) is None:
        for path in sorted(HERE.parent.glob(f"*/{name}.py")):
            return f"{path.parent.name}.{name}"
    return name


def _find(module: str, qualname: str):
    if module.startswith("rule_specs"):
        found = _rule_specs()
    else:
        found = importlib.import_module(_test_module(module))
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _positions(func, wrt, args) -> list[int]:
    names = list(inspect.signature(func).parameters)
    items = wrt if isinstance(wrt, (list, tuple)) else [wrt]
    out = []
    for w in items:
        i = names.index(w) if isinstance(w, str) else w % len(names)
        if i < len(args) and leaves.float_leaves_or_none(args[i]):
            out.append(i)
    return out


def recorded(path: Path = RECORDED) -> tuple[list[Program], dict]:
    """The recorded programs, and how many entries could not be loaded, by reason."""
    data = json.loads(Path(path).read_text())
    programs, dropped = [], dict(data.get("dropped", {}))
    for entry in data["programs"]:
        try:
            func = _find(entry["module"], entry["qualname"])
        except (ImportError, AttributeError):
            dropped["module not importable (written to a temporary folder)"] = \
                dropped.get("module not importable (written to a temporary folder)", 0) + 1
            continue
        args = tuple(decode(a) for a in entry["args"])
        for i in _positions(func, entry["wrt"], args):
            # named by the bare module, as recorded before the tests moved into packages: stable names
            module = entry["module"].rpartition(".")[2]
            programs.append(Program(f"{module}:{entry['qualname']}", func, args, i, entry["test"]))
    return programs, dropped


def tables() -> list[Program]:
    """Programs from the tables of tests that check gradients their own way."""
    from ad import test_higher_order, test_jvp
    from api import test_library_code, test_user_programs
    out = []
    for key, (func, make) in test_user_programs.CASES.items():
        rng = _seed(f"user_programs:{key}")
        args = make(lambda *shape, rng=rng: rng.normal(size=shape))
        for i in _positions(func, list(range(len(args))), args):
            out.append(Program(f"test_user_programs:{func.__qualname__}", func, args, i,
                               f"test_user_programs.CASES[{key}]"))
    for k, (func, make) in enumerate(test_jvp.FUNCTIONS):
        args = make(_seed(f"jvp:{k}"))
        for i in _positions(func, list(range(len(args))), args)[:1]:
            out.append(Program(f"test_jvp:{func.__qualname__}", func, args, i, f"test_jvp.FUNCTIONS[{k}]"))
    for key, (func, make) in test_higher_order.HESSIAN_SPECS.items():
        out.append(Program(f"test_higher_order:{func.__qualname__}", func, make(_seed(f"hessian:{key}")), 0,
                           f"test_higher_order.HESSIAN_SPECS[{key}]"))
    for name, kind, failure in test_library_code.LIBRARY:
        if failure:
            continue
        try:
            func = test_library_code._library(name)
        except BaseException:  # pytest.skip: not installed
            continue
        rng = _seed(f"library:{name}")
        x, w = rng.uniform(0.2, 1.5, size=5), rng.normal(size=5)
        if kind == "weighted":
            func, args = test_library_code._weighted(func), (x, w)
        elif kind == "poly":
            func, args = test_library_code._poly_weighted(func), (x, rng.normal(size=4), w)
        else:
            args = (x, w)[:kind]
        out.append(Program(f"test_library_code:{name}", func, args, 0, "test_library_code.LIBRARY"))
    return out


def redteam() -> list[Program]:
    """The red team's programs (redteam_programs.py)."""
    from . import redteam_programs
    out = []
    for name, func, make, wrt in redteam_programs.PROGRAMS:
        out.append(Program(f"redteam:{name}", func, tuple(make(_seed(f"redteam:{name}"))), wrt, "redteam"))
    return out


def first_in_default_run(programs: list[Program]) -> list:
    """`programs` as pytest parameters, every one but the first marked slow (numba compiles for
    seconds each: the default run keeps one program of a table)."""
    import pytest
    return [p if i == 0 else pytest.param(p, marks=pytest.mark.slow) for i, p in enumerate(programs)]


def from_table(rows, prefix: str, origin: str, seed: int) -> list[Program]:
    """Programs of a table of ``(name, func, make_args(rng), wrt)`` rows, each named ``prefix:name``."""
    return [Program(f"{prefix}:{name}", func, tuple(make(np.random.default_rng(seed))), wrt, origin)
            for name, func, make, wrt in rows]


def _thin(programs: list[Program]) -> list[Program]:
    """Distinct programs, at most PER_FUNCTION per (function, parameter), named uniquely."""
    seen, counts, out = set(), {}, []
    for p in programs:
        try:
            key = (p.name, p.wrt, json.dumps([_fingerprint(a) for a in p.args]))
        except TypeError:
            key = (p.name, p.wrt, id(p))
        base = (p.name, p.wrt)
        if key in seen or counts.get(base, 0) >= PER_FUNCTION:
            continue
        seen.add(key)
        counts[base] = counts.get(base, 0) + 1
        out.append(dataclasses.replace(p, name=f"{p.name}[{p.wrt}]#{counts[base]}"))
    return out


def _fingerprint(value):
    if isinstance(value, np.ndarray):
        return [str(value.dtype), list(value.shape), np.round(value.ravel()[:6], 6).tolist()]
    if isinstance(value, dict):
        return {str(k): _fingerprint(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_fingerprint(v) for v in value]
    if isinstance(value, (float, int, bool, str)) or value is None:
        return value
    return type(value).__name__


def suite_corpus() -> tuple[list[Program], dict]:
    """Every program the suite checks (recorded calls and tables), and what was dropped."""
    programs, dropped = recorded()
    return _thin(programs + tables()), dropped


def sample(programs: list[Program], share: float, salt: str = "matrix") -> list[Program]:
    """A deterministic subsample: each program is in it by a hash of its name."""
    if share >= 1:
        return list(programs)
    return [p for p in programs if zlib.crc32(f"{salt}:{p.name}".encode()) % 1000 < share * 1000]


def slow_unless(kept: bool, *values):
    """A row of a table the default run leaves to the slow set unless `kept` (``-m slow`` runs every row)."""
    return pytest.param(*values, marks=() if kept else pytest.mark.slow)
