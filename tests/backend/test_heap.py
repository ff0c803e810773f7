"""The allocator's thresholds are raised once, the first time srcdiff builds a function, without
touching memory (srcdiff/backend/heap.py)."""

import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import resource
    import numpy as np
    import srcdiff
    from srcdiff.backend import heap

    def f(x):
        return np.sum(np.sin(x) * x)

    assert not heap._settled, "settled at import"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    x = np.linspace(0.0, 1.0, 5)
    g = srcdiff.grad(f)(x)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert heap._settled, "not settled by the first gradient"
    assert np.allclose(g, np.cos(x) * x + np.sin(x))
    # ru_maxrss is in KiB on Linux: the block is never touched, so it is not resident
    assert after - before < heap.BLOCK_BYTES // 2048, (before, after)
    print("ok")
""")


def test_the_first_build_settles_the_heap_without_touching_the_block(tmp_path):
    script = tmp_path / "settle.py"  # a file: srcdiff reads the function's source
    script.write_text(PROGRAM)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
