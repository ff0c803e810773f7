"""``np.split``'s pieces read as the blocks they are, their adjoints added into the whole's blocks.

splits.py writes ``P = [W[:, :w], W[:, w:2 * w], W[:, 2 * w:]] if 3 * w == W.shape[1] else
np.split(W, 3, axis=1)`` (the call raises where the length does not divide, as the user's does).
The gates then read ``Wz = P[0]``, ... and the backward sweep adds into one adjoint per piece, joined
after the loop by ``split_adjoint``.  Read as blocks of W, the passes that join the products of
adjacent blocks (adjacent_products.py, joined_scatters.py, joined_products.py) take them, as they do
gates read by slices::

    Wz = P[0]                           -->     Wz = W[:, :w]
    Wz_bar = np.zeros(Wz.shape)                 W_bar = np.zeros(W.shape)
    ...  Wz_bar += x.T @ g  ...         -->     ...  W_bar[:, :w] += x.T @ g  ...
    W_bar = split_adjoint([Wz_bar, Wo_bar, Wc_bar], P, 1)     (gone)

* ``X = P[k]`` is the k-th slice of the list: once P is bound, its test held (the call raised
  otherwise); where P and the names its slices read are bound once at the top of the function and
  never written into, and X's statement is at the top after P's.
* the pieces' adjoints: where each is made as zeros (``Wz_bar = np.zeros(Wz.shape)``) in the body
  that joins them, and is otherwise only added into (``Wz_bar += e``) or deleted, the zeros of the
  whole's adjoint take the first piece's place and each addition goes to its block: the same
  additions to the same zeros, element by element (``0.0 + e`` then ``+ e2``...), and every block
  written (the pieces tile the whole) — the join, bit for bit.  The join's name is not read, bound or
  written between the first zeros and the join.  NumPy code only, after splits.py.
"""

from __future__ import annotations

import ast
import copy

from .liveness import bodies, bound_once, fresh_name, mentions, nodes


def pieces_as_blocks(func: ast.FunctionDef) -> bool:
    """Rewrite the pieces of every sliced ``np.split`` and their adjoints (see the module)."""
    changed = _named_bounds(func)
    once = bound_once(func)
    lists = {name: value.body.elts for name, (place, value) in once.items() if place >= 0 and _sliced_split(value)}
    for place, stmt in enumerate(func.body):
        item = _item(stmt, lists)
        if item is not None and once[item[0]][0] < place and all(n in once and once[n][0] < once[item[0]][0]
                                                                  or n == "np" for n in mentions(item[1])):
            stmt.value = copy.deepcopy(item[1])
            changed = True
    for body in bodies(func.body):
        while _blocks(func, body, lists):
            changed = True
    return changed


def _named_bounds(func: ast.FunctionDef) -> bool:
    """Each bound of a sliced split's pieces that is arithmetic (``2 * w``) given a name bound before the
    list (the passes that join blocks compare bounds that are names or numbers)."""
    taken = {n.id for n in nodes(func) if isinstance(n, ast.Name)} | {a.arg for a in func.args.args}
    changed = False
    place = 0
    while place < len(func.body):
        stmt = func.body[place]
        place += 1
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and _sliced_split(stmt.value)):
            continue
        named: dict[str, str] = {}
        for piece in stmt.value.body.elts:
            for part in nodes(piece.slice):
                if not isinstance(part, ast.Slice):
                    continue
                for field in ("lower", "upper"):
                    bound = getattr(part, field)
                    if isinstance(bound, ast.BinOp):
                        key = ast.dump(bound)
                        if key not in named:
                            named[key] = fresh_name(f"{stmt.targets[0].id}_at", taken)
                            func.body.insert(place - 1, ast.fix_missing_locations(ast.copy_location(
                                ast.Assign([ast.Name(named[key], ast.Store())], bound), stmt)))
                            place += 1  # (before the list, which reads it)
                        setattr(part, field, ast.Name(named[key], ast.Load()))
                        changed = True
    return changed


def _sliced_split(value: ast.expr) -> bool:
    """``[slices...] if k * w == x.shape[a] else np.split(...)`` as splits.py writes it."""
    return isinstance(value, ast.IfExp) and isinstance(value.body, ast.List) and isinstance(value.orelse, ast.Call) \
        and isinstance(value.orelse.func, ast.Attribute) and value.orelse.func.attr == "split" \
        and all(isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) for e in value.body.elts)


def _item(stmt: ast.stmt, lists: dict):
    """``X = P[k]`` of a list of `lists`: (P, its k-th slice)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.Subscript) and isinstance(stmt.value.value, ast.Name) \
            and stmt.value.value.id in lists and isinstance(stmt.value.slice, ast.Constant) \
            and type(stmt.value.slice.value) is int and 0 <= stmt.value.slice.value < len(lists[stmt.value.value.id]):
        return stmt.value.value.id, lists[stmt.value.value.id][stmt.value.slice.value]
    return None


def _join(stmt: ast.stmt, lists: dict):
    """``G = split_adjoint([g0, g1, ...], P, a)`` of a list of `lists`, every piece a name: (G, names, P)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
            and stmt.value.func.id == "split_adjoint" and len(stmt.value.args) == 3 and not stmt.value.keywords):
        return None
    pieces, made = stmt.value.args[:2]
    if not (isinstance(pieces, ast.List) and isinstance(made, ast.Name) and made.id in lists
            and len(pieces.elts) == len(lists[made.id]) and all(isinstance(e, ast.Name) for e in pieces.elts)):
        return None
    names = [e.id for e in pieces.elts]
    return (stmt.targets[0].id, names, made.id) if len(set(names)) == len(names) else None


def _zeros_of(stmt: ast.stmt) -> str | None:
    """``g = np.zeros(x.shape)``: g."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
            and stmt.value.func.attr == "zeros" and isinstance(stmt.value.func.value, ast.Name) \
            and stmt.value.func.value.id == "np" and len(stmt.value.args) == 1 and not stmt.value.keywords:
        return stmt.targets[0].id
    return None


def _blocks(func: ast.FunctionDef, body: list[ast.stmt], lists: dict) -> bool:
    for j, stmt in enumerate(body):
        found = _join(stmt, lists)
        if found is None:
            continue
        whole, names, made = found
        starts = {name: next((i for i in range(j) if _zeros_of(body[i]) == name), None) for name in names}
        if None in starts.values() or not _only_added(func, names, body, starts, j):
            continue
        first = min(starts.values())
        if any(whole in mentions(s) for s in body[first:j]):
            continue
        slices = lists[made]
        if not all(isinstance(s.value, ast.Name) for s in slices) or len({s.value.id for s in slices}) != 1:
            continue
        base = slices[0].value.id
        blocks = {}
        for name, piece in zip(names, slices):
            block = copy.deepcopy(piece)
            block.value = ast.Name(whole, ast.Load())
            blocks[name] = block
        zeros = ast.Assign([ast.Name(whole, ast.Store())], ast.Call(
            ast.Attribute(ast.Name("np", ast.Load()), "zeros", ast.Load()),
            [ast.Attribute(ast.Name(base, ast.Load()), "shape", ast.Load())], []))
        keep = [s for i, s in enumerate(body) if i != j and i not in starts.values()]
        keep.insert(first, ast.fix_missing_locations(ast.copy_location(zeros, body[first])))
        body[:] = keep
        _retarget(func, blocks)
        return True
    return False


def _only_added(func: ast.FunctionDef, names: list[str], body: list[ast.stmt], starts: dict, j: int) -> bool:
    """Each name is bound by its zeros alone, read by the join alone, and otherwise only added into
    (``name += e`` or ``name = name + e``, e not reading it) or deleted."""
    allowed = {id(body[i].targets[0]) for i in starts.values()}
    allowed |= {id(e) for e in body[j].value.args[0].elts}
    for n in nodes(func):
        added = _added(n)
        if added is not None and added[0] in names:
            if added[0] in mentions(added[1]):
                return False
            allowed |= {id(m) for m in (n.target if isinstance(n, ast.AugAssign) else n.targets[0], n.value.left)
                        if isinstance(m, ast.Name)}
        elif isinstance(n, ast.Delete):
            allowed |= {id(t) for t in n.targets if isinstance(t, ast.Name)}
    return all(id(n) in allowed for n in nodes(func) if isinstance(n, ast.Name) and n.id in names)


def _added(n: ast.AST):
    """``g += e`` or ``g = g + e``: (g, e)."""
    if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name):
        return n.target.id, n.value
    if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
            and isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Add) \
            and isinstance(n.value.left, ast.Name) and n.value.left.id == n.targets[0].id:
        return n.targets[0].id, n.value.right
    return None


def _retarget(func: ast.FunctionDef, blocks: dict) -> None:
    """``g += e`` and ``g = g + e`` -> ``G[block] += e``; ``del g`` dropped."""
    for body in bodies(func.body):
        for k, s in enumerate(body):
            added = _added(s)
            if added is not None and added[0] in blocks:
                target = copy.deepcopy(blocks[added[0]])
                target.ctx = ast.Store()
                body[k] = ast.fix_missing_locations(ast.copy_location(ast.AugAssign(target, ast.Add(), added[1]), s))
            elif isinstance(s, ast.Delete):
                s.targets = [t for t in s.targets if not (isinstance(t, ast.Name) and t.id in blocks)]
        body[:] = [s for s in body if not (isinstance(s, ast.Delete) and not s.targets)]
