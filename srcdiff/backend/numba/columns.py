"""A Hessian's (or a Jacobian's) columns in one compiled call, for ``jit="numba"``.

Column k of a Hessian is the derivative of the gradient along the k-th unit direction:
forward mode over the gradient's generated code, `width` directions per sweep
(ad/tangent_vector.py: the gradient's own work is done once per sweep), compiled and fused
by numba (jit.py).  Called from Python once per sweep, each call would pay for building unit
tangents and entering numba, more than a small problem's whole work.  The loop written here
runs the sweeps inside numba: it sets one element of each direction's tangent to one, calls
the sweep, and writes the products into one preallocated array per part of the product,
``(part_i.size, columns)``: a full group of directions row by row, so that each row's memory
is touched once per group rather than once per column.

The loop is compiled in the sweep's own module (jit.py's `extra`), calling it by name, so
numba's on-disk cache keeps both; its text is made from the argument kinds alone.
"""

from __future__ import annotations


def loop_text(name: str, sweep: str, env: list[str], n_params: int, leaves: tuple, outputs: tuple,
              several: bool, width: int, split: tuple[str, str] | None = None) -> str:
    """``name(*env, *params, *sizes) -> (out_0, out_1, ...)`` running `sweep`.

    `leaves` lists, in the sweep's tangent order, (the parameter's position, whether it is an
    array) of each differentiated parameter; the sweep is ``sweep(*env, *params, *tangents_0,
    ..., *tangents_{width-1}) -> (None, products)``: one product per direction (the product
    itself for one direction), each a tuple of one part per entry of `outputs` (whether that
    part is an array) when `several`, else that one part.  ``out_i[:, k]`` is part i of the
    product along the k-th direction (leaves in order, each one's elements in C order); its
    number of elements is the i-th of `sizes`.

    With `split` (the names of hoisting.py's two halves of the sweep), the loop computes the
    invariant half once and calls the directed half per sweep."""
    params = [f"p{i}" for i in range(n_params)]
    lines = [f"def {name}({', '.join([*env, *params, *[f'n{i}' for i in range(len(outputs))]])}):"]
    sizes = [f"p{position}.size" if is_array else "1" for position, is_array in leaves]
    for t, size in enumerate(sizes):
        lines.append(f"    s{t + 1} = s{t} + {size}" if t else f"    s0 = 0\n    s1 = {size}")
    total = f"s{len(leaves)}"
    for j in range(width):
        for t, (position, is_array) in enumerate(leaves):
            if is_array:
                lines += [f"    d{j}_{t} = np.zeros(p{position}.shape)", f"    g{j}_{t} = d{j}_{t}.reshape(-1)"]
            else:
                lines.append(f"    d{j}_{t} = 0.0")
    for i in range(len(outputs)):
        lines.append(f"    o{i} = np.empty((n{i}, {total}))")
    tangents = [f"d{j}_{t}" for j in range(width) for t in range(len(leaves))]
    if split is not None:
        lines.append(f"    v = {split[0]}({', '.join([*env, *params])})")
    lines.append(f"    for c0 in range(0, {total}, {width}):")
    for j in range(width):
        for t, (_, is_array) in enumerate(leaves):
            if is_array:
                lines.append(f"        if s{t} <= c0 + {j} < s{t + 1}:\n"
                             f"            g{j}_{t}[c0 + {j} - s{t}] = 1.0")
            else:
                lines.append(f"        d{j}_{t} = 1.0 if c0 + {j} == s{t} else 0.0")
    call = f"{sweep}({', '.join([*env, *params, *tangents])})" if split is None else \
        f"{split[1]}({', '.join([*env, *params, 'v', *tangents])})"
    lines.append(f"        r = {call}[1]")
    if width > 1 and any(outputs):
        lines.append(f"        if c0 + {width} <= {total}:")
        lines += ["            " + line for line in _group_written(width, leaves, outputs, several)]
        lines.append("        else:")
        lines += ["    " + line for line in _one_by_one(width, leaves, outputs, several, total)]
    else:
        lines += _one_by_one(width, leaves, outputs, several, total)
    outs = ", ".join(f"o{i}" for i in range(len(outputs)))
    lines.append(f"    return ({outs},)")
    return "\n".join(lines) + "\n"


def _part(j: int, i: int, width: int, several: bool) -> str:
    """Part `i` of the `j`-th direction's product, as the loop reads it from the sweep's `r`."""
    product = f"r[{j}]" if width > 1 else "r"
    return f"{product}[{i}]" if several else product


def _reset(j: int, leaves: tuple, indent: str) -> list[str]:
    """The `j`-th direction's unit element set back to zero."""
    return [line for t, (_, is_array) in enumerate(leaves) if is_array
            for line in (f"{indent}if s{t} <= c0 + {j} < s{t + 1}:", f"{indent}    g{j}_{t}[c0 + {j} - s{t}] = 0.0")]


def _one_by_one(width: int, leaves: tuple, outputs: tuple, several: bool, total: str) -> list[str]:
    """Each direction's product written as one column (the last group, which may be short)."""
    lines = []
    for j in range(width):
        lines.append(f"        if c0 + {j} < {total}:")
        for i, is_array in enumerate(outputs):
            part = _part(j, i, width, several)
            lines.append(f"            o{i}[:, c0 + {j}] = np.ascontiguousarray({part}).reshape(-1)" if is_array else
                         f"            o{i}[0, c0 + {j}] = {part}")
        lines += _reset(j, leaves, "            ")
    return lines


def _group_written(width: int, leaves: tuple, outputs: tuple, several: bool) -> list[str]:
    """A whole group's products written row by row: a column's elements lie a row apart, so
    `width` columns written one by one touch every row's memory `width` times (2.2-2.9 ms of
    the 3 ms of a 1000 x 1000 Hessian); written together, once (the same numbers, copied)."""
    lines = []
    for i, is_array in enumerate(outputs):
        if not is_array:
            lines += [f"o{i}[0, c0 + {j}] = {_part(j, i, width, several)}" for j in range(width)]
            continue
        lines += [f"f{j}_{i} = np.ascontiguousarray({_part(j, i, width, several)}).reshape(-1)" for j in range(width)]
        sizes = " or ".join(f"f{j}_{i}.size != o{i}.shape[0]" for j in range(width))
        lines += [f"if {sizes}:", "    raise ValueError('a product has not the size of its column')"]
        lines.append(f"for e in range(o{i}.shape[0]):")
        lines += [f"    o{i}[e, c0 + {j}] = f{j}_{i}[e]" for j in range(width)]
    for j in range(width):
        lines += _reset(j, leaves, "")
    return lines


__all__ = ["loop_text"]
