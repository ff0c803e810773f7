"""A fused loop's sums moved to a loop of their own where that lets the compiler vectorise it.

A loop that adds into a number (``b_bar_sum += z_bar_i``: a bias's gradient, ``np.sum`` of a
chain) is not vectorised: without ``fastmath`` the compiler keeps the additions in their order,
one at a time, and with them every other operation of the body.  Where the body's work is
arithmetic the CPU's vector instructions do (tanh_kernel.py's ``tanh``, square roots,
divisions), that costs more than the sum: the logistic loss's loop over 10,000 elements took
96 µs with its sum, 24 µs without it, the sum taken after by a second loop over the values
written.  The second loop adds the same values in the same order: the result is the same,
bit for bit.

The sums are moved only where that pays (chains.py asks `apart` when it closes a loop): the
body calls nothing but what vectorises (a call of the C library, ``np.exp``, ``np.log``,
``np.power``, keeps the loop scalar whatever the sums do), carries no number from one
iteration to the next (sums into an array at offsets, chains.py's `_carried`), and holds a
``tanh``, or a square root or division whose summed values the loop writes anyway (an array
written only for the sum costs a pass over memory, more than those gain).
"""

from __future__ import annotations

import ast

from . import kinds
from .loopcode import name_node, parse

#: NumPy calls of numbers numba compiles to arithmetic the compiler vectorises
VECTOR_CALLS = {"tanh", "sqrt", "divide", "abs", "absolute", "fabs", "negative", "positive", "maximum",
                "minimum", "square"}
#: those that cost enough to pay for a loop of their own for the sums
COSTLY = {"tanh"}
CHEAP_PAYING = {"sqrt", "divide"}


def apart(body: list, writes: list, accumulators: set, index: str, size: str, name) -> tuple[list, list] | None:
    """The loop body (`body` then `writes`, statements of one element `index` of `size`) with its
    additions into `accumulators` moved to a loop of their own, as (statements before the loops,
    [the loop, the sums' loop]); None where that would not pay.  `name` makes a fresh name."""
    sums = [s for s in body if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name)
            and s.target.id in accumulators]
    if not sums:
        return None
    called = set()
    for stmt in body + writes:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                func = kinds.numpy_name(node.func)
                if func not in VECTOR_CALLS:
                    return None
                called.add(func)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not (
                    isinstance(node.right, ast.Constant) and type(node.right.value) is int):
                return None
    if _carried(body, index, accumulators):
        return None
    stored = _stored(body, writes)
    if not called & COSTLY and not (called & CHEAP_PAYING and all(_operand(s) in stored for s in sums)):
        return None
    init, terms, kept = [], [], []
    for stmt in body:
        if stmt not in sums:
            kept.append(stmt)
            continue
        array = stored.get(_operand(stmt))
        if array is None:  # the values summed are written for the sum's loop
            array = name(f"{stmt.target.id}_terms")
            init.append(parse(f"{array} = np.empty({size}, dtype=np.float64)"))
            kept.append(ast.Assign([ast.Subscript(name_node(array), name_node(index), ast.Store())], stmt.value))
        terms.append((stmt.target.id, array))
    loop = ast.For(name_node(index, True), ast.Call(name_node("range"), [name_node(size)], []), kept + writes, [])
    adds = [parse(f"{acc} += {array}[{index}]") for acc, array in terms]
    summing = ast.For(name_node(index, True), ast.Call(name_node("range"), [name_node(size)], []), adds, [])
    return init, [loop, summing]


def _operand(stmt: ast.AugAssign) -> str | None:
    return stmt.value.id if isinstance(stmt.value, ast.Name) else None


def _stored(body: list, writes: list) -> dict:
    """The loop's numbers bound once in the body and written to an array at the index, with the
    array: the values a sum of them reads are there after the loop."""
    bound: dict = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound[node.id] = bound.get(node.id, 0) + 1
    found = {}
    for stmt in writes:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and bound.get(stmt.value.id) == 1 \
                and isinstance(stmt.targets[0], ast.Subscript) and isinstance(stmt.targets[0].value, ast.Name):
            found[stmt.value.id] = stmt.targets[0].value.id
    return found


def _carried(body: list, index: str, accumulators: set) -> bool:
    """Whether the body carries a number from one iteration to the next other than its sums (a
    number read before it is bound), or writes an array anywhere but at the index."""
    bound: set = set()
    for stmt in body:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in accumulators:
            continue
        if not isinstance(stmt, (ast.Assign, ast.AugAssign)):
            return True
        target = stmt.target if isinstance(stmt, ast.AugAssign) else stmt.targets[0]
        if isinstance(target, ast.Subscript):
            if not (isinstance(target.slice, ast.Name) and target.slice.id == index):
                return True
        elif not isinstance(target, ast.Name) or isinstance(stmt, ast.AugAssign):
            return True
        else:
            reads = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
            if target.id not in bound and target.id in reads:
                return True
            bound.add(target.id)
    return False
