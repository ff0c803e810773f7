"""`export`: a gradient written out as a standalone Python module that needs only NumPy.

The module holds the generated gradient and every callee adjoint it calls (the complete
listing of `GradFunction.source`), a copy of each run-time helper the code still calls
(from `rules/runtime.py`), and imports of ``numpy``, ``math`` and the user's own modules for
the names the code reads from them (a module constant, a function it calls plainly).  A
header says what it was generated from.  Nothing in it imports srcdiff.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import sys
import types
from pathlib import Path

import numpy as np

from .. import driver
from ..api.gradients import GradFunction
from ..errors import SrcDiffError
from ..frontend import callables
from ..frontend.parse import parse_function, unwrap
from ..ir import shapes
from ..ir.nodes import Specialised
from ..rules import runtime
from ..rules.lazy_modules import LAZY
from ..version import __version__
from . import export_check, export_trees

#: Stands in for srcdiff's exception in a copied helper that raises it.
_ERROR_CLASS = '''class SrcDiffError(ValueError):
    """Raised by the helpers below where srcdiff itself would refuse (as srcdiff.SrcDiffError)."""

    def __init__(self, message, location=None, hint=""):
        super().__init__(f"{message}\\n  hint: {hint}" if hint else message)
'''

#: Names a generated gradient may read that mean the same in any module.
_MODULES = {"np": "import numpy as np", "math": "import math",
            # SciPy as adjoint templates name it (rules/lazy_modules.py): every module they may name
            **{name: f"import {vars(module)['_target']} as {name}" for name, module in LAZY.items()}}


def export(func, *example_args, wrt=0, path="f_grad.py") -> Path:
    """Write the gradient of `func` for arguments like `example_args` to the module `path`.

    The module defines ``<name>_grad`` (called with all of `func`'s parameters, positionally)
    and imports only NumPy, `math` and the modules `func` reads names from.  Returns the path.
    """
    path = Path(path)
    path.write_text(module_source(func, *example_args, wrt=wrt))
    return path


def module_source(func, *example_args, wrt=0) -> str:
    """The text `export` writes."""
    gradient = GradFunction(func, wrt)
    resolved = callables.resolve(func)
    target = resolved.func
    tree = gradient.tree_parts(*example_args)
    if tree is None:
        made = gradient.variant_for(*example_args)
        listing, name, front, own, extra = driver.full_source(made), made.name, "", unwrap(func), set()
    else:  # trees, a method or a partial: a front function takes the user's arguments
        names, structs, flat, inner, plan, leaves = tree
        made = inner.variant_for(*leaves)
        name = made.name
        listing = export_trees.renamed(driver.full_source(made), name, f"{name}_leaves")
        front, extra, dataclasses = export_trees.wrapper(name, f"{name}_leaves", names, structs, flat, plan,
                                                         gradient.tuple_result, _module_name, _refuser(target))
        if dataclasses:
            front = export_trees.DATACLASS_HELPER + "\n\n" + front
        own = flat.func
    functions = {name: own, **_callee_functions(made)}
    imports, definitions = _needed(listing, functions)
    if tree is None:  # the arguments' kinds are checked on entry (trees: by the front function's unpacking)
        found = gradient.lowered
        checked = export_check.guard(listing, name, list(inspect.signature(target).parameters), tuple(example_args),
                                     set(found.statics) | set(found.constants), _built_in_globals(found, listing))
        if checked != listing:
            listing, extra = checked, {_MODULES["np"]}
            front = "\n\n\n".join(c for c in (export_check.CHECKER if "check_argument(" in checked else "",
                                                export_check.STATIC_CHECKER if "check_static(" in checked else "")
                                    if c)
    imports, listing = export_check.read_at_call_time(imports, listing)  # after the checks: bound first
    imports = _sorted_imports(set(imports) | extra)
    sources = [*functions.values(), *export_check.called_functions(own)]  # inlined helpers too
    digest = export_check.source_hash(dict.fromkeys(sources))
    header = _header(target, gradient, name, resolved.prefix + tuple(example_args), digest)
    parts = [header, "\n".join(imports), *definitions, front, listing.rstrip("\n")]
    return "\n\n\n".join(p for p in parts if p) + "\n"


def _built_in_globals(found, listing: str) -> dict[str, str]:
    """The globals the code was built with (``ACT = np.tanh``: its adjoint is tanh's) that the
    module reads by name, as the expression of the value they held: a number, a string, or a
    NumPy function.  Called with another value, the module would differentiate another function."""
    read = set(_free_names(listing))
    out = {}
    for dep in found.depends:
        if dep.of_signature or dep.name not in read:
            continue
        value = dep.value
        if isinstance(value, (bool, int, float, str)) or value is None:
            out[dep.name] = repr(value)
        elif getattr(np, getattr(value, "__name__", ""), None) is value:
            out[dep.name] = f"np.{value.__name__}"
    return out


def _callee_functions(made) -> dict[str, object]:
    """The user function behind each callee adjoint of the listing, by its listing name."""
    names = driver.callee_sources(made)
    found, todo, seen = {}, [made], set()
    while todo:
        caller = todo.pop(0)
        for key, called in caller.callees.items():
            if called.variant is None or id(called) in seen:
                continue
            seen.add(id(called))
            spec = caller.program.calls[key]
            func = spec.func.func if isinstance(spec.func, Specialised) else spec.func
            found[len(found)] = func
            todo.append(called.variant)
    return dict(zip(names, found.values()))


def _free_names(listing: str) -> list[str]:
    """Names the listing reads but never binds (in order of first use), builtins aside."""
    tree = ast.parse(listing)
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args + n.kwonlyargs}
    read = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return [n for n in dict.fromkeys(read) if n not in bound and not hasattr(builtins, n)]


def _needed(listing: str, functions: dict[str, object]) -> tuple[list[str], list[str]]:
    """The import lines and the copied helper definitions the listing needs."""
    imports, helpers = set(), []
    for name in _free_names(listing):
        if name in _MODULES:
            imports.add(_MODULES[name])
        elif name in runtime.HELPERS:
            helpers.append(name)
        else:
            line = _user_import(name, functions)
            imports.add(line)
            for module, spelled in _MODULES.items():  # ``act = np.tanh`` needs NumPy imported
                if line.startswith(f"{name} = {module}."):
                    imports.add(spelled)
    helpers = _with_dependencies(helpers)
    definitions = [inspect.getsource(h).rstrip("\n") for h in helpers]
    if any("SrcDiffError" in d for d in definitions):
        definitions.insert(0, _ERROR_CLASS.rstrip("\n"))
    if definitions:
        imports.add(_MODULES["np"])
    return _sorted_imports(imports), definitions


def _sorted_imports(imports: set) -> list[str]:
    """The import lines: the standard library, NumPy, then the user's modules."""
    imports = {i for i in imports if i}
    stdlib = sorted(i for i in imports if i == _MODULES["math"])
    third = sorted(i for i in imports if i == _MODULES["np"])
    rest = imports - set(stdlib) - set(third)
    own = sorted(i for i in rest if i.startswith(("import ", "from "))) + sorted(rest - {
        i for i in rest if i.startswith(("import ", "from "))})  # assignments after every import
    return stdlib + ([""] if stdlib and third else []) + third + ([""] if own and (stdlib or third) else []) + own


def _with_dependencies(helpers: list[str]) -> list:
    """The functions `helpers` names and the functions of their modules they call (a helper
    module's own small functions, rules/decomposition_helpers.py's say), in the order their
    modules define them, runtime.py's first."""
    needed, todo = {}, [runtime.HELPERS.get(name) or getattr(runtime, name) for name in helpers]
    while todo:
        func = todo.pop()
        if func in needed.values():
            continue
        source = inspect.getsource(func)
        if needed.setdefault((func.__name__, source), func) is not func:
            continue  # the same small function in two modules (``_mT``): copied once
        tree = ast.parse(source)
        todo += [func.__globals__[n.id] for n in ast.walk(tree) if isinstance(n, ast.Name)
                 and isinstance(func.__globals__.get(n.id), types.FunctionType)]
    return sorted(needed.values(), key=lambda f: (f.__module__ != runtime.__name__, f.__module__,
                                                  f.__code__.co_firstlineno))


def _user_import(name: str, functions: dict[str, object]) -> str:
    """``from module import name`` (or an assignment of a closure's constant) for a name the
    generated code reads from the user's code."""
    for func in functions.values():
        closure = inspect.getclosurevars(func).nonlocals
        if name in closure:
            value = closure[name]
            if _literal(value):
                return f"{name} = {value!r}"
            spelled = _library_function(value)
            if spelled:  # an attribute holding np.tanh (``self.act``): the same function by name
                return f"{name} = {spelled}"
            raise _refuser(func)(f"the gradient of {func.__qualname__} reads {name}, a variable of its "
                                 "closure that a module cannot import",
                                 f"make {name} a module-level name of {func.__module__}")
        if name in func.__globals__:
            value = func.__globals__[name]
            if isinstance(value, types.ModuleType):
                return f"import {value.__name__}" if value.__name__ == name \
                    else f"import {value.__name__} as {name}"
            return f"from {_module_name(func)} import {name}"
    raise SrcDiffError(f"the generated gradient reads {name!r}, which none of the functions it "
                       "comes from defines", hint="report this as a srcdiff bug")


def _refuser(func):
    """``refuse(message, hint)``: a `SrcDiffError` at the line where `func` is defined."""
    def refuse(message: str, hint: str) -> SrcDiffError:
        parsed = parse_function(func)
        return parsed.error(parsed.tree, message, hint)
    return refuse


def _module_name(func) -> str:
    """The name the user's module is imported by (a script's file name for ``__main__``);
    `func` may be a class too."""
    name = func.__module__
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    if name == "__main__" or (file and name.endswith("__srcdiff")):  # run as a script / loaded by the CLI
        if not file:
            raise SrcDiffError(f"{func.__qualname__} is defined in an interactive session: an exported "
                               "module cannot import what it reads", hint="define it in a .py file")
        return Path(file).stem
    return name


def _library_function(value) -> str:
    """``np.tanh`` or ``math.exp`` when `value` is that function, else ""."""
    import math

    import numpy as np
    for module, spelled in ((np, "np"), (math, "math")):
        name = getattr(value, "__name__", None)
        if name and getattr(module, name, None) is value:
            return f"{spelled}.{name}"
    return ""


def _literal(value) -> bool:
    if isinstance(value, tuple):
        return all(_literal(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, complex, str))


def source_digest(func, *example_args, wrt=0) -> str:
    """The source hash `module_source` would write in the header (``export --check`` compares it)."""
    text = module_source(func, *example_args, wrt=wrt)
    return export_check.recorded_hash(text)


def _header(func, gradient: GradFunction, name: str, args: tuple, digest: str) -> str:
    """The module docstring: what the gradient is of, for which arguments, and how to call it."""
    code = func.__code__
    where = f"{Path(code.co_filename).name}:{code.co_firstlineno}"
    names = list(inspect.signature(func).parameters)
    kinds = "".join(f"    {name}: {_kind(value)}\n" for name, value in zip(names, args))
    grads = ", ".join(f"d/d{n}" for n in gradient.wrt)
    result = f"({grads})" if gradient.tuple_result else grads
    return (f'"""Gradient of {func.__module__}.{func.__qualname__} with respect to {", ".join(gradient.wrt)}.\n\n'
            f"Generated by srcdiff {__version__} from {where}, for arguments like\n"
            f"{kinds}"
            f"(array lengths may differ; the number of axes and which have length 1 may not).\n"
            f"Needs only NumPy.  {name}({', '.join(names)}) returns {result}.\n"
            f"{export_check.HASH_LINE}{digest}\n"
            '"""')


def _kind(value) -> str:
    sig = shapes.signature(value)
    if isinstance(sig, tuple):
        dims = ", ".join(shapes.of_signature(sig).dims) + ("," if sig[0] == 1 else "")
        return f"{value.dtype} array ({dims})"
    return sig.__name__
