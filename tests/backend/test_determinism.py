"""The same function and arguments always give the same generated source, whatever was
compiled before it: each order of compilation runs in a fresh process."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MODEL = '''
import numpy as np


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2
    return np.mean((out - y) ** 2)


def loop(x, n):
    total = 0.0
    for i in range(n):
        total = total + np.sin(x * i) * x
    return total


def step(y, k):
    return y * np.cos(k * y)


def helper_twice(y, k):
    z = step(y, k)
    return np.sum(step(z, k))


def copy_swap(x, y):
    a = x
    x = y
    y = a
    return np.sum(x * 2.0 + y * 3.0)


def sum_of_sum(x, y):
    return np.sum(x + y)
'''

RUN = '''
import json, sys
import numpy as np
import srcdiff
sys.path.insert(0, sys.argv[1])
import model

rng = np.random.default_rng(0)
X, y = rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
W1, b1, W2 = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2))
CASES = {
    "mlp-generic": lambda: srcdiff.grad(model.mlp, wrt=(0, 1, 2)).source,
    "mlp-specialised": lambda: srcdiff.grad(model.mlp, wrt=(0, 1, 2)).source_for(W1, b1, W2, X, y),
    "loop": lambda: srcdiff.grad(model.loop).source_for(1.3, 4),
    "loop-array": lambda: srcdiff.grad(model.loop).source_for(np.ones(3), 4),
    "helper": lambda: srcdiff.grad(model.helper_twice).source_for(np.ones(3), 0.5),
    "copy-swap": lambda: srcdiff.grad(model.copy_swap, wrt=(0, 1)).source_for(np.ones(3), np.ones(3)),
    "sum-of-sum": lambda: srcdiff.grad(model.sum_of_sum, wrt=(0, 1)).source_for(np.ones(3), np.ones(3)),
    "helper-callees": lambda: json.dumps(sorted(
        (lambda g: (g(np.ones(3), 0.5), g.callee_sources)[1])(srcdiff.grad(model.helper_twice)).values())),
}
print(json.dumps({name: CASES[name]() for name in sys.argv[2:]}))
'''

ORDERS = [
    ["mlp-generic", "mlp-specialised", "loop", "loop-array", "helper", "helper-callees", "copy-swap", "sum-of-sum"],
    ["mlp-specialised", "mlp-generic", "loop-array", "loop", "helper-callees", "helper", "sum-of-sum", "copy-swap"],
    ["helper-callees", "copy-swap", "loop-array", "mlp-specialised", "helper", "sum-of-sum", "mlp-generic", "loop"],
]


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("determinism")
    (folder / "model.py").write_text(textwrap.dedent(MODEL))
    (folder / "run.py").write_text(textwrap.dedent(RUN))
    results = []
    for seed, order in enumerate(ORDERS):  # each process hashes strings differently too
        env = {**os.environ, "PYTHONHASHSEED": str(seed + 1)}
        done = subprocess.run([sys.executable, str(folder / "run.py"), str(folder), *order],
                              capture_output=True, text=True, cwd=Path(__file__).parent, env=env)
        assert done.returncode == 0, done.stderr
        results.append(json.loads(done.stdout))
    return results


@pytest.mark.parametrize("case", ORDERS[0])
def test_source_does_not_depend_on_what_was_compiled_before(sources, case):
    first, *others = [result[case] for result in sources]
    for other in others:
        assert other == first


def test_the_generic_mlp_computes_the_first_layer_once(sources):
    # the defect this guards against: a specialised variant compiled first made the
    # shape-generic one compute X @ W1 three times
    for result in sources:
        code = [line for line in result["mlp-generic"].splitlines() if not line.strip().startswith("#")]
        assert sum(line.count("X @ W1") for line in code) == 1, result["mlp-generic"]
