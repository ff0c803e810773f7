"""Objects made by a factory in the function: ``Scaler.fit(X).transform(X)``.

A factory is a classmethod, a staticmethod or a function of the user's module whose body is
straight-line assignments to plain names followed by ``return cls(...)`` (or
``return Cls(...)`` of a user class).  Its call is read as those assignments, put before the
statement under fresh names with the call's arguments for the parameters, and then the
object built from them (built_objects.py):

    Z = Scaler.fit(X).transform(X)     # fit: return cls(X.mean(axis=0), X.std(axis=0) + 1e-8)
    fit_X = X
    scaler_mean = fit_X.mean(axis=0)
    scaler_scale = fit_X.std(axis=0) + 1e-8
    Z = <Scaler.transform given the tree {mean: scaler_mean, scale: scaler_scale}>(X)

The factory's free names must mean in it what they mean in the function (same module
objects); anything else (a branch, a loop, a call of another factory) leaves the call alone.
"""

from __future__ import annotations

import ast
import inspect
import types

from .parse import parse_function


def factory_function(cls, attr: str):
    """``(function, takes_cls)`` of classmethod or staticmethod `attr` of `cls` when it is a
    factory (see the module docstring), else None."""
    found = inspect.getattr_static(cls, attr, None)
    if isinstance(found, classmethod) and isinstance(found.__func__, types.FunctionType):
        return (found.__func__, True) if factory_body(found.__func__, True) is not None else None
    if isinstance(found, staticmethod) and isinstance(found.__func__, types.FunctionType):
        return (found.__func__, False) if factory_body(found.__func__, False) is not None else None
    return None


def factory_body(func, takes_cls: bool):
    """``(assignments, the returned constructor call)`` of a factory, or None."""
    try:
        tree = parse_function(func).tree
    except Exception:  # noqa: BLE001  not readable: not read as a factory
        return None
    a = tree.args
    if a.vararg or a.kwarg or a.posonlyargs or a.kwonlyargs or (takes_cls and not a.args):
        return None
    body = [s for s in tree.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not body or not isinstance(body[-1], ast.Return) or not isinstance(body[-1].value, ast.Call):
        return None
    for stmt in body[:-1]:
        if not (isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets)):
            return None
    call = body[-1].value
    if not isinstance(call.func, ast.Name) or any(isinstance(x, ast.Starred) for x in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    if takes_cls and call.func.id != a.args[0].arg:
        return None
    return body[:-1], call


__all__ = ["factory_body", "factory_function"]
