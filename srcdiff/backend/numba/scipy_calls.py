"""Calls of ``scipy.special`` functions spelled as their numba versions (special.py).

numba compiles no SciPy, yet gradients call it: the adjoint of ``gammaln`` reads
``scipy_special.digamma(x)``, and the user's own code calls ``expit(z)``, ``sc.xlogy(k, p)``
or ``scipy.special.ndtr(x)``.  Each such call, however the function was reached (the
templates' ``scipy_special``, a module alias, a name imported from SciPy, a dotted path), is
rewritten as a call of the numba function of that name (``scipy_digamma(x)``), when SciPy's
function is one special.py has and the call passes its arguments by position.  Any other
SciPy call is left as it is, so the backend refuses it at the user's line.

This module does not import numba (nor SciPy): it only reads what the code's names are.
"""

from __future__ import annotations

import ast
import sys
import types

#: ``scipy.special`` names special.py has, with the number of arguments each takes
ARITY = {"gammaln": 1, "gamma": 1, "rgamma": 1, "digamma": 1, "psi": 1, "polygamma": 2, "betaln": 2, "beta": 2,
         "erf": 1, "erfc": 1, "ndtr": 1, "log_ndtr": 1, "ndtri": 1, "expit": 1, "log_expit": 1, "logit": 1,
         "xlogy": 2, "xlog1py": 2, "entr": 1, "rel_entr": 2,
         # SciPy's compiled code (cython_special.py)
         "i0": 1, "i0e": 1, "i1": 1, "i1e": 1, "j0": 1, "j1": 1, "y0": 1, "y1": 1, "k0": 1, "k0e": 1, "k1": 1,
         "k1e": 1, "erfinv": 1, "erfcinv": 1, "erfcx": 1,
         "gammainc": 2, "gammaincc": 2, "gammaincinv": 2, "gammainccinv": 2,
         "iv": 2, "ive": 2, "jv": 2, "jve": 2, "yv": 2, "yve": 2, "kv": 2, "kve": 2, "yn": 2, "stdtr": 2}
MODULE = "srcdiff.backend.numba.special"
#: ``scipy.special`` reductions scipy_reductions.py has: their parameters, in SciPy's order,
#: with the defaults a call may leave out (``return_sign`` only as False: one result)
REDUCTIONS = {"logsumexp": (("a", None), ("axis", None), ("b", None), ("keepdims", False), ("return_sign", False)),
              "softmax": (("x", None), ("axis", None)), "log_softmax": (("x", None), ("axis", None))}
REDUCTIONS_MODULE = "srcdiff.backend.numba.scipy_reductions"
#: ``scipy.signal`` functions convolutions.py has (1-D), taking (in1, in2, mode) by position
SIGNAL = {"convolve": "signal_convolve", "correlate": "signal_correlate"}
SIGNAL_MODULE = "srcdiff.backend.numba.convolutions"
#: ``scipy.linalg`` functions triangular.py has, with their parameters (the last two change no value)
LINALG = {"solve_triangular": ("linalg_solve_triangular", (("a", None), ("b", None), ("trans", 0), ("lower", False),
                                                          ("unit_diagonal", False), ("overwrite_b", False),
                                                          ("check_finite", True))),
          # lu_factors.py: LAPACK's partial pivoting, its row swaps; lu_solve of the pair, trans 0 or 1
          "lu_factor": ("lu_factor_of", (("a", None), ("overwrite_a", False), ("check_finite", True))),
          "lu_solve": ("lu_solve_of", (("lu_and_piv", None), ("b", None), ("trans", 0), ("overwrite_b", False),
                                           ("check_finite", True)))}
#: the numba function of each LINALG helper, with how many of its leading parameters it takes
LINALG_MODULES = {"linalg_solve_triangular": ("srcdiff.backend.numba.triangular", 5),
                  "lu_factor_of": ("srcdiff.backend.numba.lu_factors", 1),
                  "lu_solve_of": ("srcdiff.backend.numba.lu_factors", 3)}


def module_of(helper: str) -> str:
    """The module that defines the numba function `helper` a spelled call names."""
    if helper in SIGNAL.values():
        return SIGNAL_MODULE
    if helper in LINALG_MODULES:
        return LINALG_MODULES[helper][0]
    return REDUCTIONS_MODULE if helper[len("scipy_"):] in REDUCTIONS else MODULE


def helper_name(name: str) -> str:
    """The numba function for ``scipy.special.<name>``."""
    return f"scipy_{'digamma' if name == 'psi' else name}"


def spell(tree: ast.FunctionDef, function) -> set[str]:
    """Rewrite, in place, the calls in `tree` (the source of the generated `function`) of the
    ``scipy.special`` functions special.py has; the numba functions the new calls name."""
    special = sys.modules.get("scipy.special")
    if special is None:  # nothing in the program reached SciPy
        return set()
    scope = scope_of(function)
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    local |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    used = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        signal = _signal_name(node.func, scope, local)
        if signal is not None:
            args = _positional(node, (("in1", None), ("in2", None), ("mode", "full"), ("method", "auto")))
            if args is not None:  # (the method changes rounding only)
                node.func, node.args, node.keywords = ast.Name(SIGNAL[signal], ast.Load()), args[:3], []
                used.add(SIGNAL[signal])
            continue
        linalg = _module_name(node.func, scope, local, "scipy.linalg", LINALG)
        if linalg is not None:
            helper, params = LINALG[linalg]
            args = _positional(node, params)
            if args is not None:
                node.func, node.args, node.keywords = ast.Name(helper, ast.Load()), args[:LINALG_MODULES[helper][1]], []
                used.add(helper)
            continue
        name = _special_name(node.func, scope, local, special)
        if name in REDUCTIONS:
            args = _positional(node, REDUCTIONS[name])
            if args is not None:
                node.func, node.args, node.keywords = ast.Name(helper_name(name), ast.Load()), args, []
                used.add(helper_name(name))
            continue
        if name is not None and not node.keywords and len(node.args) == ARITY[name]:
            node.func = ast.Name(helper_name(name), ast.Load())
            used.add(helper_name(name))
    return used


def _positional(node: ast.Call, params: tuple) -> list | None:
    """The call's arguments, every parameter by position (its default where left out), the
    last one (``return_sign``) dropped; None if they do not bind, or ask for what the numba
    function does not compute."""
    names = [p for p, _ in params]
    given = dict(zip(names, node.args))
    for k in node.keywords:
        if k.arg is None or k.arg not in names or k.arg in given:
            return None
        given[k.arg] = k.value
    if len(node.args) > len(names) or names[0] not in given:
        return None
    if names[-1] == "return_sign":
        sign = given.pop("return_sign", ast.Constant(False))
        if not (isinstance(sign, ast.Constant) and sign.value is False):
            return None
        names = names[:-1]
    if names[-1] == "method":
        method = given.get("method", ast.Constant("auto"))
        if not (isinstance(method, ast.Constant) and method.value in ("auto", "direct", "fft")):
            return None
    return [given.get(p, ast.Constant(default)) for p, default in params if p in names]


def scope_of(function) -> dict:
    """The values the free names of `function` have: its closure cells, then its globals."""
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    found = dict(function.__globals__)
    for name, cell in cells.items():
        try:
            found[name] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    return found


def value_of(node: ast.expr, scope: dict, local: set):
    """What a name or a dotted path of module attributes is, or None."""
    if isinstance(node, ast.Name):
        return None if node.id in local else scope.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = value_of(node.value, scope, local)
        if owner is not None and _is_module(owner):
            return getattr(owner, node.attr, None)
    return None


def _is_module(value) -> bool:
    return isinstance(value, types.ModuleType)  # rules/lazy_modules.py's stand-ins too


def _is_special(module) -> bool:
    name = module.__dict__.get("_target", getattr(module, "__name__", ""))
    return name == "scipy.special"


def _signal_name(func: ast.expr, scope: dict, local: set) -> str | None:
    """The ``scipy.signal`` name `func` calls, if convolutions.py has it."""
    signal = sys.modules.get("scipy.signal")
    if signal is None:
        return None
    if isinstance(func, ast.Attribute) and func.attr in SIGNAL:
        owner = value_of(func.value, scope, local)
        if owner is not None and _is_module(owner) and \
                owner.__dict__.get("_target", getattr(owner, "__name__", "")) == "scipy.signal":
            return func.attr
        return None
    value = value_of(func, scope, local)
    return next((name for name in SIGNAL if value is not None and getattr(signal, name, None) is value), None)


def _module_name(func: ast.expr, scope: dict, local: set, module: str, names) -> str | None:
    """The name of `module` (among `names`) that `func` calls, however it was reached."""
    found = sys.modules.get(module)
    if found is None:
        return None
    if isinstance(func, ast.Attribute) and func.attr in names:
        owner = value_of(func.value, scope, local)
        if owner is not None and _is_module(owner) and owner.__dict__.get("_target", getattr(owner, "__name__", "")) \
                == module:
            return func.attr
        return None
    value = value_of(func, scope, local)
    return next((name for name in names if value is not None and getattr(found, name, None) is value), None)


def _special_name(func: ast.expr, scope: dict, local: set, special) -> str | None:
    """The ``scipy.special`` name `func` calls, if special.py has it."""
    if isinstance(func, ast.Attribute) and (func.attr in ARITY or func.attr in REDUCTIONS):
        owner = value_of(func.value, scope, local)
        if owner is not None and _is_module(owner) and _is_special(owner):
            return func.attr
        return None
    value = value_of(func, scope, local)
    if value is None:
        return None
    return next((name for name in (*ARITY, *REDUCTIONS) if getattr(special, name, None) is value), None)
