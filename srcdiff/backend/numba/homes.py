"""Where each run-time helper with a numba version lives: the modules of this package whose
``HELPERS`` the generated code may call (their `overload`s registered when imported).

backend/jit.py imports the numba code's module from these names (``from <home> import name``),
so numba compiles the helper's numba version where the Python code called its Python one.
"""

from __future__ import annotations


def homes() -> dict[str, str]:
    """Helper name -> the module that holds its numba version (imported here, which registers it)."""
    from . import (
        arrays,
        as_lists,
        at_least,
        averages,
        axis_calls,
        bin_helpers,
        calculus,
        calculus_calls,
        cholesky_more,
        counted_copies,
        decompositions,
        diagonals,
        dict_items,
        einsum,
        exact_sums,
        extremum_rows,
        fft_parts,
        frequencies,
        gathers,
        grids,
        guards,
        index_adds,
        index_writes,  # noqa: F401  (registers set_item through an integer index array)
        integers,
        kink_helpers,
        least_squares,
        linalg_more,
        list_adjoints,
        list_joins,
        list_repeats,
        list_sums,
        list_writes,
        log_sums,
        lu_factors,
        masks,
        missing,
        named_norms,
        object_calls,
        open_meshes,
        optionals,
        pads,
        partitions,
        points,
        random_draws,
        reductions,
        row_helpers,
        runtime,
        scans,
        shape_tuples,
        slice_adds,  # noqa: F401  (registers index_add through slices)
        sort_ties,
        sorting,
        special,
        stacked,
        take_adjoints,
        triangular,
        truth_tests,
        try_decisions,
        tuple_parts,
        turns,
        zero_adjoints,
    )

    modules = (runtime, reductions, missing, einsum, special, arrays, linalg_more, calculus, guards, decompositions,
               calculus_calls, list_joins, masks, points, shape_tuples, stacked, turns, index_adds, pads,
               zero_adjoints, optionals, diagonals, sorting, grids, try_decisions, random_draws, take_adjoints,
               named_norms, triangular, tuple_parts, cholesky_more, kink_helpers, log_sums, list_sums, averages,
               list_adjoints, integers, gathers, scans, partitions, exact_sums, fft_parts, object_calls,
               extremum_rows, open_meshes, bin_helpers, axis_calls, least_squares, truth_tests, at_least, as_lists,
               lu_factors, counted_copies, row_helpers, dict_items, list_repeats, frequencies,
               list_writes, sort_ties)
    return {name: module.__name__ for module in modules for name in module.HELPERS}


__all__ = ["homes"]
