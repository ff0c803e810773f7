"""The C allocator's thresholds, raised once so generated code's temporaries are not page faults.

glibc's malloc serves a block over its mmap threshold by a fresh mapping of the system's, and
gives memory at the top of its heap back to the system once more of it than the trim threshold
is free; both start at 128 KiB.  A gradient holding a handful of NumPy temporaries of some
tens of KiB each then frees them at the end of every call, the heap shrinks, and the next call
takes a page fault on every 4 KiB it touches again: a Hessian of Rosenbrock at n = 100 ran 8x
slower in a fresh process than in one that had imported SciPy.  Freeing one mapped block
raises both thresholds for the process (the mmap threshold to the block's size, the trim
threshold to twice that): importing SciPy, JAX or PyTorch does so, and so does any earlier
large array.  `settle` frees one block of `BLOCK_BYTES`, once per process, the first time
srcdiff builds a function: it is never touched, so it costs a mapping and no memory.  The block
is as large as glibc lets a free raise the thresholds (32 MiB, less a margin for the chunk's
header): the trim threshold becomes about 64 MiB, so code whose temporaries add up to tens of
MiB (an hvp at n = 1e6 holds six arrays of 8 MB) keeps its heap too.  With 16 MiB it gave
2,580 pages back and faulted them in again on every call.
Elsewhere than glibc it is an allocation and a free, nothing more.
"""

from __future__ import annotations

import numpy as np

#: blocks up to this size then come from the heap; up to twice it stays mapped when freed
#: (glibc raises its thresholds only on the free of a block of at most 32 MiB, header included)
BLOCK_BYTES = (32 << 20) - (64 << 10)

_settled = False


def settle() -> None:
    """Raise the allocator's thresholds once for this process (see the module's docstring)."""
    global _settled
    if not _settled:
        _settled = True
        np.empty(BLOCK_BYTES // 8)  # allocated and freed at once: the free raises the thresholds
