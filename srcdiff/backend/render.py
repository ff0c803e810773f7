"""Stage 8: a generated function's AST becomes source text (astor), comments included.

Comments have no place in an AST, so codegen writes each as a call to a marker function
(`comment`); rendering turns those calls into ``# ...`` lines.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

import astor

MARK = "__srcdiff_comment__"
_MARK_LINE = re.compile(rf"^(\s*){MARK}\((.*)\)$", re.MULTILINE)


def comment(text: str) -> ast.stmt:
    """A statement that renders as ``# text``."""
    return ast.Expr(ast.Call(ast.Name(MARK, ast.Load()), [ast.Constant(text)], []))


def render(func: ast.FunctionDef) -> str:
    """The source text of `func`, one statement per line (no wrapping)."""
    module = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    text = astor.to_source(module, pretty_source="".join)
    return _MARK_LINE.sub(lambda m: f"{m.group(1)}# {ast.literal_eval(m.group(2))}", text)


def identifiers(source: str) -> set[str]:
    """Every name `source` uses (not the words of its comments or strings)."""
    return {tok.string for tok in _tokens(source) if tok.type == tokenize.NAME}


def rename(source: str, names: dict[str, str]) -> str:
    """`source` with each name in `names` replaced, comments and strings left as they are."""
    lines = source.splitlines(keepends=True)
    for tok in reversed(_tokens(source)):  # right to left: earlier columns stay valid
        if tok.type == tokenize.NAME and names.get(tok.string, tok.string) != tok.string:
            (row, start), (_, end) = tok.start, tok.end
            line = lines[row - 1]
            lines[row - 1] = line[:start] + names[tok.string] + line[end:]
    return "".join(lines)


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))
