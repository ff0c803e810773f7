"""Methods of an object tree that only read it, so that a loop calling them is kept a loop.

counter_reach.py unrolls a ``for`` over ``range`` whose body may change a tree it reads, and took
every method call on a tree (``pend.accel(theta, omega)``) for a change: a 100-step simulation of an
object built from the parameters (``pend = Pendulum(c, k)``) was unrolled into 100 copies of its
body (1200 lines, built in minutes).  A method whose source assigns no attribute or item of
anything, declares no ``global``/``nonlocal``, calls no method but a module's (``np.sin``, not
``self.other()`` or ``xs.append()``) and hands ``self`` to no call (any of which might change it)
reads the object only: a call of it changes nothing the loop reads, and the loop is kept, each entry
the method reads a name of its own (as for a body reading ``p["kp"]``).  Anything else, or a method
whose source cannot be read, is taken for a change, as before.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types

_OBJECTS = ("namedtuple", "dataclass", "object")


def reading_calls(env: dict, trees: set[str], kinds: tuple) -> set[tuple[str, str]]:
    """The (name, method) pairs of `trees` whose calls only read the tree: `env` binds the name to
    an object tree (one of `kinds`) whose class's method of that name only reads ``self``."""
    found = set()
    for name in trees:
        entry = env.get(name)
        struct = getattr(entry, "struct", None) if isinstance(entry, kinds) else None
        if struct is None or struct.kind not in _OBJECTS or struct.cls is None:
            continue
        for attr, func in vars(struct.cls).items():
            if isinstance(func, types.FunctionType) and only_reads_self(func):
                found.add((name, attr))
    return found


def only_reads_self(func: types.FunctionType) -> bool:
    """Whether `func`, a method, changes neither its ``self`` nor anything else it is given
    (module docstring)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return False
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fdef.args.args:
        return False
    me = fdef.args.args[0].arg
    own = {a.arg for a in ast.walk(fdef.args) if isinstance(a, ast.arg)} | \
        {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(fdef):
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Lambda)) or \
                isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return False
        if isinstance(node, ast.Call):
            root = _root(node.func) if isinstance(node.func, ast.Attribute) else None
            if isinstance(node.func, ast.Attribute) and (root in own or not isinstance(func.__globals__.get(root),
                                                                                      types.ModuleType)):
                return False  # self.other(...), self.items.append(...), xs.append(...): only np.*, math.* read
            given = [*node.args, *(k.value for k in node.keywords)]
            if any(_root(a.value if isinstance(a, ast.Starred) else a) == me for a in given):
                return False  # helper(self), helper(self.items): it may change them
    return True


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


__all__ = ["only_reads_self", "reading_calls"]
