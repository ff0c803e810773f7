"""The package's shape: imports point one way, stay shallow, and keep private names private.

Every import of srcdiff's own modules is read from the source (function-level ones too), so
an import hidden inside a function still counts.  An ``__init__.py`` is a face: importing a
name from a package counts as importing the module that defines it.
"""

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "srcdiff"
MAX_LAYERS = 8  # packages (and top-level modules) on the longest chain of imports
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = ["srcdiff", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _absolute(module: str, level: int, name: str | None) -> str:
    base = module.split(".")
    if not _is_package(module):
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([name] if name else []))


@cache
def _face(package: str) -> dict[str, str]:
    """For a package's __init__.py: each name it hands on -> the module defining it."""
    found = {}
    for node in ast.walk(ast.parse(MODULES[package].read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            source = _absolute(package, node.level, node.module)
            for alias in node.names:
                target = f"{source}.{alias.name}"
                found[alias.asname or alias.name] = target if target in MODULES else _defining(source, alias.name)
    return found


def _defining(module: str, name: str) -> str:
    if module in MODULES and _is_package(module):
        return _face(module).get(name, module)
    return module


def imports(module: str) -> list[tuple[str, str]]:
    """(imported module, name) for every srcdiff import in `module`."""
    found = []
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                source = _absolute(module, node.level, node.module)
            elif (node.module or "").split(".")[0] == "srcdiff":
                source = node.module
            else:
                continue
            for alias in node.names:
                target = f"{source}.{alias.name}"
                found.append((target, "") if target in MODULES else (_defining(source, alias.name), alias.name))
        elif isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.split(".")[0] == "srcdiff"]
    return found


def _graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (faces looked through)."""
    graph = {}
    for module in MODULES:
        if _is_package(module) and module != "srcdiff":
            continue
        graph[module] = {target for target, _ in imports(module)
                         if target in MODULES and not _is_package(target) and target != module}
    return graph


def _layer(module: str) -> str:
    """The package a module belongs to (srcdiff.ad.reverse -> srcdiff.ad); a top-level module is its own."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _longest(graph: dict[str, set[str]]) -> list[str]:
    @cache
    def chain(node: str) -> tuple[str, ...]:
        below = [chain(n) for n in graph.get(node, ())]
        return (node,) + max(below, key=len, default=())
    return list(max((chain(n) for n in graph), key=len))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    layers: dict[str, set[str]] = {}
    for module, targets in graph.items():
        layers.setdefault(_layer(module), set()).update(_layer(t) for t in targets if _layer(t) != _layer(module))
    return layers


def test_no_import_cycles_between_modules():
    assert _cycles(_graph()) == []


def test_no_import_cycles_between_packages():
    assert _cycles(_package_graph(_graph())) == []


def test_the_package_layers_are_at_most_eight_deep():
    assert _cycles(_package_graph(_graph())) == [], "layers are counted once the cycles are gone"
    longest = _longest(_package_graph(_graph()))
    assert len(longest) <= MAX_LAYERS, " -> ".join(longest)


def test_no_private_name_is_imported_from_another_module():
    private = [(module, target, name) for module in MODULES for target, name in imports(module)
               if name.startswith("_") and not name.startswith("__")]
    assert private == []


def test_no_module_is_over_four_hundred_lines():
    long = {module: n for module, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_the_import_walk_sees_function_level_imports():
    # a walker that missed them would pass every test above vacuously for lazy imports
    assert ("srcdiff.tools.check", "check") in imports("srcdiff") or \
        any(t.startswith("srcdiff.tools") for t, _ in imports("srcdiff"))


def test_import_srcdiff_leaves_sympy_unloaded():
    code = "import sys, srcdiff; srcdiff.grad; print('sympy' in sys.modules, 'astor' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split()[0] == "False"


def test_lazy_tools_load_on_first_use():
    code = "import sys, srcdiff; srcdiff.check; print('sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


ROOT_MODULES = {"__init__.py", "__main__.py", "errors.py", "version.py"}


def test_the_package_root_holds_only_its_face_and_packages():
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ROOT_MODULES)
    assert not loose, f"modules loose at the package root (move them into a package): {loose}"


def test_one_compile_path_the_stages_are_imported_by_the_driver_only():
    """The stages after lowering (the transforms, codegen, optimize, render) are reached
    through srcdiff/driver/ only: no public function or tool builds code its own way."""
    stages = {"srcdiff.ad.reverse", "srcdiff.ad.tangent", "srcdiff.backend.codegen",
              "srcdiff.backend.optimize.optimizer", "srcdiff.backend.render", "srcdiff.ad.inline"}
    outside = sorted(f"{module} imports {target}" for module in MODULES
                     if not module.startswith(("srcdiff.driver", "srcdiff.ad", "srcdiff.backend"))
                     for target, _ in imports(module) if target in stages)
    assert not outside, f"stages reached outside the driver: {outside}"


TESTS = Path(__file__).resolve().parents[1]
#: Test packages not named after a srcdiff package: the Python language as users write it
#: (frontend and lowering together), and the transformations run on every program.
TEST_PACKAGES_BEYOND_SRCDIFF = {"language", "transforms"}


def test_the_tests_mirror_the_packages():
    """No test file at tests/ top level (only conftest.py and shared helpers); each folder
    of tests is a package named after a srcdiff package (or one of the two above)."""
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not loose, f"test files at tests/ top level (move them into the package they test): {loose}"
    srcdiff_packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    folders = {p.parent for p in TESTS.rglob("test_*.py")}
    assert all(f.parent == TESTS for f in folders), sorted(str(f) for f in folders if f.parent != TESTS)
    unknown = sorted(f.name for f in folders if f.name not in srcdiff_packages | TEST_PACKAGES_BEYOND_SRCDIFF)
    assert not unknown, f"test packages named after no srcdiff package: {unknown}"
    # a package, so each file imports as package.test_x; basenames unique, so the recorded
    # corpus and error messages that name a file by its base name stay unambiguous
    assert all((f / "__init__.py").exists() for f in folders)
    names = [p.name for p in TESTS.rglob("*.py") if p.name != "__init__.py"]
    assert not sorted({n for n in names if names.count(n) > 1}), "test and helper file names must be unique"
