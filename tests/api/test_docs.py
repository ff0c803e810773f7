"""The code in README.md and docs/*.md runs, and prints exactly what the page shows.

How to write a code block so this test checks it (the convention for every page):

* A ```python block is run.  The blocks of one page run in order in one shared namespace,
  as if typed into one session, so a later block can use what an earlier one defined.  The
  current directory is a fresh temporary one, so a block may write files.
  Each block is saved to a file of its own first (srcdiff reads functions' source from
  their files), named ``example.py`` unless the fence names it: ```python file=model.py.
* A block saved as ``file=NAME.py`` can also be imported by later blocks: ``import NAME``.
* A ```python block whose first line starts with ``>>>`` is a doctest session instead: it
  runs in the page's namespace and each ``>>>`` example's output must match the lines
  under it (same normalisation as below).
* If the block is followed directly (nothing but blank lines between) by an ```output block, what the code prints must
  equal that block exactly.  An exception the code raises counts as printed output, as the
  last line of a traceback: ``SrcDiffError: message...`` (type name without module).  A
  block that raises without an ```output block showing it fails the test.
* A ```bash block followed directly by an ```output block is run by the shell in the
  repository root (``python`` means the interpreter running the tests); its standard
  output (and standard error, merged after it) must equal the output block.  A ```bash
  block without one (an install command, say) is not run.
* ```python no-run (or ```bash no-run) is shown but never run: for code that needs
  something the tests cannot give it, such as a download or a GPU.
* Only what must differ between machines is normalised: the temporary directory a block's
  file lives in and the repository's path are removed from the output, and trailing spaces
  at the ends of lines and trailing blank lines are ignored.  Keep output deterministic:
  fixed seeds, few digits (``np.set_printoptions(precision=4)`` or format strings).
"""

import contextlib
import doctest
import io
import os
import re
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import srcdiff
from srcdiff.rules import TABLE

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("**/*.md")])

FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)


@dataclass
class Block:
    """One fenced code block: its language, options, text and line in the page."""

    language: str
    options: dict
    text: str
    line: int
    output: "Block | None" = None

    @property
    def runs(self) -> bool:
        if "no-run" in self.options:
            return False
        return self.language == "python" or (self.language == "bash" and self.output is not None)


def blocks_of(text: str) -> list[Block]:
    """The fenced blocks of a Markdown page, each code block paired with the output after it."""
    found = []
    for match in FENCE.finditer(text):
        words = match["info"].split()
        language = words[0] if words else ""
        options = dict(w.split("=", 1) if "=" in w else (w, True) for w in words[1:])
        indent = len(match["indent"])
        body = "".join(line[indent:] for line in match["body"].splitlines(keepends=True))
        block = Block(language, options, body, text.count("\n", 0, match.start()) + 1)
        between = text[found[-1].end:match.start()] if found else "-"
        if language == "output" and found and not between.strip() \
                and found[-1].block.language in ("python", "bash"):
            found[-1].block.output = block
        found.append(_Found(block, match.end()))
    return [f.block for f in found if f.block.language != "output"]


@dataclass
class _Found:
    block: Block
    end: int


def normalise(text: str, *paths) -> str:
    for path in paths:
        text = text.replace(str(path) + os.sep, "").replace(str(path), "")
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def run_python(block: Block, namespace: dict, root: Path, index: int) -> str:
    """Run the block from its own file, root/block<index>/; what it printed (and any exception)."""
    folder = root / f"block{index}"
    folder.mkdir(parents=True)
    sys.path.insert(0, str(folder))  # so that later blocks can import it; the test restores sys.path
    path = folder / block.options.get("file", "example.py")
    path.write_text(block.text)
    code = compile(block.text, str(path), "exec")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            exec(code, namespace)
        except Exception as exc:  # shown as the last line of a traceback would show it
            if block.output is None:
                raise
            print(f"{type(exc).__name__}: {exc}")
    # A later block may print the file name of an earlier block's function.
    return _clean(printed.getvalue(), root)


class _NormalisingChecker(doctest.OutputChecker):
    def __init__(self, root: Path):
        self.root = root

    def check_output(self, want, got, optionflags):
        return normalise(want) == _clean(got, self.root)


def _clean(text: str, root: Path) -> str:
    text = re.sub(re.escape(str(root) + os.sep) + r"block\d+" + re.escape(os.sep), "", text)
    return normalise(text, root, ROOT)


def run_doctest(block: Block, namespace: dict, root: Path, where: str) -> str:
    """Run a ``>>>`` block in `namespace`; the report of its failures ('' when none)."""
    test = doctest.DocTestParser().get_doctest(block.text, namespace, where, where, block.line)
    report = io.StringIO()
    runner = doctest.DocTestRunner(checker=_NormalisingChecker(root), optionflags=doctest.REPORT_NDIFF)
    runner.run(test, out=report.write, clear_globs=False)
    return report.getvalue() if runner.failures else ""


def run_bash(block: Block) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    bindir = Path(sys.executable).parent
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    script = re.sub(r"(?m)^(\s*)python3?\b", lambda m: m[1] + sys.executable, block.text)
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    return normalise(done.stdout + PROGRESS.sub("", done.stderr), ROOT)


#: `srcdiff.check`'s progress messages on stderr: whether one appears depends on the machine's
#: speed (a stage over a second), not on what the page shows
PROGRESS = re.compile(r"(?m)^srcdiff\.check [^\n]*(\.\.\. \(over [^\n]*\)| took [0-9.]+ s)\n")


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@contextlib.contextmanager
def restored_rule_table():
    """Undo what a page's `srcdiff.register_adjoint` calls did to the global rule table."""
    before = {rule.func: rule for rule in TABLE}
    try:
        yield
    finally:
        for rule in list(TABLE):
            if rule.func not in before:
                TABLE.remove(rule.func)
        for func, rule in before.items():
            if TABLE.lookup(func) is not rule:
                TABLE.register(rule, replace=True)


@pytest.mark.parametrize("page", PAGES, ids=[page_id(p) for p in PAGES])
def test_code_blocks_print_what_the_page_shows(page, tmp_path, monkeypatch, request):
    blocks = [b for b in blocks_of(page.read_text()) if b.runs]
    if not blocks:
        pytest.skip("no code blocks to run")
    namespace = {"__name__": "docs_example"}
    monkeypatch.chdir(tmp_path)  # files the examples write land in the temporary folder
    monkeypatch.setattr(sys, "path", list(sys.path))
    modules = set(sys.modules)
    request.addfinalizer(lambda: [sys.modules.pop(m) for m in set(sys.modules) - modules
                                  if str(tmp_path) in str(getattr(sys.modules[m], "__file__", "") or "")])
    # A page's set_printoptions and registered rules must not leak into the next page.
    with np.printoptions(), restored_rule_table():
        for index, block in enumerate(blocks):
            where = f"{page_id(page)}:{block.line}"
            if block.language == "python" and block.text.lstrip().startswith(">>>"):
                failures = run_doctest(block, namespace, tmp_path, where)
                assert not failures, f"the doctest block at {where} failed:\n{failures}"
                continue
            if block.language == "python":
                try:
                    printed = run_python(block, namespace, tmp_path, index)
                except Exception:
                    pytest.fail(f"the code block at {where} raised:\n{traceback.format_exc()}")
            else:
                printed = run_bash(block)
            if block.output is not None:
                expected = normalise(block.output.text)
                assert printed == expected, (
                    f"the output of the code block at {where} differs from the page "
                    f"(line {block.output.line}).\n--- page ---\n{expected}\n--- actual ---\n{printed}")


# ---- the convention itself ----

SAMPLE = '''\
Text.

```python file=model.py
print(1 + 1)
```

```output
2
```

```python no-run
import something_not_installed
```

```bash
pip install nothing
```

```text
just text
```
'''


def test_blocks_pair_code_with_the_output_after_it():
    blocks = blocks_of(SAMPLE)
    kinds = [(b.language, b.runs) for b in blocks]
    assert kinds == [("python", True), ("python", False), ("bash", False), ("text", False)]
    assert blocks[0].options == {"file": "model.py"} and blocks[0].output.text == "2\n"
    assert blocks[0].line == 3 and blocks[0].output.line == 7


def test_a_wrong_output_is_caught(tmp_path):
    block = blocks_of(SAMPLE)[0]
    assert run_python(block, {}, tmp_path, 1) == normalise(block.output.text)
    block.text = "print(1 + 2)\n"
    assert run_python(block, {}, tmp_path, 2) != normalise(block.output.text)


def test_an_exception_is_output_and_the_temporary_folder_is_removed(tmp_path):
    block = Block("python", {}, "def f(x):\n    return x * x\nraise ValueError(f.__code__.co_filename)\n", 1,
                  Block("output", {}, "ValueError: example.py\n", 5))
    assert run_python(block, {}, tmp_path, 3) == "ValueError: example.py"


def test_srcdiff_reads_functions_from_a_block(tmp_path):
    block = Block("python", {"file": "model.py"}, "import srcdiff\n\ndef f(x):\n    return x * x\n\n"
                  "print(srcdiff.grad(f)(3.0))\n", 1)
    namespace = {}
    assert run_python(block, namespace, tmp_path, 4) == "6.0"


# ---- the API reference and the links between pages ----

def test_every_public_name_has_a_section_in_the_api_reference():
    api = (ROOT / "docs" / "api.md").read_text()
    headings = set(re.findall(r"^#+ `srcdiff\.(\w+)", api, re.MULTILINE))
    missing = [name for name in srcdiff.__all__ if name not in headings]
    assert not missing, f"docs/api.md has no section for: {missing}"



def test_the_package_namespace_shows_only_its_api_and_subpackages():
    # what a user's tab completion lists: no name the package imported for its own use (typing's)
    import types

    public = {name for name in dir(srcdiff) if not name.startswith("_")}
    modules = {name for name in public if isinstance(getattr(srcdiff, name), types.ModuleType)}
    assert public - modules == set(srcdiff.__all__)

LINK = re.compile(r"\]\((?!https?://|#|mailto:)([^)#\s]+)(?:#[^)]*)?\)")


def _links():
    out = []
    for page in PAGES:
        for target in sorted(set(LINK.findall(page.read_text()))):
            resolved = (page.parent / target).resolve()
            out.append(pytest.param(page, target, resolved, id=f"{page_id(page)}->{target}"))
    return out


@pytest.mark.parametrize("page, target, resolved", _links())
def test_relative_links_point_at_files_that_exist(page, target, resolved):
    assert resolved.exists(), f"{page_id(page)} links to {target}, which does not exist"


def test_readme_starts_with_the_two_commands():
    # CI and new users run exactly these; keep them first, under "Get started".
    readme = (ROOT / "README.md").read_text()
    first_block = blocks_of(readme.split("## Get started", 1)[1])[0]
    assert first_block.language == "bash"
    assert first_block.text.splitlines() == [
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[dev]" && python examples/quickstart.py',
        "python -m pytest",
    ]


def update_page(page: Path) -> int:
    """Rewrite the ```output blocks of `page` with what its code prints now; return how many.

    For intentional changes only (say, the optimizer now writes shorter code): run
    ``python tests/api/test_docs.py --update docs/PAGE.md`` and review the diff before keeping it.
    """
    import tempfile

    text = page.read_text()
    lines = text.splitlines(keepends=True)
    folder = tempfile.TemporaryDirectory()
    root = Path(folder.name)
    old_cwd, old_path = os.getcwd(), list(sys.path)
    namespace, outputs = {"__name__": "docs_example"}, []
    os.chdir(root)
    try:
        with np.printoptions(), restored_rule_table():
            for index, block in enumerate(b for b in blocks_of(text) if b.runs):
                if block.language == "python" and block.text.lstrip().startswith(">>>"):
                    continue  # doctest blocks hold their own outputs; fix those by hand
                if block.language == "python":
                    printed = run_python(block, namespace, root, index)
                else:
                    printed = run_bash(block)
                if block.output is not None:
                    outputs.append((block.output.line, printed))
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        folder.cleanup()
    for first, printed in sorted(outputs, reverse=True):
        end = first
        while not lines[end].lstrip().startswith("```"):
            end += 1
        lines[first:end] = [line + "\n" for line in printed.split("\n")] if printed else []
    page.write_text("".join(lines))
    return len(outputs)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "--update":
        sys.exit("usage: python tests/api/test_docs.py --update README.md docs/PAGE.md ...")
    for name in sys.argv[2:]:
        print(name, update_page(Path(name).resolve()), "output blocks")
