"""The command line: ``python -m srcdiff COMMAND path/to/file.py:function [options]``.

Each subcommand is a `Command` in `COMMANDS`: a `setup` function that adds its options to
its argparse parser, and a `run` function that does the work and returns the exit status.
Adding one is two functions and one line in `COMMANDS`; `add_target_arguments` and
`load_target` give every subcommand the same FILE.py:FUNC, --wrt and --args handling.
"""

from __future__ import annotations

import argparse
import builtins
import importlib.util
import inspect
import math
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..api.gradients import grad
from ..errors import SrcDiffError

EXIT_OK, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2


@dataclass(frozen=True)
class Command:
    help: str
    setup: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# ---- what every subcommand shares ----

def add_target_arguments(parser: argparse.ArgumentParser, wrt_default: str = "0",
                         wrt_help: str = "the first") -> None:
    """The FILE.py:FUNC target and the --wrt / --args options (`wrt_help` names the default)."""
    parser.add_argument("target", metavar="FILE.py:FUNC", help="the function, as path/to/file.py:name")
    parser.add_argument("--wrt", default=wrt_default, help="parameter(s) to differentiate, by index or name, "
                                                           f"comma-separated (default: {wrt_help})")
    parser.add_argument("--args", dest="call_args", metavar="EXPRS",
                        help='argument values as Python expressions with numpy as np, e.g. '
                             '--args "np.ones(3), 2.0"; names from the file may be used too')


@dataclass
class Target:
    """A loaded function, the `wrt` the user asked for, and the argument values (or None)."""

    func: Callable
    wrt: object
    args: tuple | None
    module: object


def load_target(ns: argparse.Namespace) -> Target:
    """Import the file, find the function, and evaluate --args (ints become floats for wrt)."""
    path, _, name = ns.target.rpartition(":")
    if not path or not name:
        raise SrcDiffError(f"the target {ns.target!r} is not of the form FILE.py:FUNC")
    module = _import_file(Path(path))
    func = module
    for part in name.split("."):
        func = getattr(func, part, None)
        if func is None:
            raise SrcDiffError(f"{path} has no function {name!r}")
    func = getattr(func, "func", func)  # a function decorated with @srcdiff.grad
    wrt = _parse_wrt(ns.wrt)
    args = None if ns.call_args is None else _parse_args(ns.call_args, module, func, wrt)
    return Target(func, wrt, args, module)


def _import_file(path: Path):
    if not path.is_file():
        raise SrcDiffError(f"no such file: {path}")
    path = path.resolve()
    name = path.stem if path.stem not in sys.modules else f"{path.stem}__srcdiff"
    sys.path.insert(0, str(path.parent))  # so the file can import its neighbours
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[name]
        raise SrcDiffError(f"{exc.filename or path}:{exc.lineno}: {exc.msg}",
                           hint=f"fix the syntax error; srcdiff imports {path.name} to find the function") from None
    except Exception as exc:  # the user's module failed while it ran: say so, in one line
        del sys.modules[name]
        raise SrcDiffError(f"importing {path} raised {type(exc).__name__}: {exc}",
                           hint=f"run `python {path.name}` to see the full traceback") from None
    return module


def _parse_wrt(text: str):
    items = [t.strip() for t in text.split(",") if t.strip()]
    parsed = tuple(int(t) if t.lstrip("-").isdigit() else t for t in items)
    return parsed[0] if len(parsed) == 1 else parsed


def _parse_args(text: str, module, func, wrt) -> tuple:
    scope = {**vars(module), "np": np, "numpy": np, "math": math, "__builtins__": builtins}
    try:
        values = eval(f"({text},)", scope)  # the user's own expressions, as `python -c` would run them
    except Exception as exc:
        raise SrcDiffError(f"cannot evaluate --args {text!r}: {type(exc).__name__}: {exc}",
                           hint='write Python expressions separated by commas, e.g. "np.ones(3), 2.0"') from None
    params = list(inspect.signature(func).parameters)
    chosen = wrt if isinstance(wrt, tuple) else (wrt,)
    indices = {params.index(w) if isinstance(w, str) and w in params else w for w in chosen}
    return tuple(_as_float(v) if i in indices else v for i, v in enumerate(values))


def _as_float(value):
    """`1` on a command line means 1.0 for a differentiated input."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return value.astype(np.float64)
    return value


def _arguments_or_defaults(target: Target, command: str) -> tuple:
    if target.args is not None:
        return target.args
    sig = inspect.signature(target.func)
    missing = [p for p, v in sig.parameters.items() if v.default is v.empty]
    if missing:
        raise SrcDiffError(
            f"{command} needs argument values: {target.func.__qualname__}{sig} has no default for "
            f"{', '.join(missing)}", hint='pass them with --args, e.g. --args "np.ones(3), 2.0"')
    return tuple(p.default for p in sig.parameters.values())


# ---- show ----

def setup_show(parser: argparse.ArgumentParser) -> None:
    add_target_arguments(parser)


def run_show(ns: argparse.Namespace) -> int:
    """Print the generated gradient source (for --args' signature, else the generic one)."""
    target = load_target(ns)
    gradient = grad(target.func, wrt=target.wrt)
    print(gradient.source if target.args is None else gradient.source_for(*target.args), end="")
    return EXIT_OK


# ---- check ----

def setup_check(parser: argparse.ArgumentParser) -> None:
    from .check_common import TIMEOUT  # (without sympy: every command's parser is built)

    add_target_arguments(parser)
    parser.add_argument("--points", type=int, default=5,
                        help="points for the numeric fallback when sympy cannot prove equality")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, metavar="SECONDS",
                        help=f"seconds each symbolic stage may take before the check gives up "
                             f"symbolically and checks numerically (default {TIMEOUT:g}; 0: no limit)")


def run_check(ns: argparse.Namespace) -> int:
    """Print the sympy cross-check and the central-difference check.

    Exit status: 1 when either finds a mismatch, else 0, also when sympy could not evaluate
    the function or gave up (then central differences give the verdict); 2 is for errors
    (see `main`).  Slow symbolic stages are announced on standard error.
    """
    from .check import MISMATCH, check  # sympy: loaded only for this command
    from .gradcheck import gradcheck

    target = load_target(ns)
    args = _arguments_or_defaults(target, "check")
    symbolic = check(target.func, *args, wrt=target.wrt, points=ns.points, timeout=ns.timeout or None)
    print(symbolic)
    numeric = symbolic.numeric  # given when nothing was compared symbolically
    if numeric is None:
        numeric = gradcheck(target.func, *args, wrt=target.wrt)
        print()
        print(numeric)
    return EXIT_MISMATCH if symbolic.status == MISMATCH or not numeric else EXIT_OK


# ---- graph ----

def setup_graph(parser: argparse.ArgumentParser) -> None:
    add_target_arguments(parser, "", "every parameter")
    parser.add_argument("-o", "--output", metavar="OUT", help="write OUT.dot (Graphviz text), OUT.svg "
                        "(drawn by Graphviz `dot`) or OUT.html (the walk-through; needs --args); "
                        "without -o, print the DOT text")


def run_graph(ns: argparse.Namespace) -> int:
    """Print or write the computation graph (docs/debugging.md)."""
    import subprocess

    from .explain import explain
    from .graph import graph

    target = load_target(ns)
    wrt = target.wrt if target.wrt != () else None
    out = Path(ns.output) if ns.output else None
    if out is not None and out.suffix == ".html":
        args = _arguments_or_defaults(target, "graph -o FILE.html")
        explain(target.func, *args, html=out, wrt=wrt)  # an int stays an int (range(n)), as in show
        print(f"wrote {out}")
        return EXIT_OK
    dot = graph(target.func, wrt=wrt).to_dot()
    if out is None:
        print(dot, end="")
    elif out.suffix == ".dot":
        out.write_text(dot)
        print(f"wrote {out}")
    elif out.suffix == ".svg":
        if shutil.which("dot") is None:
            raise SrcDiffError("drawing SVG needs Graphviz's `dot` program, which is not installed",
                               hint="install Graphviz, or write -o graph.dot or -o walk.html instead")
        subprocess.run(["dot", "-Tsvg", "-o", str(out)], input=dot, text=True, check=True)
        print(f"wrote {out}")
    else:
        raise SrcDiffError(f"cannot tell what to write from the name {out}", hint="end it in .dot, .svg or .html")
    return EXIT_OK


# ---- trace ----

def setup_trace(parser: argparse.ArgumentParser) -> None:
    add_target_arguments(parser, "", "every parameter given a float or float array")


def run_trace(ns: argparse.Namespace) -> int:
    """Print every node's value, shape and adjoint in topological order."""
    from .trace import trace

    target = load_target(ns)
    wrt = target.wrt if target.wrt != () else None
    args = _arguments_or_defaults(target, "trace")
    trace(target.func, *args, wrt=wrt).print()  # an int stays an int (range(n)), as in show
    return EXIT_OK


# ---- export ----

def setup_export(parser: argparse.ArgumentParser) -> None:
    add_target_arguments(parser)
    parser.add_argument("-o", "--output", metavar="OUT.py", help="the module to write (default: FUNC_grad.py)")
    parser.add_argument("--check", action="store_true", help="write nothing: exit 1 if OUT.py was generated from "
                        "another version of the source (its header's hash differs), 0 if it is up to date")


def run_export(ns: argparse.Namespace) -> int:
    """Write the gradient for --args' signature as a standalone module that needs only NumPy."""
    from .export import export

    target = load_target(ns)
    args = _arguments_or_defaults(target, "export")
    out = Path(ns.output or f"{target.func.__name__}_grad.py")
    if ns.check:
        from .export import source_digest
        from .export_check import stale

        reason = stale(out, source_digest(target.func, *args, wrt=target.wrt))
        print(f"stale: {reason}; regenerate it without --check" if reason else f"{out} is up to date")
        return EXIT_MISMATCH if reason else EXIT_OK
    export(target.func, *args, wrt=target.wrt, path=out)
    print(f"wrote {out}")
    return EXIT_OK


#: Subcommand name -> Command.  Add a subcommand with one line here.
COMMANDS: dict[str, Command] = {
    "show": Command("print the generated gradient source", setup_show, run_show),
    "check": Command("cross-check the gradient against sympy and central differences", setup_check, run_check),
    "graph": Command("print or draw the computation graph (DOT, SVG, or an HTML walk-through)", setup_graph,
                     run_graph),
    "trace": Command("print every node's value, shape and adjoint for --args", setup_trace, run_trace),
    "export": Command("write the gradient as a standalone module that needs only NumPy", setup_export, run_export),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m srcdiff",
                                     description="Gradients of Python/NumPy functions as readable source.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        command.setup(sub.add_parser(name, help=command.help, description=command.help))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    ns = build_parser().parse_args(argv)
    try:
        return COMMANDS[ns.command].run(ns)
    except SrcDiffError as exc:
        print(f"srcdiff: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
