"""The matrix's standard cells, listed in one place: every transformation a row may name.

A cell is a function of a `reference.Reference` (base_cells.py says what it returns).  `STANDARD`
maps each name a test may pass to ``matrix.run(program, transforms)`` to its cell; ``matrix.run``
takes it unless it is given ``cells=`` (a module with a cell of its own passes
``cells={**cell_table.STANDARD, "mine": cell_mine}``).  Importing a cell module registers nothing:
a cell is in the table because it is written here.
"""

from __future__ import annotations

import types

from . import base_cells, closure_cells, numba_cells, redteam_wave30h_cells, vmap_cells
from . import redteam_wave27b_cells as wave27b
from . import redteam_wave29b_cells as wave29b

#: name -> cell, read-only: a module with a cell of its own builds its own table (above)
STANDARD = types.MappingProxyType({
    # base_cells.py: the first eight (matrix.TRANSFORMS)
    "grad": base_cells.cell_grad, "value_and_grad": base_cells.cell_value_and_grad,
    "hessian": base_cells.cell_hessian, "jvp": base_cells.cell_jvp, "vjp": base_cells.cell_vjp,
    "numba": base_cells.cell_numba, "check": base_cells.cell_check, "tree": base_cells.cell_tree,
    # closure_cells.py (closure_cells.EXTRA)
    "jacobian": closure_cells.cell_jacobian, "hvp": closure_cells.cell_hvp, "float32": closure_cells.cell_float32,
    # vmap_cells.py; redteam_wave27b_cells.py (per-example gradients of f(params, x, y))
    "vmap_grad": vmap_cells.cell_vmap_grad, "vmap": wave27b.cell_vmap,
    # redteam_wave29b_cells.py: composed transformations and the API's options (COMPOSED, NUMBA)
    "grad_grad": wave29b.cell_grad_grad, "jac_grad": wave29b.cell_jac_grad, "jvp_grad": wave29b.cell_jvp_grad,
    "vjp_grad": wave29b.cell_vjp_grad, "vjp_jac": wave29b.cell_vjp_jac, "vmap_jac": wave29b.cell_vmap_jac,
    "vmap_hess": wave29b.cell_vmap_hess, "hess_argnums": wave29b.cell_hess_argnums,
    "hess_tree": wave29b.cell_hess_tree, "jvp_tree": wave29b.cell_jvp_tree, "vjp_tree": wave29b.cell_vjp_tree,
    "hess_f32": wave29b.cell_hess_f32, "argnums_neg": wave29b.cell_argnums_neg, "kwargs": wave29b.cell_kwargs,
    "vjp_kwargs": wave29b.cell_vjp_kwargs, "hess_numba": wave29b.cell_hess_numba,
    "jac_grad_numba": wave29b.cell_jac_grad_numba, "vmap_grad_numba": wave29b.cell_vmap_grad_numba,
    # redteam_wave30h_cells.py
    "vmap_examples": redteam_wave30h_cells.cell_vmap_examples, "hessian_rows": redteam_wave30h_cells.cell_hessian_rows,
    "hessian_float32": redteam_wave30h_cells.cell_hessian_float32,
    # numba_cells.py (wave 35e)
    "numba_value_and_grad": numba_cells.cell_numba_value_and_grad, "numba_float32": numba_cells.cell_numba_float32,
})
