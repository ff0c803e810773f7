"""Measure jit="numba" on every program the test suite differentiates (a pytest plugin).

    PYTHONPATH=$PWD:benchmarks python -m pytest -q -p numba_coverage tests/ [-x ...]

Every first call of a plain `srcdiff.grad` gradient (no jit, no debug) that returns is run
again at once, with copies of its arguments, through ``jit="numba"`` (once per function,
wrt and argument signature), and classified: ok (agrees with the plain gradient), refused
(`SrcDiffError`, by its reason), crashed (another exception) or WRONG (a different number).
The table is printed and written to $NUMBA_COVERAGE_OUT (default numba_coverage.txt).
"""

from __future__ import annotations

import collections
import copy
import os
import re
import signal
import time
import traceback

import numpy as np

RECORDS: dict = {}


def _signature(args):
    from srcdiff.ir import shapes
    try:
        return tuple(map(shapes.signature, args))
    except Exception:  # noqa: BLE001
        return tuple(type(a).__name__ for a in args)


def pytest_configure(config):
    from srcdiff.api import gradients
    original = gradients.GradFunction.__call__
    made = gradients.GradFunction.__init__

    def remembering(self, func, wrt=0, *args, argnums=None, **kwargs):
        made(self, func, wrt, *args, argnums=argnums, **kwargs)
        self._coverage_given = (wrt, argnums)  # as the user spelled it (a path inside a tree, an attribute)

    gradients.GradFunction.__init__ = remembering

    def recording(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        try:
            if not self.options.jit and not self.options.debug and not self._trees.has_aux and not self._flat:
                key = (id(self.func), getattr(self.func, "__qualname__", "?"), self.wrt, self.tuple_result,
                       self.options.with_value, _signature(self._positional(args, kwargs)))
                if key not in RECORDS:
                    RECORDS[key] = _replay(self.func, getattr(self, "_coverage_given", (self.wrt, None)),
                                           self.options.with_value, copy.deepcopy(args), copy.deepcopy(kwargs),
                                           copy.deepcopy(result), os.environ.get("PYTEST_CURRENT_TEST", "?"))
        except Exception:  # noqa: BLE001  a value that cannot be copied: not recorded
            pass
        return result

    gradients.GradFunction.__call__ = recording


def _close(a, b) -> bool:
    if a is None or b is None:  # a tree's integer leaf: no gradient
        return a is b
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if hasattr(a, "__dict__") and not isinstance(a, np.ndarray):  # a gradient shaped as the user's object
        return type(a) is type(b) and _close(vars(a), vars(b))
    try:
        return np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-7, atol=1e-9, equal_nan=True)
    except Exception:  # noqa: BLE001
        return False


def _reason(exc: BaseException) -> str:
    text = str(exc).split("\n")[0]
    text = re.sub(r"^\S+\.py:\d+: ", "", text)
    text = re.sub(r"\(([^()]*)\)", "(…)", text)
    text = re.sub(r"\d+", "N", text)
    return f"{type(exc).__name__}: {text[:150]}"


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout("over 60 s")


def _replay(func, wrt, with_value, args, kwargs, plain, test):
    import srcdiff
    name = f"{test.split(' ')[0]} :: {getattr(func, '__qualname__', '?')}"
    make = srcdiff.value_and_grad if with_value else srcdiff.grad
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    try:
        got = make(func, wrt=wrt[0], argnums=wrt[1], jit="numba")(*args, **kwargs)
        verdict = "ok" if _close(got, plain) else "WRONG"
        if verdict == "WRONG" and os.environ.get("NUMBA_COVERAGE_TRACE"):
            print(f"WRONG {name}: wrt={wrt!r}\n numba: {got!r}\n plain: {plain!r}")
    except srcdiff.SrcDiffError as exc:
        verdict = "refused: " + _reason(exc)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001
        verdict = "crashed: " + _reason(exc)
        if os.environ.get("NUMBA_COVERAGE_TRACE"):
            traceback.print_exc()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return verdict, name


def pytest_sessionfinish(session, exitstatus):
    started = time.time()
    counts = collections.Counter(verdict for verdict, _ in RECORDS.values())
    lines = [f"{verdict[:200]}\t{name}" for verdict, name in RECORDS.values()]
    total = sum(counts.values())
    ok = counts["ok"]
    report = [f"jit='numba' on {total} programs the tests differentiate: {ok} ok ({100 * ok / max(total, 1):.1f}%), "
              f"{time.time() - started:.0f} s", ""]
    summary = collections.Counter()
    for cls, n in counts.items():
        summary[cls] += n
    report += [f"{n:5d}  {cls}" for cls, n in summary.most_common()]
    report += ["", *sorted(lines)]
    out = os.environ.get("NUMBA_COVERAGE_OUT", "numba_coverage.txt")
    with open(out, "w") as fh:
        fh.write("\n".join(report) + "\n")
    print("\n".join(report[:60]))
