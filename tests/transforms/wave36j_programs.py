"""Programs the closure fuzz (test_wave36j_fuzz_closure.py) found, minimised by hand: each a class,
with variants (OPEN: what still fails, NUMBA_DEAD_LOOPS: what numba refuses at the user's line)."""

import math

import numpy as np

# ---- a list built in a branch the run does not take, differentiated twice (fixed) ----

def early_return_above_a_generator(x, y):
    y *= min((1.0 - y), ((x * x + 0.5) ** 1.5))
    if (-x) <= y:
        return y
    return math.cos(sum(y for _ in range(2))) + y


def early_return_above_a_comprehension(x, y):
    if x <= y:
        return y * y
    return sum([y * k for k in range(3)]) + x * y


def list_built_in_an_else(x, y):
    if x > y:
        s = x * y
    else:
        items = []
        for k in range(3):
            items.append(y ** 2 * k)
        s = sum(items)
    return s + y


def array_list_in_a_branch(x, y):
    if np.sum(x) > 10.0:
        return np.sum(x * y)
    rows = [x * y[k] for k in range(2)]
    return np.sum(np.stack(rows) ** 2)


# ---- a tie whose operands are one value through a loop: hessian NaN (open) ----

def tie_through_loop(x, y):
    for _ in range(3):
        x = y
    return min(x, y) * y


def tie_through_loop_np(x, y):
    for _ in range(2):
        x = y * 1.0
    return np.minimum(x, y) + y * y


def tie_through_while(x, y):
    k = 0
    while k < 2:
        x = y
        k = k + 1
    return max(x, y) * y


# ---- loops that never run, whose stacks or values numba's dead-branch pruning leaves untyped ----

def dead_while_with_generator(x, y):
    k0 = 0
    while k0 < 0 and x < x:
        x -= sum(max(y, 1.0) for _j1 in range(2))
        k0 = k0 + 1
    return y + x


def dead_loop_branches(x, y):
    for _i0 in range(4):
        if max(3.0, y) > 0:
            y = y + math.sqrt(max(3.0, y))
        else:
            y = y - max(3.0, y)
    k1 = 0
    while k1 < 2 and x >= 1.0:
        x = min(y, np.sqrt(y * y + 0.25))
        x = 1.5
        k1 = k1 + 1
    for _i2 in range(0):
        if math.cos(-0.75) > -1.0:
            x += (-x)
            y = x
        elif not math.tanh(x) <= 2:
            x *= (-y)
        else:
            y = np.log(abs(x) + 0.5)
    return (math.sqrt((x + y)) if (x + y) > 0 else math.cos(x)) + x + y


#: name -> (args, wrt): reverse over reverse (jacobian of grad, vjp of grad) set up a list's adjoint
#: before the branch that builds it, and failed on the branch not taken (TypeError: None has no len)
BRANCH_LISTS = {"early_return_above_a_generator": ((1.0, 0.577), 1),
                "early_return_above_a_comprehension": ((0.5, 1.5), 1),
                "list_built_in_an_else": ((2.0, 0.5), 1),
                "array_list_in_a_branch": ((np.array([9.0, 2.0]), np.array([0.5, -1.5])), 1)}
#: name -> (args, wrt)
OPEN = {"tie_through_loop": ((1.0, 0.7), 1), "tie_through_loop_np": ((1.0, 0.7), 1),
        "tie_through_while": ((1.0, 0.7), 1)}
NUMBA_DEAD_LOOPS = {"dead_while_with_generator": ((0.0, -0.5), 1), "dead_loop_branches": ((2.041, -0.5), 0)}
