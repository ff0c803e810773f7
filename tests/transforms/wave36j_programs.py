"""Programs the closure fuzz (test_wave36j_fuzz_closure.py) found, minimised by hand: each a class,
with variants (OPEN: what still fails, NUMBA_DEAD_LOOPS: what numba refuses at the user's line)."""

import math

import numpy as np

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


#: name -> (args, wrt)
OPEN = {"tie_through_loop": ((1.0, 0.7), 1), "tie_through_loop_np": ((1.0, 0.7), 1),
        "tie_through_while": ((1.0, 0.7), 1)}
NUMBA_DEAD_LOOPS = {"dead_while_with_generator": ((0.0, -0.5), 1), "dead_loop_branches": ((2.041, -0.5), 0)}
