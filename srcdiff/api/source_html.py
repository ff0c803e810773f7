"""A gradient's generated source as HTML for a notebook: keywords, numbers, strings and comments
coloured.  (Written in api/, not in tools/: the package layers keep api below the tools.)"""

from __future__ import annotations

import html
import io
import keyword
import tokenize


def source_html(title: str, source: str) -> str:
    """`source` highlighted in a ``<pre>``, under `title` (the gradient's repr)."""
    colours = {tokenize.NUMBER: "#b35c00", tokenize.STRING: "#2e7d32", tokenize.COMMENT: "#7a7a7a"}
    starts, out, end = [0, 0], [], 0
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        start = starts[min(tok.start[0], len(starts) - 1)] + tok.start[1]
        out.append(html.escape(source[end:start]))
        colour = "#8b2fc9" if tok.type == tokenize.NAME and keyword.iskeyword(tok.string) else colours.get(tok.type)
        text = html.escape(tok.string)
        out.append(f'<span style="color:{colour}">{text}</span>' if colour else text)
        end = starts[min(tok.end[0], len(starts) - 1)] + tok.end[1]
    return (f'<div class="srcdiff-grad"><div style="color:#555">{html.escape(title)}</div><pre '
            f'style="background:#fafafa;padding:8px;border-radius:6px">{"".join(out)}</pre></div>')


__all__ = ["source_html"]
