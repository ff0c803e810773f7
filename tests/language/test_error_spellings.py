"""Refusals name the user's line once and what the user wrote, never a variable srcdiff made.

A dict's entries become variables of their own (``d_a`` for ``d["a"]``); a ``try`` block a helper
(``try_line_36``).  Messages raised from them said those names.  Now a rewrite records how the user
writes what each such variable holds, and a `SrcDiffError` located in the function says that instead
(errors.spelled).  A refusal raised by generated code at run time (``ensure_scalar``) named its line
in its text and was located at that line again: "t.py:10: t.py:10: ..."; the line is now named once.
"""

import re

import numpy as np
import pytest

import srcdiff


def plus_equal_on_an_entry(x):
    d = {"a": x, "b": 2.0}
    d["a"] += np.linalg.eigvals(np.outer(x, x)).real
    return np.sum(d["a"])


def sort_an_entry(x):
    d = {"a": x}
    d["a"].sort()
    return np.sum(d["a"] * x)


def plus_equal_on_a_nested_entry(x):
    d = {"layer": {"w": x, "b": 1.0}}
    d["layer"]["w"] += np.linalg.eigvals(np.outer(x, x)).real
    return np.sum(d["layer"]["w"])


def sort_a_parameter_entry(p):
    p["w"].sort()
    return np.sum(p["w"] ** 2)


def plus_equal_on_a_list_item(x):
    s = [x, x * 2.0]
    s[0] += np.linalg.eigvals(np.outer(x, x)).real
    return np.sum(s[0])


def tree_in_try(x):
    d = {"a": x[0], "b": x[1]}
    try:
        y = d["a"] / d["b"]
    except ZeroDivisionError:
        y = 0.0
    return y


def array_on_one_path(x):
    if x[0] > 0:
        return x * 2.0
    return np.sum(x)


def _refusal(f, *args, transform=srcdiff.grad) -> str:
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        transform(f)(*args)
    return str(caught.value)


X = np.array([0.7, 1.3, -0.4])


@pytest.mark.parametrize("f, args, says, not_said", [
    (plus_equal_on_an_entry, (X,), "in-place `+=` on d['a'], which may be an array: x shares its memory with d['a']",
     "d_a"),
    (sort_an_entry, (X,), "writing into d['a'] is not supported: d['a'] is an argument", "d_a"),
    (plus_equal_on_a_nested_entry, (X,), "in-place `+=` on d['layer']['w']", "d_w"),
    (sort_a_parameter_entry, ({"w": X},), "writing into p['w'] is not supported: p['w'] is an argument", "p_w"),
    (plus_equal_on_a_list_item, (X,), "writing into s[0] is not supported", "s_item0"),
    (tree_in_try, (X,), "passed whole to the `try` block of line", "try_line_"),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_an_entry_is_named_as_written(f, args, says, not_said):
    text = _refusal(f, *args)
    assert says in text.splitlines()[0]
    assert not_said not in text
    assert text.splitlines()[0].startswith(f"{__file__}:")


@pytest.mark.parametrize("transform", [srcdiff.grad, srcdiff.value_and_grad, srcdiff.hessian],
                         ids=["grad", "value_and_grad", "hessian"])
def test_a_run_time_refusal_names_its_line_once(transform):
    text = _refusal(array_on_one_path, np.array([0.5, 1.0]), transform=transform).splitlines()[0]
    assert len(re.findall(r"\.py:\d+", text)) == 1, text
    assert text.endswith("the function returns a value of shape (2,), but a gradient needs a scalar output")


def test_a_message_naming_its_line_is_not_prefixed_again():
    where = srcdiff.errors.Location("/w/model.py", 6, "y = f(x)")
    error = srcdiff.SrcDiffError("model.py:6: the function returns a value of shape (3,)", where)
    assert str(error).splitlines()[0] == "/w/model.py:6: the function returns a value of shape (3,)"
    assert error.reason == "the function returns a value of shape (3,)"
    other = srcdiff.SrcDiffError("model.py:7: at another line", where)  # another line's name stays
    assert str(other).splitlines()[0] == "/w/model.py:6: model.py:7: at another line"


def test_spellings_replace_whole_names_only():
    where = srcdiff.errors.Location("/w/model.py", 6, "", (("d_a", "d['a']"),))
    error = srcdiff.SrcDiffError("d_a and d_ab, 'd_a', obj.d_a", where, hint="write d_a = d_a + 1")
    assert error.reason == "d['a'] and d_ab, 'd_a', obj.d_a"
    assert error.hint == "write d['a'] = d['a'] + 1"
