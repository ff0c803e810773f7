"""One run of consecutive statements the fusion pass (fusion.py) makes one loop: `Chain`.

Statements join the chain one by one (`Chain.add`); one that cannot (its operands are not
elementwise over the chain's shape, its order of writes would change a result...) ends it.
`Chain.close` gives the statements that replace the run: what is computed before the loop,
the loop, and what it leaves; behind a check of the shapes when they are not known equal,
with the statements as written as the other branch.
"""

from __future__ import annotations

import ast

from . import kindflow, kinds, split_sums
from .kinds import SCALAR, Kind
from .loopcode import NotFused, copied, loads, located, name_node, np_call, parse, pure

#: dtypes of the arrays a loop writes, as numba spells them
DTYPES = {"f8": "np.float64", "f4": "np.float32", "b": "np.bool_"}
class Chain:
    """The run being built: its loop body, and what it reads, writes and leaves."""

    def __init__(self, fuser, in_loop: bool):
        self.fuser, self.in_loop = fuser, in_loop
        self.i = fuser.index
        self.order: list = []  # the run's statements as written
        self.kept: list = []  # those not moved before the loop (the other branch)
        self.pre: list = []  # computed before the loop (and the check)
        self.body: list = []  # the loop's body
        self.regs: dict = {}  # name -> its number in the loop
        self.out_kind: dict = {}  # name -> its Kind (of the array it is outside the loop)
        self.reduced: dict = {}  # name -> (accumulator, "sum" | "mean")
        self.stores: dict = {}  # array written in place -> [(offset, accumulates)]
        self.zeros: set = set()  # arrays allocated zero here and not written yet
        self.summed: dict = {}  # array -> whether it is zeros that the run only adds to
        self.sites: list = []  # (array, offset, op, value, the loop's statement, stop) of each write
        self.flat: dict = {}  # array of several axes -> its flattened name
        self.hoisted: set = set()  # names bound before the loop
        self.touched: set = set()  # names the loop reads or binds
        self.read_first: set = set()  # names read (as arrays from before) before the loop binds them
        self.accesses: list = []  # (text of the length or shape, its symbols)
        self.ndim = None
        self.ops = 0
        self.target = ""
        self.names_before = set(fuser.taken)
        self.parts: set = set()  # ids of the operands computed before the loop

    # ---------------------------------------------------------------- adding
    def add(self, stmt: ast.stmt, env: dict) -> bool:
        saved = {k: (v.copy() if isinstance(v, (list, dict, set)) else v) for k, v in vars(self).items()}
        taken = set(self.fuser.taken)
        for summed in (True, False):  # a sum of the chain's elements in the loop, else computed before it
            try:
                self._add(stmt, env, summed)
                break
            except NotFused:
                vars(self).update({k: (v.copy() if isinstance(v, (list, dict, set)) else v) for k, v in saved.items()})
                self.fuser.taken = set(taken)  # names the statement would have made are free again
        else:
            return False
        self.order.append(stmt)
        return True

    def _add(self, stmt: ast.stmt, env: dict, summed: bool) -> None:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AugAssign):
            target, value = stmt.target, stmt.value
        else:
            raise NotFused
        if isinstance(target, ast.Subscript):
            return self._store(stmt, target, value, env)
        if not isinstance(target, ast.Name):
            raise NotFused
        name = self.target = target.id
        kind = kindflow.augmented(stmt, env) if isinstance(stmt, ast.AugAssign) else kinds.of(value, env)
        if isinstance(stmt, ast.AugAssign):
            value = ast.BinOp(name_node(name), stmt.op, value)
        if not summed and self._hoist(stmt, name, value, kind):
            return
        if name in self.stores or name in self.hoisted:
            raise NotFused
        if self._reduction(stmt, name, value, env):
            return
        if summed and self._hoist(stmt, name, value, kind):
            return
        if not isinstance(kind, Kind) or not kind.array or kind.dtype not in DTYPES:
            raise NotFused
        new = self.element(value, env)
        if id(value) in self.parts:  # nothing elementwise in it (a view, a product): as written
            raise NotFused
        reg = self.regs.get(name) or self.fuser.name(f"{name}_i")
        self.body.append(located(ast.Assign([name_node(reg, True)], new), stmt))
        self.regs[name], self.out_kind[name] = reg, kind
        self.touched.add(name)
        self.kept.append(stmt)

    def _hoist(self, stmt, name: str, value: ast.expr, kind) -> bool:
        """A number, or an allocation, computed from what the loop does not make: before it."""
        allocation = isinstance(value, ast.Call) and kinds.numpy_name(value.func) in kinds.ALLOCATIONS
        numbers = isinstance(kind, Kind) and kind.ndim == SCALAR or isinstance(kind, tuple) and all(
            isinstance(k, Kind) and k.ndim == SCALAR for k in kind)  # a number, or a shape
        if not (allocation and isinstance(kind, Kind)) and not numbers:
            return False
        if name in self.touched or not pure(value) or isinstance(stmt, ast.AugAssign) and name in self.hoisted:
            return False
        if self._made_here(value):
            return False
        self.pre.append(stmt)
        self.hoisted.add(name)
        if allocation and kinds.numpy_name(value.func) in ("zeros", "zeros_like"):
            self.zeros.add(name)
        else:
            self.zeros.discard(name)
        return True

    def _made_here(self, node: ast.AST) -> bool:
        """Whether `node` reads what the loop makes or writes."""
        return any(isinstance(n, ast.Name) and (n.id in self.regs or n.id in self.reduced or n.id in self.stores)
                   for n in ast.walk(node))

    def _reduction(self, stmt, name: str, value: ast.expr, env: dict) -> bool:
        operand, how = kinds.reduction_operand(value), None
        if operand is not None:
            how = "mean" if (kinds.numpy_name(value.func) or value.func.attr) == "mean" else "sum"
            found = kinds.of(operand, env)
            if not (isinstance(found, Kind) and found.array and found.dtype == "f8"):
                raise NotFused
            new = self.element(operand, env)
        elif kinds.is_matmul(value) or \
                isinstance(value, ast.Call) and kinds.numpy_name(value.func) == "dot" and len(value.args) == 2:
            left, right = (value.left, value.right) if isinstance(value, ast.BinOp) else value.args
            found = [kinds.of(left, env), kinds.of(right, env)]
            if not all(isinstance(k, Kind) and k.ndim == 1 and k.dtype == "f8" for k in found):
                return False
            how = "sum"
            new = ast.BinOp(self.element(left, env), ast.Mult(), self.element(right, env))
        else:
            return False
        if name in self.touched:
            raise NotFused
        acc = self.fuser.name(f"{name}_{how}")
        self.body.append(located(ast.AugAssign(name_node(acc, True), ast.Add(), new), stmt))
        self.kept.append(stmt)
        self.reduced[name] = (acc, how)
        self.touched.add(name)
        self.ops += 1
        return True

    def _store(self, stmt, target: ast.Subscript, value: ast.expr, env: dict) -> None:
        """``w[a:b] = e`` / ``w[a:b] += e`` into an array only written here (fusion.py)."""
        if not isinstance(target.value, ast.Name):
            raise NotFused
        array = target.value.id
        kind = env.get(array)
        offsets = kinds.slice_offsets(target.slice)
        if array not in self.fuser.fresh_arrays or array in self.regs or array in self.reduced \
                or not isinstance(kind, Kind) or kind.ndim != 1 or offsets is None:
            raise NotFused
        adds = isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Add, ast.Sub))
        if isinstance(stmt, ast.AugAssign) and not adds:
            raise NotFused
        start, stop = offsets
        made = self.stores.setdefault(array, [])
        if not adds and not made and array in self.zeros:  # zeros, then ``=``: the same as ``+=``
            adds = True
            stmt_op = ast.Add()
        else:
            stmt_op = stmt.op if isinstance(stmt, ast.AugAssign) else None
        self.summed[array] = adds and self.summed.get(array, array in self.zeros)
        for offset, added in made:  # a later write at a larger offset would come first
            if not (adds and added) and start > offset:
                raise NotFused
        new = self.element(value, env)
        self._access(array, kind, start, stop)
        place = ast.Subscript(name_node(array), self._index(start), ast.Store())
        self.body.append(located(ast.AugAssign(place, stmt_op, new) if stmt_op else ast.Assign([place], new), stmt))
        self.sites.append((array, start, stmt_op, new, self.body[-1], stop))
        made.append((start, adds))
        self.zeros.discard(array)
        self.touched.add(array)
        self.ops += 1
        self.kept.append(stmt)

    # ------------------------------------------------------------- elements
    def _index(self, offset: int) -> ast.expr:
        return name_node(self.i) if not offset else ast.BinOp(name_node(self.i), ast.Add(), ast.Constant(offset))

    def _access(self, name: str, kind: Kind, start: int = 0, stop: int = 0) -> None:
        if self.ndim is None:
            self.ndim = kind.ndim
        if kind.ndim != self.ndim or (self.ndim > 1 and (start or stop)):
            raise NotFused
        if self.ndim == 1:
            text = f"{name}.shape[0]" + (f" - {start - stop}" if start - stop else "")
            dims = None if kind.dims is None else ((kind.dims[0][0], kind.dims[0][1] - start + stop),)
        else:
            text, dims = f"{name}.shape", kind.dims
        if self.accesses and dims is not None and self.accesses[0][1] is not None and any(
                a[0] == b[0] and a[1] != b[1] for a, b in zip(dims, self.accesses[0][1])):
            raise NotFused  # one length plus two different constants: never equal
        self.accesses.append((text, dims, name))

    def _read(self, name: str, kind, start: int = 0, stop: int = 0) -> ast.expr:
        """Element i of the array `name` made before the loop (at an offset for a slice)."""
        if not isinstance(kind, Kind) or not kind.array or name in self.stores or name in self.reduced:
            raise NotFused
        self._access(name, kind, start, stop)
        self.touched.add(name)
        self.read_first.add(name)
        if self.ndim > 1:
            if name not in self.flat:
                self.flat[name] = self.fuser.name(f"{name}_flat")
            name = self.flat[name]
        return ast.Subscript(name_node(name), self._index(start), ast.Load())

    def element(self, node: ast.expr, env: dict) -> ast.expr:
        """`node` as the loop computes it for element i."""
        kind = kinds.of(node, env)
        if isinstance(kind, Kind) and kind.ndim == SCALAR:
            if self._made_here(node) or not pure(node):
                raise NotFused
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and sub.id != "np":
                    self.touched.add(sub.id)
            return copied([ast.Expr(node)])[0].value
        if isinstance(node, ast.Name):
            if node.id in self.reduced:
                raise NotFused
            if node.id in self.regs:
                return name_node(self.regs[node.id])
            return self._read(node.id, kind)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id not in self.regs:
            offsets = kinds.slice_offsets(node.slice)
            base = env.get(node.value.id)
            if offsets is not None and isinstance(base, Kind) and base.ndim == 1:
                return self._read(node.value.id, base, *offsets)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            left, right = self.element(node.left, env), self.element(node.right, env)
            self.ops += 1
            if isinstance(node.op, ast.Div):
                return np_call("divide", left, right)  # numbers divided as NumPy does (inf, not an error)
            if isinstance(node.op, ast.Pow) and not (isinstance(node.right, ast.Constant)
                                                     and type(node.right.value) is int and node.right.value >= 0):
                return np_call("power", left, right)
            return ast.BinOp(left, node.op, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            self.ops += 1
            return ast.UnaryOp(node.op, self.element(node.operand, env))
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            self.ops += 1
            return ast.Compare(self.element(node.left, env), node.ops, [self.element(node.comparators[0], env)])
        if isinstance(node, ast.Call) and not node.keywords:
            func = kinds.numpy_name(node.func)
            if func in kinds.UNARY and len(node.args) == 1 or func in kinds.BINARY and len(node.args) == 2:
                self.ops += 1
                return np_call(func, *(self.element(a, env) for a in node.args))
            if func == "where" and len(node.args) == 3:
                cond, yes, no = (self.element(a, env) for a in node.args)
                self.ops += 1
                return ast.IfExp(cond, yes, no)
            is_full = func == "full" or isinstance(node.func, ast.Name) and node.func.id == "full"
            if is_full and len(node.args) == 2 and isinstance(kind, Kind) and kind.array:
                self._access_like(node.args[0], env)
                return self.element(node.args[1], env)
        return self._part(node, kind)

    def _access_like(self, shape: ast.expr, env: dict) -> None:
        """``np.full(x.shape, v)``: element i is `v`, over the shape of `x`."""
        if not (isinstance(shape, ast.Attribute) and shape.attr == "shape" and isinstance(shape.value, ast.Name)):
            raise NotFused
        kind = env.get(shape.value.id)
        if not isinstance(kind, Kind) or not kind.array or shape.value.id in self.reduced:
            raise NotFused
        if shape.value.id not in self.regs:  # (the loop's own values have its shape)
            self._access(shape.value.id, kind)

    def _part(self, node: ast.expr, kind) -> ast.expr:
        """An operand that is not elementwise (``X @ w``): an array computed before the loop."""
        if not isinstance(kind, Kind) or not kind.array or self._made_here(node) or not pure(node):
            raise NotFused
        self.parts.add(id(node))
        self.touched.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))  # read where it is now
        name = self.fuser.name(f"{self.target}_part")
        self.pre.append(ast.Assign([name_node(name, True)], copied([ast.Expr(node)])[0].value))
        self.hoisted.add(name)
        return self._read(name, kind)

    # --------------------------------------------------------------- closing
    def close(self) -> list:
        if not self.body or self.ops + len(self.body) < 3 or not self.accesses:
            self.fuser.taken = self.names_before  # the names it made are free again
            return list(self.order)
        origin = self.order[0]
        fuser, n = self.fuser, self.fuser.size
        text, dims, first = self.accesses[0]
        checks = sorted({t for t, d, _ in self.accesses if d is None or d != dims} - {text})
        run_loads = loads(self.order)
        init = [f"{n} = {first}.size" if self.ndim > 1 else f"{n} = {text}"]
        init += [f"{flat} = {name}.ravel()" for name, flat in self.flat.items()]
        after, writes = [], []
        for name, reg in self.regs.items():
            if fuser.loads[name] <= run_loads[name] and not (self.in_loop and name in self.read_first):
                continue
            dtype = DTYPES[self.out_kind[name].dtype]
            out = fuser.name(f"{name}_new") if name in self.read_first else name
            if self.ndim > 1:
                out = fuser.name(f"{name}_flat")
                after.append(f"{name} = {out}.reshape({first}.shape)")
            elif out != name:
                after.append(f"{name} = {out}")
            init.append(f"{out} = np.empty({n}, dtype={dtype})")
            writes.append(ast.Assign([ast.Subscript(name_node(out), name_node(self.i), ast.Store())], name_node(reg)))
        for name, (acc, how) in self.reduced.items():
            init.append(f"{acc} = 0.0")
            after.append(f"{name} = {acc}" if how == "sum" else f"{name} = np.divide({acc}, {n})")
        for array in sorted(a for a, only_adds in self.summed.items() if only_adds):
            self._carried(array, init, writes, after, unguarded=not checks)
        # sums that keep the loop from being vectorised get a loop of their own (split_sums.py)
        split = None if any(self.summed.values()) else split_sums.apart(
            self.body, writes, {acc for acc, _ in self.reduced.values()}, self.i, n, fuser.name)
        loops = split[1] if split else [
            ast.For(name_node(self.i, True), ast.Call(name_node("range"), [name_node(n)], []), self.body + writes, [])]
        fused = [*(parse(t) for t in init), *(split[0] if split else ()), *loops, *(parse(t) for t in after)]
        for stmt in fused:
            for node in ast.walk(stmt):
                if isinstance(node, ast.stmt) and not hasattr(node, "origin"):
                    node.origin = getattr(origin, "origin", None)
        fuser.fused += 1
        if checks:
            test = ast.BoolOp(ast.And(), [ast.parse(f"{text} == {t}", mode="eval").body for t in checks]) \
                if len(checks) > 1 else ast.parse(f"{text} == {checks[0]}", mode="eval").body
            guarded = ast.If(test, fused, copied(self.kept))
            guarded.origin = getattr(origin, "origin", None)
            fused = [guarded]
        return [*self.pre, *fused]


    def _carried(self, array: str, init: list, writes: list, after: list, unguarded: bool) -> None:
        """Sums into zeros at offsets m..M: element ``i + m`` is complete after iteration i, so
        it is written once; what iteration i adds to later elements waits in numbers
        (``x_bar_at1``) until their iteration."""
        sites = [site for site in self.sites if site[0] == array]
        low, high = min(site[1] for site in sites), max(site[1] for site in sites)
        carries = [self.fuser.name(f"{array}_at{d}") for d in range(high - low + 1)]
        # every element written (offsets from 0 to the end): the zeros are never read, and
        # np.empty saves numba's pass that fills them (0.8 of 2.2 ms at 1e6 elements)
        whole = unguarded and low == 0 and any(site[1] == high and site[5] == 0 for site in sites) \
            and self._unzeroed(array)
        for _, offset, op, value, stmt, _ in sites:
            reg = carries[offset - low]
            new = ast.Assign([name_node(reg, True)], ast.BinOp(name_node(reg), op, value))
            self.body[self.body.index(stmt)] = located(new, stmt)
        init += [f"{reg} = 0.0" for reg in carries]
        index = f"{self.i} + {low}" if low else self.i
        shifts = [f"{array}[{index}] = {carries[0]}"]
        shifts += [f"{a} = {b}" for a, b in zip(carries, carries[1:])] + [f"{carries[-1]} = 0.0"]
        writes[:0] = [parse(t) for t in shifts]
        if len(carries) > 1:
            n = self.fuser.size
            after.append(f"if {n} > 0:\n" + "".join(f"    {array}[{n}{f' + {low + d}' if low + d else ''}] = {reg}\n"
                                                     for d, reg in enumerate(carries[:-1]))
                         + (f"else:\n    {array}[:] = 0.0\n" if whole else ""))  # (nothing was added)

    def _unzeroed(self, array: str) -> bool:
        """Whether the allocation of `array` before the loop, ``np.zeros(...)`` or
        ``np.zeros_like(...)``, is now ``np.empty`` / ``np.empty_like``: the loop writes it all."""
        for stmt in self.pre:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and stmt.targets[0].id == array and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in ("zeros", "zeros_like"):
                stmt.value.func.attr = stmt.value.func.attr.replace("zeros", "empty")
                return True
        return False
