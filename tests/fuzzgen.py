"""Random small programs, written the way users write them, for the property-based fuzz tests.

A `ProgramGen` draws a module's source text (a main function `f`, maybe a helper it calls)
from a Hypothesis `data` object, together with the arguments to differentiate at.  The text
is plain Python + NumPy: srcdiff reads it back with `inspect.getsource`, so `tests/ad/test_fuzz.py`
writes it to a real file and imports it.

The generator knows the type of every name it creates (a Python float, a loop index, a 1-D
array of the argument's length, an n x n matrix), so every program runs; whether a point is
smooth is decided numerically by the checker (see `check_program`).
"""

import copy
import itertools
import math
import re
import textwrap
import warnings
from dataclasses import dataclass, field

import numpy as np
from hypothesis import assume, note
from hypothesis import strategies as st
from modules import import_source

import srcdiff

# ---- options: which constructs a family of programs may use ----


@dataclass(frozen=True)
class Options:
    arrays: bool = False          # 1-D array arguments and array expressions
    matrix: bool = False          # an n x n matrix argument
    ternary: bool = True          # `a if c else b`
    nested_ternary: bool = False  # `a if c else b if d else e`, comprehensions in a branch (bugs)
    branches: bool = True         # if / elif / else statements
    loops: bool = True            # for over range, while with a bound
    comprehensions: bool = True   # list comprehensions, generator expressions
    helper: bool = True           # a second generated function called from f
    guards: bool = False          # np.where / ternaries with a non-finite untaken side
    powers_at_zero: bool = False  # x ** 0 and x ** i (i a loop index, may be 0): NaN at x = 0 (a known bug)
    math_calls: bool = True       # math.* on Python floats
    nested_comprehension: bool = False  # np.array([[... for j] for i]) (a known bug)
    writes: bool = False          # out[i] = ..., out[i] += ..., out[1:] = ... into a new array
    iteration: bool = False       # for v in x, enumerate, zip; lists built with append
    early_return: bool = False    # `if c: return ...` before the end
    swaps: bool = False           # a, b = b, a
    gather: bool = False          # X[:, idx], X[idx, :] (a slice and an index array: a bug)
    max_statements: int = 4


_counter = itertools.count()


def fresh_module_name():
    return f"fz_{next(_counter)}"


@dataclass
class Scope:
    floats: list = field(default_factory=list)   # names holding a float
    arrays: list = field(default_factory=list)   # names holding a 1-D float array of length n
    matrices: list = field(default_factory=list)  # names holding an n x n array
    ints: list = field(default_factory=list)     # loop indices (0 <= i < n when `indexes`)
    indexes: list = field(default_factory=list)  # loop indices valid as x[i]
    assignable: list = field(default_factory=list)  # float names a statement may reassign

    def child(self):
        return Scope(list(self.floats), list(self.arrays), list(self.matrices), list(self.ints),
                     list(self.indexes), list(self.assignable))


CONSTS = ["0.5", "2.0", "1.5", "-1.0", "3.0", "0.25", "1.0", "2", "-0.75"]
FLOAT_EXPONENTS = ["2.0", "3.0", "1.5", "0.5", "-1.0", "-0.5", "2.5"]


class ProgramGen:
    def __init__(self, data, options: Options, n: int = 3):
        self.data = data
        self.o = options
        self.n = n                  # the length of array arguments
        self.names = itertools.count()
        self.helper_name = None
        self.in_ternary = 0         # > 0 while drawing a branch of a conditional expression
        self.array_helper_name = None

    # -- drawing --
    def draw(self, strategy, label=None):
        return self.data.draw(strategy, label=label)

    def choice(self, options, label=None):
        return self.draw(st.sampled_from(options), label=label)

    def coin(self, p_label=None):
        return self.draw(st.booleans(), label=p_label)

    def fresh(self, prefix="v"):
        return f"{prefix}{next(self.names)}"

    # -- scalar expressions --
    def scalar(self, scope: Scope, depth: int) -> str:
        leaves = ["var", "var", "var", "const"]
        if scope.arrays and scope.indexes:
            leaves += ["index_loop", "index_loop"]
        if scope.arrays:
            leaves += ["index_const"]
        if scope.matrices:
            leaves += ["matrix_entry"]
        if depth <= 0:
            kind = self.choice(leaves)
        else:
            kinds = leaves + ["add", "sub", "mul", "div", "neg", "pow_int", "pow_float", "np_call",
                              "abs", "minmax", "safe_root", "safe_log"]
            kinds += ["add", "mul", "sub"]
            if self.o.math_calls:
                kinds += ["math_call", "math_call"]
            inside = self.in_ternary and not self.o.nested_ternary
            if self.o.ternary and not inside:
                kinds += ["ternary"]
            if self.o.nested_ternary:
                kinds += ["nested_ternary", "nested_ternary"]
            if self.o.guards and not inside:
                kinds += ["guarded_ternary"]
            if self.helper_name:
                kinds += ["helper", "helper"]
            if scope.ints:
                kinds += ["with_int"] + (["pow_loop"] if self.o.powers_at_zero else [])
            if self.o.comprehensions and not inside:
                kinds += ["gen_sum"]
            if self.o.arrays:
                kinds += ["reduce"] * 6 + ["dot", "diff_reduce"]
            if self.o.matrix and scope.matrices:
                kinds += ["matrix_reduce"] * 4
            kind = self.choice(kinds)
        s = lambda: self.scalar(scope, depth - 1)  # noqa: E731
        if kind == "var":
            return self.choice(scope.floats) if scope.floats else self.choice(CONSTS)
        if kind == "const":
            return self.choice(CONSTS)
        if kind == "index_loop":
            return f"{self.choice(scope.arrays)}[{self.choice(scope.indexes)}]"
        if kind == "index_const":
            k = self.draw(st.integers(-self.n, self.n - 1))
            return f"{self.choice(scope.arrays)}[{k}]"
        if kind == "matrix_entry":
            m = self.choice(scope.matrices)
            if scope.indexes and self.coin():
                i = self.choice(scope.indexes)
                j = self.choice(scope.indexes + ["0", str(self.n - 1)])
            else:
                i, j = self.draw(st.integers(0, self.n - 1)), self.draw(st.integers(-self.n, self.n - 1))
            return f"{m}[{i}, {j}]"
        if kind in ("add", "sub", "mul"):
            op = {"add": "+", "sub": "-", "mul": "*"}[kind]
            return f"({s()} {op} {s()})"
        if kind == "div":
            if self.coin():
                return f"({s()} / {self.choice(['2.0', '3', '-4.0', '0.5'])})"
            b = s()
            return f"({s()} / (1.0 + {b} * {b}))"
        if kind == "neg":
            return f"(-{s()})"
        if kind == "pow_int":
            return f"({s()} ** {self.draw(st.integers(0 if self.o.powers_at_zero else 1, 4))})"
        if kind == "pow_float":
            e = self.choice(FLOAT_EXPONENTS)
            base = s()
            if e in ("0.5", "-0.5", "1.5", "2.5", "-1.0"):
                base = f"({base} * {base} + 0.5)"
            return f"({base} ** {e})"
        if kind == "safe_root":
            a = s()
            return self.choice([f"math.sqrt({a} * {a} + 1.0)", f"np.sqrt({a} * {a} + 0.25)",
                                f"(1.0 + {a} * {a}) ** 0.5"]) if self.o.math_calls else \
                f"np.sqrt({a} * {a} + 0.25)"
        if kind == "safe_log":
            a = s()
            return self.choice([f"math.log(1.0 + {a} * {a})", f"np.log(abs({a}) + 0.5)",
                                f"np.log1p({a} * {a})"]) if self.o.math_calls else f"np.log1p({a} * {a})"
        if kind == "math_call":
            fn = self.choice(["math.sin", "math.cos", "math.tanh", "math.exp", "math.tan"])
            a = s()
            if fn == "math.tan":
                a = f"math.tanh({a})"
            return f"{fn}({a})"
        if kind == "np_call":
            fn = self.choice(["np.sin", "np.cos", "np.tanh", "np.exp", "np.arctan", "np.sinh", "np.cbrt"])
            if fn == "np.cbrt":
                a = s()
                return f"np.cbrt({a} * {a} + 1.0)"
            return f"{fn}({s()})"
        if kind == "abs":
            return self.choice([f"abs({s()})", f"np.abs({s()})"])
        if kind == "minmax":
            return f"{self.choice(['min', 'max'])}({s()}, {s()})"
        if kind == "ternary":
            test = self.condition(scope, depth - 1)
            self.in_ternary += 1
            body, orelse = s(), s()
            self.in_ternary -= 1
            return f"({body} if {test} else {orelse})"
        if kind == "nested_ternary":
            return (f"({s()} if {self.condition(scope, depth - 1)} else {s()} "
                    f"if {self.condition(scope, depth - 1)} else {s()})")
        if kind == "guarded_ternary":
            fn = self.choice(["math.sqrt", "math.log", "np.sqrt", "np.log"])
            self.in_ternary += 1
            a, orelse = s(), s()
            self.in_ternary -= 1
            return f"({fn}({a}) if {a} > 0 else {orelse})"
        if kind == "helper":
            return f"{self.helper_name}({s()}, {s()})"
        if kind == "with_int":
            i = self.choice(scope.ints)
            return self.choice([f"({s()} * {i})", f"float({i})", f"({s()} + {i} * 0.5)"])
        if kind == "pow_loop":
            i = self.choice(scope.ints)
            return f"({s()} ** {i})"
        if kind == "gen_sum":
            j = self.fresh("j")
            inner = scope.child()
            inner.ints.append(j)
            m = self.draw(st.integers(0, 3))
            if scope.arrays and self.coin():
                inner.indexes.append(j)
                rng = f"len({self.choice(scope.arrays)})"
            else:
                rng = str(m)
            body = self.scalar(inner, depth - 1)
            if self.coin():
                return f"sum({body} for {j} in range({rng}))"
            return f"sum([{body} for {j} in range({rng})])"
        if kind == "reduce":
            a = self.array(scope, depth - 1)
            return self.choice([f"np.sum({a})", f"({a}).sum()", f"np.mean({a})", f"({a}).mean()",
                                f"np.max({a})", f"np.min({a})", f"({a}).max()", f"np.prod({a})",
                                f"np.var({a})", f"np.linalg.norm({a} * {a} + 1.0)"])
            # np.std and np.linalg.norm of a vector that may be 0 have a NaN gradient there (documented)
        if kind == "dot":
            a, b = self.array(scope, depth - 1), self.array(scope, depth - 1)
            return self.choice([f"np.dot({a}, {b})", f"({a}) @ ({b})", f"({a}).dot({b})"])
        if kind == "diff_reduce":
            a = self.array(scope, depth - 1)
            return self.choice([f"np.sum(({a})[1:] * ({a})[:-1])", f"np.sum(({a})[::2])",
                                f"np.sum((({a})[1:] - ({a})[:-1]) ** 2)", f"({a})[-1]", f"({a})[1:].mean()"])
        if kind == "matrix_reduce":
            m = self.matrix(scope, depth - 1)
            return self.choice([f"np.sum({m})", f"np.trace({m})", f"({m}).mean()", f"np.max({m})",
                                f"np.sum(({m}) @ {self.array(scope, 0)})"])
        raise AssertionError(kind)

    def condition(self, scope, depth):
        a, b = self.scalar(scope, max(depth, 0)), self.scalar(scope, 0)
        op = self.choice([">", "<", ">=", "<="])
        kind = self.draw(st.integers(0, 5))
        if kind == 4:
            c = self.scalar(scope, 0)
            return f"{a} {op} {b} and {c} < 1.0"
        if kind == 5:
            return f"not {a} {op} {b}"
        return f"{a} {op} {b}"

    # -- 1-D array expressions (length n) --
    def array(self, scope: Scope, depth: int) -> str:
        leaves = ["var"] if scope.arrays else []
        leaves += ["linspace"]
        if depth <= 0:
            kind = self.choice(leaves)
        else:
            kinds = leaves + ["var", "binop", "binop", "scale", "neg", "ufunc", "ufunc", "pow", "where",
                              "maximum", "clip", "cumsum", "flip", "roll", "safe"]
            if self.o.comprehensions:
                kinds += ["comprehension"]
            if self.o.guards:
                kinds += ["guard", "guard"]
            if self.o.matrix and scope.matrices:
                kinds += ["matvec", "matrix_sum", "row"]
            if self.array_helper_name:
                kinds += ["ahelper"] * 3
            kind = self.choice(kinds)
        a = lambda: self.array(scope, depth - 1)  # noqa: E731
        s = lambda: self.scalar(scope, max(depth - 2, 0))  # noqa: E731
        if kind == "var":
            return self.choice(scope.arrays) if scope.arrays else f"np.linspace(0.1, 1.0, {self.n})"
        if kind == "linspace":
            return f"np.linspace(0.1, 1.0, {self.n})"
        if kind == "binop":
            op = self.choice(["+", "-", "*"])
            return f"({a()} {op} {a()})"
        if kind == "scale":
            return self.choice([f"({s()} * {a()})", f"({a()} * {s()})", f"({a()} + {s()})", f"({a()} / 2.0)"])
        if kind == "neg":
            return f"(-{a()})"
        if kind == "ufunc":
            fn = self.choice(["np.sin", "np.cos", "np.tanh", "np.exp", "np.abs", "np.arctan", "np.square"])
            return f"{fn}({a()})"
        if kind == "safe":
            x = a()
            return self.choice([f"np.sqrt({x} * {x} + 1.0)", f"np.log(1.0 + {x} * {x})", f"np.log1p(np.exp({x}))",
                                f"np.hypot({x}, 1.0)", f"({x} * {x} + 0.5) ** -0.5", f"np.logaddexp({x}, 0.0)"])
        if kind == "pow":
            return f"({a()} ** {self.choice(['2', '3', '2.0', '1'] + (['0'] if self.o.powers_at_zero else []))})"
        if kind == "where":
            return f"np.where({a()} > {self.choice(['0.0', '0.5', '-0.3'])}, {a()}, {a()})"
        if kind == "maximum":
            return f"{self.choice(['np.maximum', 'np.minimum'])}({a()}, {self.choice(['0.0', a()])})"
        if kind == "clip":
            return f"np.clip({a()}, -1.0, 1.0)"
        if kind == "cumsum":
            return f"np.cumsum({a()})"
        if kind == "flip":
            return self.choice([f"np.flip({a()})", f"({a()})[::-1]"])
        if kind == "roll":
            x = a()
            return f"np.concatenate([({x})[1:], ({x})[:1]])"
        if kind == "comprehension":
            i = self.fresh("i")
            inner = scope.child()
            inner.ints.append(i)
            inner.indexes.append(i)
            body = self.scalar(inner, max(depth - 1, 1))
            arr = self.choice(scope.arrays) if scope.arrays else None
            rng = f"len({arr})" if arr and self.coin() else str(self.n)
            return f"np.array([{body} for {i} in range({rng})])"
        if kind == "guard":
            x = a()
            form = self.draw(st.integers(0, 3))
            if form == 0:
                return f"np.where({x} > 0, np.sqrt({x}), 0.0)"
            if form == 1:
                return f"np.where({x} > 0, np.log({x}), {x})"
            if form == 2:
                return f"np.where({x} < 30.0, np.log1p(np.exp({x})), {x})"
            return f"np.where({x} > 0.0, {x} ** 0.5, -{x})"
        if kind == "ahelper":
            return self.choice([f"ahelper({a()}, {s()})", f"ahelper({a()}, t={s()})"])
        if kind == "matvec":
            return f"({self.matrix(scope, depth - 1)} @ {a()})"
        if kind == "matrix_sum":
            return f"np.sum({self.matrix(scope, depth - 1)}, axis={self.choice(['0', '1'])})"
        if kind == "row":
            m = self.matrix(scope, depth - 1)
            if scope.indexes and self.coin():
                i = self.choice(scope.indexes)
            else:
                i = str(self.draw(st.integers(0, self.n - 1)))
            return self.choice([f"({m})[{i}]", f"({m})[:, {i}]"])
        raise AssertionError(kind)

    # -- n x n matrix expressions --
    def matrix(self, scope: Scope, depth: int) -> str:
        if depth <= 0:
            return self.choice(scope.matrices)
        kinds = ["var", "var", "T", "mul", "ufunc", "outer", "broadcast", "matmul", "loop_rows"]
        if self.o.nested_comprehension:
            kinds += ["nested_comp"] * 3
        if self.o.gather:
            kinds += ["gather"] * 3
        kind = self.choice(kinds)
        m = lambda: self.matrix(scope, depth - 1)  # noqa: E731
        if kind == "var":
            return self.choice(scope.matrices)
        if kind == "T":
            return f"({m()}).T"
        if kind == "mul":
            return f"({m()} {self.choice(['*', '+', '-'])} {m()})"
        if kind == "ufunc":
            return f"{self.choice(['np.sin', 'np.tanh', 'np.square', 'np.cos'])}({m()})"
        if kind == "outer":
            return f"np.outer({self.array(scope, 0)}, {self.array(scope, 0)})"
        if kind == "broadcast":
            return f"({self.array(scope, 0)}[:, None] * {self.array(scope, 0)}[None, :])"
        if kind == "matmul":
            return f"({m()} @ {m()})"
        if kind == "gather":
            idx = self.choice(["[0, 2, 1]", "np.array([2, 2, 0])", "[1, 0, 0]"])
            return self.choice([f"({m()})[:, {idx}]", f"({m()})[{idx}, :]", f"({m()})[{idx}]"])
        if kind == "loop_rows":  # rows of a matrix as a list of arrays, stacked
            i = self.fresh("i")
            inner = scope.child()
            inner.ints.append(i)
            inner.indexes.append(i)
            return f"np.stack([{self.array(inner, 1)} * {self.scalar(inner, 0)} for {i} in range({self.n})])"
        i, j = self.fresh("i"), self.fresh("j")
        inner = scope.child()
        inner.ints += [i, j]
        inner.indexes += [i, j]
        body = self.scalar(inner, 1)
        return f"np.array([[{body} for {j} in range({self.n})] for {i} in range({self.n})])"

    # -- statements --
    def statements(self, scope: Scope, count: int, depth: int, indent: str) -> list:
        lines = []
        for _ in range(count):
            lines += self.statement(scope, depth, indent)
        return lines

    def statement(self, scope: Scope, depth: int, indent: str) -> list:
        kinds = ["assign_new", "assign_new", "reassign", "augassign"]
        if self.o.arrays:
            kinds += ["array_new"] * 3
        if self.o.matrix:
            kinds += ["matrix_new"] * 2
        if self.o.swaps and len(scope.assignable) >= 2:
            kinds += ["swap"]
        if self.o.arrays and depth > 0:
            if self.o.writes:
                kinds += ["write_loop", "write_loop", "slice_write", "array_aug"]
            if self.o.iteration:
                kinds += ["iterate", "iterate", "append_loop"]
        if depth > 0:
            if self.o.branches:
                kinds += ["if", "if"]
            if self.o.loops:
                kinds += ["for", "for", "while"]
            if self.o.guards:
                kinds += ["guard_if"]
        kind = self.choice(kinds)
        e = lambda: self.scalar(scope, self.draw(st.integers(0, 2)))  # noqa: E731
        if kind == "reassign" and not scope.assignable:
            kind = "assign_new"
        if kind == "augassign" and not scope.assignable:
            kind = "assign_new"
        if kind == "assign_new":
            name = self.fresh()
            line = f"{indent}{name} = {e()}"
            scope.floats.append(name)
            scope.assignable.append(name)
            return [line]
        if kind == "swap":
            a, b = self.draw(st.permutations(scope.assignable))[:2]
            return [f"{indent}{a}, {b} = {b}, {a}"]
        if kind == "write_loop":
            name = self.fresh("o")
            src = self.choice(scope.arrays)
            init = self.choice([f"np.zeros({self.n})", f"np.zeros_like({src})", f"{src}.copy()",
                                f"np.ones(len({src}))", f"np.array({src})", f"np.full({self.n}, 0.5)"])
            i = self.fresh("i")
            inner = scope.child()
            inner.ints.append(i)
            inner.indexes.append(i)
            rng = self.choice([f"len({src})", f"{self.n}", f"1, {self.n}"])
            target = self.choice([f"{name}[{i}]", f"{name}[{i}]", f"{name}[{i} - 1]"] if rng.startswith("1,")
                                 else [f"{name}[{i}]"])
            op = self.choice(["=", "=", "+=", "*="])
            value = self.scalar(inner, self.draw(st.integers(0, 2)))
            lines = [f"{indent}{name} = {init}", f"{indent}for {i} in range({rng}):",
                     f"{indent}    {target} {op} {value}"]
            if self.coin():  # read the array being written: a recurrence
                lines[-1] = f"{indent}    {target} {op} {value} + {name}[{i} - 1] * 0.5"
            scope.arrays.append(name)
            return lines
        if kind == "slice_write":
            name = self.fresh("o")
            src = self.choice(scope.arrays)
            a = self.array(scope, 1)
            target, value = self.choice([(f"{name}[1:]", f"({a})[:-1]"), (f"{name}[:2]", f"({a})[1:]"),
                                         (f"{name}[::2]", f"({a})[::2]"), (f"{name}[0]", f"({a})[-1]"),
                                         (f"{name}[x > 0]", f"({a})[x > 0]")])
            op = self.choice(["=", "+=", "*="])
            # `src * 1.0` is a new array too, but srcdiff only knows np.zeros/copy/...: a refusal
            lines = [f"{indent}{name} = {self.choice([f'{src}.copy()', f'np.zeros({self.n})', f'{src} * 1.0'])}",
                     f"{indent}{target} {op} {value}"]
            scope.arrays.append(name)
            return lines
        if kind == "array_aug":
            name = self.fresh("acc")
            lines = [f"{indent}{name} = {self.choice([f'np.zeros({self.n})', f'{self.choice(scope.arrays)} * 1.0'])}"]
            for _ in range(self.draw(st.integers(1, 2))):
                lines.append(f"{indent}{name} {self.choice(['+=', '-=', '*='])} {self.array(scope, 1)}")
            scope.arrays.append(name)
            return lines
        if kind == "iterate":
            out = []
            if not scope.assignable:
                name = self.fresh("acc")
                scope.floats.append(name)
                scope.assignable.append(name)
                out.append(f"{indent}{name} = 0.0")
            form = self.draw(st.integers(0, 2))
            inner = scope.child()
            a, b = self.fresh("u"), self.fresh("u")
            if form == 0:
                out.append(f"{indent}for {a} in {self.choice(scope.arrays)}:")
                inner.floats.append(a)
            elif form == 1:
                i = self.fresh("i")
                arr = self.choice(scope.arrays)
                out.append(f"{indent}for {i}, {a} in enumerate({arr}):")
                inner.floats.append(a)
                inner.ints.append(i)
                inner.indexes.append(i)
            else:
                out.append(f"{indent}for {a}, {b} in zip({self.choice(scope.arrays)}, {self.choice(scope.arrays)}):")
                inner.floats += [a, b]
            out += self.branch_body(inner, depth, indent)
            return out
        if kind == "append_loop":
            lst, name, i = self.fresh("lst"), self.fresh("a"), self.fresh("i")
            inner = scope.child()
            inner.ints.append(i)
            inner.indexes.append(i)
            out = [f"{indent}{lst} = []", f"{indent}for {i} in range(len({self.choice(scope.arrays)})):",
                   f"{indent}    {lst}.append({self.scalar(inner, self.draw(st.integers(0, 2)))})"]
            if self.coin():
                out.append(f"{indent}{name} = np.array({lst})")
                scope.arrays.append(name)
            else:
                out.append(f"{indent}{name} = {self.choice([f'sum({lst})', f'{lst}[-1]', f'{lst}[0] * 2.0'])}")
                scope.floats.append(name)
                scope.assignable.append(name)
            return out
        if kind == "matrix_new":
            name = self.fresh("m")
            line = f"{indent}{name} = {self.matrix(scope, self.draw(st.integers(1, 2)))}"
            scope.matrices.append(name)
            return [line]
        if kind == "array_new":
            name = self.fresh("a")
            line = f"{indent}{name} = {self.array(scope, self.draw(st.integers(0, 2)))}"
            scope.arrays.append(name)
            return [line]
        if kind == "reassign":
            name = self.choice(scope.assignable)
            return [f"{indent}{name} = {e()}"]
        if kind == "augassign":
            name = self.choice(scope.assignable)
            op = self.choice(["+=", "-=", "*="])
            return [f"{indent}{name} {op} {e()}"]
        if kind == "if" or kind == "guard_if":
            if not scope.assignable:
                name = self.fresh()
                scope.floats.append(name)
                scope.assignable.append(name)
                out = [f"{indent}{name} = {e()}"]
            else:
                out = []
            if kind == "guard_if":
                target = self.choice(scope.assignable)
                a = e()
                fn = self.choice(["math.sqrt", "math.log"])
                out += [f"{indent}if {a} > 0:", f"{indent}    {target} = {target} + {fn}({a})",
                        f"{indent}else:", f"{indent}    {target} = {target} - {a}"]
                return out
            n_elif = self.draw(st.integers(0, 2))
            has_else = self.coin()
            out.append(f"{indent}if {self.condition(scope, 1)}:")
            out += self.branch_body(scope, depth, indent)
            for _ in range(n_elif):
                out.append(f"{indent}elif {self.condition(scope, 1)}:")
                out += self.branch_body(scope, depth, indent)
            if has_else:
                out.append(f"{indent}else:")
                out += self.branch_body(scope, depth, indent)
            return out
        if kind == "for":
            out = []
            if not scope.assignable:
                name = self.fresh("acc")
                scope.floats.append(name)
                scope.assignable.append(name)
                out.append(f"{indent}{name} = {self.choice(['0.0', '1.0', e()])}")
            i = self.fresh("i")
            inner = scope.child()
            inner.ints.append(i)
            if scope.arrays and self.draw(st.integers(0, 3)) > 0:
                inner.indexes.append(i)
                rng = self.choice([f"len({self.choice(scope.arrays)})", f"{self.choice(scope.arrays)}.shape[0]",
                                   str(self.n)])
            else:
                rng = self.choice(["0", "1", "2", "3", "4", "1, 4", "0, 5, 2"])
            out.append(f"{indent}for {i} in range({rng}):")
            jump_test = self.condition(inner.child(), 0)  # reads only names made before the loop
            body = self.statements(inner, self.draw(st.integers(1, 2)), depth - 1, indent + "    ")
            if self.coin():
                body.append(f"{indent}    {self.choice(inner.assignable)} = {self.scalar(inner, 1)}")
            if self.draw(st.integers(0, 5)) == 0:
                jump = [f"{indent}    if {jump_test}:",
                        f"{indent}        {self.choice(['break', 'continue'])}"]
                body = jump + body if self.coin() else body + jump
            out += body
            return out
        if kind == "while":
            out = []
            if not scope.assignable:
                name = self.fresh("acc")
                scope.floats.append(name)
                scope.assignable.append(name)
                out.append(f"{indent}{name} = {e()}")
            k = self.fresh("k")
            bound = self.draw(st.integers(0, 4))
            out.append(f"{indent}{k} = 0")
            cond = f"{k} < {bound}"
            if self.coin():
                cond += f" and {self.condition(scope, 0)}"
            out.append(f"{indent}while {cond}:")
            inner = scope.child()
            inner.ints.append(k)
            body = self.branch_body(inner, depth, indent)
            out += body
            out.append(f"{indent}    {k} = {k} + 1")
            return out
        raise AssertionError(kind)

    def branch_body(self, scope: Scope, depth: int, indent: str) -> list:
        """Statements that only reassign names that exist before (so none is assigned on some paths)."""
        lines = []
        for _ in range(self.draw(st.integers(1, 2))):
            if depth > 1 and self.draw(st.integers(0, 3)) == 0:
                inner = scope.child()
                inner.floats = list(scope.floats)
                # nested statements may create names; they stay local to the nested block
                lines += self.statement(inner, depth - 1, indent + "    ")
                continue
            name = self.choice(scope.assignable)
            if self.coin():
                lines.append(f"{indent}    {name} = {self.scalar(scope, self.draw(st.integers(0, 2)))}")
            else:
                lines.append(f"{indent}    {name} {self.choice(['+=', '*=', '-='])} {self.scalar(scope, 1)}")
        return lines

    # -- whole programs --
    def helper(self) -> list:
        scope = Scope(floats=["p", "q"], assignable=["p", "q"])
        body = self.statements(scope, self.draw(st.integers(0, 2)), 1, "    ")
        ret = self.scalar(scope, self.draw(st.integers(1, 2)))
        self.helper_name = "helper"
        return ["def helper(p, q):"] + body + [f"    return {ret}"]

    def array_helper(self) -> list:
        """`def ahelper(a, t)`: an array and a float in, an array of the same length out."""
        scope = Scope(floats=["t"], arrays=["a"], assignable=["t"])
        body = self.statements(scope, self.draw(st.integers(0, 2)), 1, "    ")
        ret = self.array(scope, self.draw(st.integers(1, 2)))
        self.array_helper_name = "ahelper"
        default = self.choice(["", "=1.0"])
        return [f"def ahelper(a, t{default}):"] + body + [f"    return {ret}"]

    def program(self, params) -> str:
        """Source of a module with `f(*params)`; params maps name -> 'float' | 'array' | 'matrix'."""
        lines = ["import math", "", "import numpy as np", "", ""]
        if self.o.helper and self.coin():
            lines += self.helper() + ["", ""]
        if self.o.helper and self.o.arrays and self.coin():
            lines += self.array_helper() + ["", ""]
        scope = Scope()
        for name, kind in params.items():
            {"float": scope.floats, "array": scope.arrays, "matrix": scope.matrices}[kind].append(name)
            if kind == "float":
                scope.assignable.append(name)
        self.params_scope = scope.child()
        body = self.statements(scope, self.draw(st.integers(0, self.o.max_statements)), 2, "    ")
        if self.o.early_return and self.coin():
            at = self.draw(st.integers(0, len(body)))
            while at < len(body) and body[at].startswith("     "):  # not inside a block
                at += 1
            body[at:at] = [f"    if {self.condition(self.params_scope.child(), 1)}:",
                           f"        return {self.scalar(self.params_scope, 1)}"]
        # the result: the last computed names, so that every statement matters
        terms = [self.scalar(scope, self.draw(st.integers(1, 3)))]
        terms += [n for n in scope.assignable[-3:] if n not in terms]
        if self.o.arrays:
            terms += [f"np.sum({a})" for a in scope.arrays[-2:] if a not in params]
        lines += [f"def f({', '.join(params)}):"] + body + [f"    return {' + '.join(terms)}"]
        return "\n".join(lines) + "\n"


# ---- families: the options of each, and drawing a program with its arguments ----

SCALAR = Options(early_return=True, swaps=True)
SCALAR_NO_HELPER = Options(helper=False, max_statements=5, swaps=True)
NESTED_TERNARY = Options(nested_ternary=True, loops=False, helper=False)
SCALAR_GUARDS = Options(guards=True)
ARRAYS = Options(arrays=True, helper=False)
ARRAY_GUARDS = Options(arrays=True, helper=False, guards=True)
ARRAY_HELPERS = Options(arrays=True, max_statements=3)
ARRAY_STATEMENTS = Options(arrays=True, helper=False, writes=True, iteration=True, early_return=True, swaps=True)
MATRIX = Options(arrays=True, matrix=True, helper=False, max_statements=3)
GATHER = Options(arrays=True, matrix=True, helper=False, max_statements=3, gather=True)
NESTED_COMPREHENSIONS = Options(arrays=True, matrix=True, helper=False, max_statements=3, nested_comprehension=True)


def draw_scalar(data, options, zero=False):
    """A program f(x, y) of two floats: (source, args, wrt)."""
    gen = ProgramGen(data, options)
    source = gen.program({"x": "float", "y": "float"})
    args = [data.draw(float_arg(zero), label="x"), data.draw(float_arg(zero), label="y")]
    return source, args, [0, 1]


def draw_arrays(data, options, n=3):
    """A program f(x, w, s) of two arrays and a float: (source, args, wrt)."""
    gen = ProgramGen(data, options, n=n)
    source = gen.program({"x": "array", "w": "array", "s": "float"})
    args = [data.draw(array_arg(n), label="x"), data.draw(array_arg(n), label="w"), data.draw(float_arg(), label="s")]
    return source, args, data.draw(st.sampled_from([[0], [0, 2], [0, 1, 2], [2]]), label="wrt")


def draw_matrix(data, options, n=3):
    """A program f(X, v, s) of a matrix, an array and a float: (source, args, wrt)."""
    gen = ProgramGen(data, options, n=n)
    source = gen.program({"X": "matrix", "v": "array", "s": "float"})
    args = [data.draw(matrix_arg(n), label="X"), data.draw(array_arg(n), label="v"), data.draw(float_arg(), label="s")]
    return source, args, [0, 1, 2]


POLY_FORMS = {
    "pow_int": "    s = 0.0\n    for k in range(len(c)):\n        s = s + c[k] * x ** k\n    return s\n",
    "pow_float": "    s = 0.0\n    for k in range(len(c)):\n        s = s + c[k] * x ** float(k)\n    return s\n",
    "np_power": "    s = 0.0\n    for k in range(len(c)):\n        s = s + c[k] * np.power(x, k)\n    return s\n",
    "horner": "    s = 0.0\n    for k in range(len(c)):\n        s = s * x + c[len(c) - 1 - k]\n    return s\n",
    "gen_sum": "    return sum(c[k] * x ** k for k in range(len(c)))\n",
    "comp_array": "    return np.sum(np.array([c[k] * x ** k for k in range(len(c))]))\n",
    "const_exponent": "    return c[0] * x ** 0 + c[1] * x ** 1 + c[2] * x ** 2\n",
    "while": ("    s = 0.0\n    k = 0\n    while k < len(c):\n        s = s + c[k] * x ** k\n        k = k + 1\n"
              "    return s\n"),
}


def draw_poly(data, forms, array_x=False, zero=True):
    """A polynomial sum c[k] * x ** k, differentiated in x and c; x may be 0 (or have 0 entries)."""
    form = data.draw(st.sampled_from(sorted(forms)), label="form")
    body = forms[form]
    if array_x:  # x is an array: sum the polynomial's values
        body = body.replace("return s\n", "return np.sum(s)\n")
        if body.startswith("    return "):
            body = "    return np.sum(" + body[len("    return "):-1] + ")\n"
    source = "import math\n\nimport numpy as np\n\n\ndef f(x, c):\n" + body
    degree = data.draw(st.integers(3, 5), label="degree")
    c = data.draw(array_arg(degree), label="c")
    x = data.draw(array_arg(3, zero=zero) if array_x else float_arg(zero=zero), label="x")
    if not zero:
        x = np.where(x == 0, 0.125, x) if array_x else (x or 0.125)
    return source, [x, c], [0, 1]


# ---- arguments ----

def float_arg(zero=False):
    specials = [0.5, -0.5, 1.0, 2.0, -1.5] + ([0.0, 0.0] if zero else [])
    return st.one_of(st.sampled_from(specials), st.floats(-2.5, 2.5, allow_nan=False).map(lambda v: round(v, 3)))


def array_arg(n, zero=False):
    return st.lists(float_arg(zero), min_size=n, max_size=n).map(lambda v: np.array(v, dtype=float))


def matrix_arg(n, zero=False):
    return st.lists(float_arg(zero), min_size=n * n, max_size=n * n).map(
        lambda v: np.array(v, dtype=float).reshape(n, n))


# ---- the check ----

LOCATION = re.compile(r"[\w./<>-]+\.py:\d+")


class Rejected(Exception):
    """The point is not smooth enough to compare with finite differences."""


def _call(f, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*copy.deepcopy(args))


def _scale(values):
    return max([1.0] + [float(np.max(np.abs(v))) for v in values if np.all(np.isfinite(v))])


def finite_difference(f, args, index):
    """Central differences at two steps plus one-sided differences; Rejected where they disagree.

    Returns the central difference at step 1e-6 for each entry of args[index].
    """
    args = list(args)
    x = args[index]
    shape = np.shape(x)
    base = float(_call(f, args))
    out = np.zeros(shape)
    for pos in np.ndindex(shape) if shape else [()]:
        values = {}
        for h in (1e-6, -1e-6, 1e-4, -1e-4):
            if shape:
                y = x.copy()
                y[pos] += h
            else:
                y = x + h
            try:
                values[h] = float(_call(f, args[:index] + [y] + args[index + 1:]))
            except (ArithmeticError, ValueError) as error:
                raise Rejected("f fails nearby") from error
        if not all(math.isfinite(v) for v in values.values()):
            raise Rejected("non-finite nearby")
        scale = _scale([base] + list(values.values()))
        c6 = (values[1e-6] - values[-1e-6]) / 2e-6
        c4 = (values[1e-4] - values[-1e-4]) / 2e-4
        fwd = (values[1e-4] - base) / 1e-4
        bwd = (base - values[-1e-4]) / 1e-4
        # step 1e-6: rounding error about 1e-10 * scale; step 1e-4: truncation error h**2 f"'/6
        if (abs(c6 - c4) > 1e-5 * max(abs(c6), 1.0) + 1e-7 * scale
                or abs(fwd - bwd) > 1e-2 * max(abs(c6), 1.0) + 1e-6 * scale):
            raise Rejected("not smooth here")
        out[pos] = c6
    return out if shape else float(out)


# A program that runs in Python must not make srcdiff's own code fail: a SrcDiffError that only
# reports such a failure (the generated gradient raising TypeError on a None, say) is a crash.
INTERNAL = re.compile(r"\b(TypeError|AttributeError|KeyError|IndexError|NameError|UnboundLocalError|"
                      r"IndentationError|SyntaxError|ZeroDivisionError)\b")


def _is_refusal(error):
    first = str(error).splitlines()[0] if str(error) else ""
    return isinstance(error, srcdiff.SrcDiffError) and LOCATION.search(first) and not INTERNAL.search(first)


REFUSALS = []  # first lines of refusal messages, for exploring by hand


class Failure(AssertionError):
    pass


def check_program(source, args, wrt, tmp_path, use_grad=False):
    """srcdiff's value_and_grad (or grad) of f agrees with f and with finite differences.

    Returns "refused", "ok"; raises Failure for a broken promise; calls hypothesis.assume(False)
    at points that are not smooth or not finite.
    """
    note(source)
    note(f"args = {args!r}, wrt = {wrt!r}")
    module = import_source(tmp_path, source, name=fresh_module_name())
    f = module.f
    try:
        value = _call(f, args)
    except (ArithmeticError, ValueError):  # math domain errors, overflow in math.exp
        assume(False)
    assume(np.ndim(value) == 0 and np.isfinite(value) and abs(value) < 1e6)
    try:
        expected = [finite_difference(f, args, w) for w in wrt]
    except Rejected:
        assume(False)
    call_args = copy.deepcopy(args)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if use_grad:
                got_value = None
                gradient = srcdiff.grad(f, wrt=tuple(wrt))
                grads = gradient(*call_args)
            else:
                gradient = srcdiff.value_and_grad(f, wrt=tuple(wrt))
                got_value, grads = gradient(*call_args)
            assert isinstance(gradient.source, str)
    except srcdiff.SrcDiffError as error:
        if _is_refusal(error):
            REFUSALS.append((str(error).splitlines()[0], source))
            return "refused"
        raise Failure(f"SrcDiffError without file:line: {error}\n{source}") from error
    except Exception as error:  # noqa: BLE001 - any other exception breaks the promise
        raise Failure(f"{type(error).__name__}: {error}\n{source}\nargs={args!r}") from error
    for before, after in zip(args, call_args):
        if not np.array_equal(before, after):
            raise Failure(f"the gradient changed an argument: {before!r} -> {after!r}\n{source}")
    if not use_grad:
        if got_value is None or np.ndim(got_value) != 0 or not np.isclose(got_value, value, rtol=1e-9,
                                                                          atol=1e-12):
            raise Failure(f"value {got_value!r} != f(...) = {value!r}\n{source}\nargs={args!r}")
    for w, g, e in zip(wrt, grads, expected):
        if np.shape(g) != np.shape(args[w]):
            raise Failure(f"gradient shape {np.shape(g)} != {np.shape(args[w])}\n{source}")
        g = np.asarray(g, dtype=float)
        tol = 1e-4 * np.maximum(np.abs(e), 1.0) + 1e-7 * _scale([value])
        if not np.all(np.isfinite(g)):
            raise Failure(f"non-finite gradient wrt argument {w}: srcdiff {g!r}, finite differences {e!r}\n"
                          f"{source}\nargs={args!r}")
        if np.any(np.abs(g - e) > tol):
            assume(not _on_a_branch_point(f, source, args, wrt, expected, value))
            assume(not _cancels(f, args, value))
            raise Failure(f"gradient wrt argument {w}: srcdiff {g!r}, finite differences {e!r}\n"
                          f"{source}\nargs={args!r}")
    return "ok"


BRANCHING = re.compile(r"\bif\b|\bwhile\b|\bmin\(|\bmax\(|where|clip|maximum|minimum|np\.abs|abs\(")


def _on_a_branch_point(f, source, args, wrt, expected, value):
    """Is args a point where a comparison is an exact tie, so that srcdiff follows a branch taken
    only on a set of measure zero (`if -y < y` at y = 0)?  Then srcdiff's gradients a hair away, on
    both sides, agree with the finite differences, which straddle the tie.
    """
    if not BRANCHING.search(source):
        return False
    gradient = srcdiff.grad(f, wrt=tuple(wrt))
    for shift in (1e-9, -1e-9):
        moved = [a + shift * (1.0 + np.abs(a)) for a in args]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            grads = gradient(*moved)
        for g, e in zip(grads, expected):
            tol = 1e-4 * np.maximum(np.abs(e), 1.0) + 1e-7 * _scale([value])
            if not np.all(np.abs(np.asarray(g, dtype=float) - e) <= tol):
                return False
    return True


class _Tracked(float):
    """A float that records the largest magnitude any arithmetic on it produced."""

    largest = 0.0

    def _wrap(self, value):
        if isinstance(value, float):
            _Tracked.largest = max(_Tracked.largest, abs(value))
            return _Tracked(value)
        return value


for _name in ("add", "sub", "mul", "truediv", "pow"):
    for _side in ("__{}__", "__r{}__"):
        _method = _side.format(_name)
        setattr(_Tracked, _method, (lambda m: lambda self, other: self._wrap(getattr(float, m)(self, other)))(_method))
_Tracked.__neg__ = lambda self: self._wrap(float.__neg__(self))


def _cancels(f, args, value):
    """Does f lose its inputs to cancellation: intermediate values far larger than the result
    (``x - 1e27 + 1e27``), so that central differences see a constant where the true
    derivative is not 0?  Then float64 differences cannot judge the gradient."""
    if not all(isinstance(a, float) for a in args):
        return False
    _Tracked.largest = 0.0
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            f(*[_Tracked(a) for a in args])
    except Exception:
        return False
    return _Tracked.largest > 1e8 * max(1.0, abs(float(value)), *[abs(a) for a in args])


def dedent(text):
    return textwrap.dedent(text)
