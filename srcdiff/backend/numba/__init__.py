"""The numba backend's parts (``jit="numba"``, backend/jit.py): the generated functions as one
module numba compiles (module.py), numba's spellings (spelling.py), and numba versions of the
run-time helpers (runtime.py, which imports numba)."""
