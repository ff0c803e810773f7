"""The steps of the walk-through for a function with loops, branches or calls.

The steps follow what the gradient program did, in order (`srcdiff.tools.run`): the
forward pass node by node and iteration by iteration, each branch with the side that ran,
each push onto a loop's stack; then the backward pass as it ran: the loop's iterations in
reverse, each pop from the stack, each term added to an adjoint.  A call to another user
function is stepped into: its own nodes' steps are marked with the frame (``in helper``).
Every step carries the stack as it is at that moment, so the page can show it fill and empty.
"""

from __future__ import annotations

from .tables import summarize


def region_steps(trace, lines: dict[int, int] | None = None) -> list[dict]:
    """The page's steps for `trace`; `lines` gives the generated line of each of its events
    (by index, see `srcdiff.tools.generated_lines.locate`)."""
    walker = _Steps(trace, lines or {})
    walker.events(trace.events, trace.graph, frame="")
    return walker.forward + walker.backward


class _Steps:
    def __init__(self, trace, lines: dict[int, int]):
        self.trace = trace
        self.lines = lines
        self.stack: list[str] = []
        self.forward: list[dict] = []
        self.backward: list[dict] = []
        self.totals: dict = {}

    def label(self, graph, name: str, iteration: tuple) -> str:
        loops = graph.enclosing(name, "loop") if name in {n.name for n in graph.nodes} else []
        parts = [f"iteration {i}" for i in iteration[:len(loops)]]
        return ", ".join(parts)

    def add(self, step: dict, phase: str, gen: int = 0) -> None:
        step["phase"] = phase
        step["genLines"] = [gen] if gen else []
        step["stack"] = list(self.stack)
        step.setdefault("edges", [])
        step.setdefault("terms", [])
        (self.forward if phase == "forward" else self.backward).append(step)

    def events(self, events, graph, frame: str, start: int = 0, end: int | None = None, call_line: int = 0):
        for index, event in enumerate(events[start:end], start):
            kind, name, iteration, payload = event
            # a callee's own lines are not in the listing: its steps run within the line calling it
            gen = self.lines.get(index, 0) if not frame else call_line
            where = self.label(graph, name, iteration)
            prefix = f"in {graph.name}: " if frame else ""
            node = name if not frame else frame  # the call's box stands for its frame's nodes
            line = graph[name].line if name in {n.name for n in graph.nodes} else 0
            if kind == "value":
                g = graph[name]
                what = f"{prefix}{name} = {summarize(payload)}" + (f"  ({where})" if where else "")
                self.add({"node": node, "line": line if not frame else 0, "value": summarize(payload),
                          "head": f"{prefix}{name} = {g.source if g.kind == 'operation' else g.kind}",
                          "what": what, "iter": where, "frame": frame,
                          "edges": [] if frame else [[i, name] for i in dict.fromkeys(g.inputs)]}, "forward", gen)
            elif kind == "branch":
                region = graph.region(name)
                self.add({"node": node, "line": region.line if not frame else 0, "region": name,
                          "head": f"{prefix}{region.label}",
                          "what": f"the condition is {'true' if payload == 'then' else 'false'}: "
                                  f"the {payload} side runs" + (f"  ({where})" if where else ""),
                          "iter": where, "frame": frame}, "forward", gen)
            elif kind == "push":
                self.stack.append(f"{', '.join(payload)}  ({where or 'iteration ' + str(iteration[-1])})")
                self.add({"node": None, "line": 0, "head": f"{prefix}push {', '.join(payload)}",
                          "what": "the body's values are saved on the stack for the backward pass",
                          "iter": where or f"iteration {iteration[-1]}", "frame": frame}, "forward", gen)
            elif kind == "pop":
                entry = self.stack.pop() if self.stack else ""
                self.add({"node": None, "line": 0, "head": f"{prefix}pop {', '.join(payload)}",
                          "what": f"the backward pass takes back what iteration {iteration[-1]} saved: "
                                  f"{entry}", "iter": f"iteration {iteration[-1]}", "frame": frame}, "backward", gen)
            elif kind == "adjoint":
                key = (frame, name, iteration)
                self.totals[key] = self.totals.get(key, 0) + 1
                term, total = payload
                self.add({"node": node, "line": line if not frame else 0, "adjoint": summarize(total),
                          "head": f"{prefix}{name}_bar = {summarize(total)}", "iter": where, "frame": frame,
                          "what": (f"term {self.totals[key]} from {term.origin}: {summarize(term.value)}"
                                   if term.origin else f"{summarize(term.value)}") + (f"  ({where})" if where else ""),
                          "terms": [{"from": term.origin, "value": summarize(term.value),
                                     "statement": term.statement, "genLine": gen}],
                          "edges": [] if frame or not term.origin else [[name, term.origin]]}, "backward", gen)
            elif kind == "frame":
                run, first, last = payload
                self.events(run.events, run.graph, frame=name, start=first, end=last, call_line=gen)
