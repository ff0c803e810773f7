"""Writes into a helper's ``**opts``, which varargs.py binds to the keywords of each call::

    opts.setdefault("k", d)           # nothing when the call gives k, else a variable k_0 = d
    opts["k"] = v                     # (python_forms.py writes ``opts.setdefault`` of a value so)
    s = opts.pop("k", d)              # s = k (k no longer forwarded by f(**opts)), or d
    opts.update(k=v) / opts.update({"k": v})
    opts["k"] += v                    # of a key the call gives
    del opts["k"]

A key the call gives is a variable: it may be set anywhere.  Adding a key the call does not give,
or removing one (pop, del), changes which keywords ``f(**opts)`` forwards and what ``"k" in opts``
is: done by a statement of the body's top level (or of the branch a test the call decides
takes), else refused at its line, as a key the call may or may not have at run time.
"""

from __future__ import annotations

import ast

from .spread_items import fresh_names


def _key(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class KeyWrites:
    """The part of varargs.py's rewrite that writes into ``opts`` (a mixin: it reads the rewrite's
    `kwarg`, `keywords`, `held`, `taken`, `top` and `parsed`)."""

    def written(self, node):
        """`node` rewritten when it is a statement writing into ``opts`` (see the module's doc); else None."""
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return self._call_statement(node, node.value)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and self._is(node.targets[0].value, self.kwarg) and _key(node.targets[0].slice) is not None:
            value = self.visit(node.value)  # (read first: opts["k"] = 2 * opts.get("k", 1.0))
            return ast.copy_location(ast.Assign([self._set(_key(node.targets[0].slice), node)], value), node)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript) \
                and self._is(node.target.value, self.kwarg) and _key(node.target.slice) is not None:
            if _key(node.target.slice) not in self.keywords:  # (opts["k"] += v reads k first)
                raise self._missing(_key(node.target.slice), node)
            node.value = self.visit(node.value)
            node.target = self._set(_key(node.target.slice), node)
            return node
        if isinstance(node, ast.Assign) and self._popped(node.value):
            node.value = self._pop(node.value, node)
            node.targets = [self.visit(t) for t in node.targets]
            return node
        if isinstance(node, ast.Delete) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and self._is(node.targets[0].value, self.kwarg) and _key(node.targets[0].slice) is not None:
            self._remove(_key(node.targets[0].slice), node)
            return ast.copy_location(ast.Pass(), node)
        return None

    def _call_statement(self, node, call):
        f = call.func
        if not (isinstance(f, ast.Attribute) and self._is(f.value, self.kwarg)):
            return None
        if self._popped(call):
            return ast.copy_location(ast.Expr(self._pop(call, node)), node)
        if f.attr == "setdefault" and len(call.args) == 2 and not call.keywords and _key(call.args[0]) is not None:
            key, value = _key(call.args[0]), self.visit(call.args[1])
            if key in self.keywords:
                return ast.copy_location(ast.Expr(value), node)  # (d still evaluated, as Python does)
            return ast.copy_location(ast.Assign([self._set(key, node)], value), node)
        if f.attr == "update" and (call.keywords and not call.args or len(call.args) == 1 and not call.keywords
                                   and isinstance(call.args[0], ast.Dict)):
            pairs = [(k.arg, k.value) for k in call.keywords] if call.keywords else \
                list(zip((_key(k) if k is not None else None for k in call.args[0].keys), call.args[0].values))
            if any(k is None for k, _ in pairs):
                return None  # (opts.update(**other) / a computed key: refused as opts used as a dict)
            values = [self.visit(v) for _, v in pairs]  # (every value read before any is set)
            targets = [self._set(k, node) for k, _ in pairs]
            return ast.fix_missing_locations(ast.copy_location(
                ast.Assign([ast.Tuple(targets, ast.Store())], ast.Tuple(values, ast.Load())), node))
        return None

    def _popped(self, call) -> bool:
        return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "pop" \
            and self._is(call.func.value, self.kwarg) and 1 <= len(call.args) <= 2 and not call.keywords \
            and _key(call.args[0]) is not None

    def _pop(self, call, statement) -> ast.expr:
        """``opts.pop("k"[, d])``: k's variable (k removed from the call's keywords), or d."""
        key = _key(call.args[0])
        if key not in self.keywords and len(call.args) == 2:
            return self.visit(call.args[1])
        value = self._var(key) if key in self.keywords else None
        self._remove(key, statement)
        return ast.copy_location(value, call)

    def _remove(self, key: str, node) -> None:
        if key not in self.keywords:
            raise self._missing(key, node)
        if not self.top:
            raise self._one_path(key, node, "removed")
        self.keywords.remove(key)
        self.held.pop(key, None)

    def _set(self, key: str, node) -> ast.Name:
        """The variable to store the value of ``opts[key]`` in: k's own, or a new one for a key the body
        adds to the call's keywords (read from here on)."""
        if key not in self.keywords:
            if not self.top:
                raise self._one_path(key, node, "added")
            self.held[key] = fresh_names(key, 1, self.taken)[0]
            self.taken.add(self.held[key])
            self.keywords.append(key)
        return ast.Name(self.held.get(key, key), ast.Store())

    def _missing(self, key, node):
        return self.parsed.error(node, f"{self.kwarg}[{key!r}] is not given by the call (a KeyError)",
                                 f"use {self.kwarg}.get({key!r}, default) or {self.kwarg}.pop({key!r}, default)")

    def _one_path(self, key, node, what):
        return self.parsed.error(node, f"{self.kwarg}[{key!r}] is {what} in a branch or a loop, so which keywords "
                                 f"**{self.kwarg} holds is known only when the function runs (srcdiff binds it to "
                                 "the keywords of each call)",
                                 f"add or remove {self.kwarg}[{key!r}] at the top of the body "
                                 f"({self.kwarg}.setdefault({key!r}, d) there), or read {self.kwarg}.get({key!r}, d)")


__all__ = ["KeyWrites"]
