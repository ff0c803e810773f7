"""Pin this process to one core and every numeric library to one thread.

Imported by ``run.py`` before NumPy, JAX or PyTorch: thread-pool sizes are
read from the environment when a library loads, and an idle OpenMP pool of one
library slows the others down badly on a small machine.
OPENBLAS_CORETYPE is left as the machine sets it.
"""

import os
import sys

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def pin_to_one_core():
    """Returns the core this process now runs on (None where affinity is unsupported)."""
    for name in ("numpy", "jax", "torch"):
        if name in sys.modules:
            print(f"warning: {name} was imported before single_core; its thread count "
                  "may not be 1", file=sys.stderr)
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    xla_flags = os.environ.get("XLA_FLAGS", "")
    if XLA_ONE_THREAD not in xla_flags:
        os.environ["XLA_FLAGS"] = f"{xla_flags} {XLA_ONE_THREAD}".strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["TANGENT_DISK_CACHE"] = "0"   # first calls must transform from scratch
    if not hasattr(os, "sched_setaffinity"):
        return None
    core = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return core


CORE = pin_to_one_core()
