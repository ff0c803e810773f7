// The walk-through player: every render recomputes the page from the step index, so Back,
// Start and End are as exact as Next.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("walk-data").textContent);
  var steps = data.steps;
  var current = -1;
  var timer = null;
  if (data.regions) { document.body.classList.add("has-regions"); }
  var firstBackward = steps.findIndex(function (s) { return s.phase === "backward"; });

  function $(id) { return document.getElementById(id); }
  function nodeEl(name) { return document.getElementById("node-" + name); }
  function text(el, value) { if (el) { el.textContent = value; } }
  function all(selector) { return Array.prototype.slice.call(document.querySelectorAll(selector)); }

  function clear() {
    all(".node").forEach(function (g) {
      g.classList.remove("seen-fwd", "seen-bwd", "current", "fwd", "bwd");
      text(g.querySelector(".t-val"), "");
      text(g.querySelector(".t-adj"), "");
    });
    all(".edge").forEach(function (e) { e.classList.remove("on-fwd", "on-bwd"); });
    all(".code-line").forEach(function (l) { l.classList.remove("hl-fwd", "hl-bwd"); });
    all(".adj-cell").forEach(function (c) { c.textContent = "\u2013"; });
    all(".region").forEach(function (r) { r.classList.remove("taken"); });
  }

  function showStack(step) {
    var list = $("stack");
    if (!list) { return; }
    list.innerHTML = "";
    var items = step ? step.stack || [] : [];
    items.forEach(function (entry, i) {
      var li = document.createElement("li");
      li.textContent = entry;
      if (i === items.length - 1) { li.className = "top"; }
      list.appendChild(li);
    });
    text($("stack-size"), items.length ? items.length + " saved" : "empty");
    document.body.setAttribute("data-stack", String(items.length));
  }

  function edge(from, to) {
    return document.querySelector('.edge[data-from="' + from + '"][data-to="' + to + '"]');
  }

  function render() {
    clear();
    for (var i = 0; i <= current; i++) {
      var s = steps[i];
      var g = nodeEl(s.node);
      if (!g) { continue; }
      if (s.frame) { g.classList.add(s.phase === "forward" ? "seen-fwd" : "seen-bwd"); continue; }
      if (s.region && s.phase === "forward") {
        all(".region").forEach(function (r) {
          if (r.id.indexOf("region-" + s.region.replace("branch", "")) === 0) { r.classList.remove("taken"); }
        });
      }
      if (s.phase === "forward") {
        g.classList.add("seen-fwd");
        text(g.querySelector(".t-val"), "= " + s.value);
      } else {
        g.classList.add("seen-bwd");
        text(g.querySelector(".t-adj"), s.node + "_bar = " + s.adjoint);
        var cell = document.querySelector('.adj-cell[data-adjoint-for="' + s.node + '"]');
        if (cell) { cell.textContent = s.adjoint; }
      }
    }
    var step = steps[current];
    var phase = $("phase");
    phase.className = "phase-tag";
    if (!step) {
      phase.textContent = "ready";
      text($("step-head"), "Press Next (or \u2192) to run the forward pass.");
      text($("step-what"), "Each node lights up in topological order with its value and shape; then the " +
        "backward pass walks the graph in reverse, adding up the adjoint contributions.");
      $("step-terms").innerHTML = "";
    } else {
      var cls = step.phase === "forward" ? "fwd" : "bwd";
      phase.classList.add(step.phase);
      phase.textContent = step.phase + " pass" + (step.iter ? " \u00b7 " + step.iter : "") +
        (step.frame ? " \u00b7 inside " + step.frame : "");
      if (step.region) {
        var side = step.what.indexOf("then side") >= 0 ? "then" : "else";
        var taken = $("region-" + side + step.region.replace("branch", ""));
        if (taken) { taken.classList.add("taken"); }
      }
      var g2 = nodeEl(step.node);
      if (g2) { g2.classList.add("current", cls); }
      (step.edges || []).forEach(function (pair) {
        var e = edge(pair[0], pair[1]);
        if (e) { e.classList.add("on-" + cls); }
      });
      var line = document.getElementById("src-L" + step.line);
      if (line) { line.classList.add("hl-" + cls); }
      (step.genLines || []).forEach(function (n) {
        var l = document.getElementById("gen-L" + n);
        if (l) { l.classList.add("hl-" + cls); }
      });
      text($("step-head"), step.head);
      text($("step-what"), step.what);
      var list = $("step-terms");
      list.innerHTML = "";
      (step.terms || []).forEach(function (t) {
        var li = document.createElement("li");
        var from = document.createElement("span");
        from.textContent = t.from ? "from " + t.from + ": " : "seed: ";
        var stmt = document.createElement("span");
        stmt.textContent = t.statement;
        var val = document.createElement("span");
        val.className = "val";
        val.textContent = "  \u2192 " + t.value;
        var gl = document.createElement("span");
        gl.className = "gl";
        gl.textContent = t.genLine ? "   (generated line " + t.genLine + ")" : "";
        li.appendChild(from); li.appendChild(stmt); li.appendChild(val); li.appendChild(gl);
        list.appendChild(li);
      });
    }
    showStack(step);
    text($("counter"), "step " + (current + 1) + " / " + steps.length);
    var bar = $("progress-bar");
    bar.style.width = (100 * (current + 1) / steps.length) + "%";
    bar.className = step && step.phase === "backward" ? "bwd" : "";
    $("prev").disabled = current < 0;
    $("reset").disabled = current < 0;
    $("next").disabled = current >= steps.length - 1;
    $("end").disabled = current >= steps.length - 1;
    document.body.setAttribute("data-step", String(current));
    document.body.setAttribute("data-phase", step ? step.phase : "ready");
  }

  function go(index) {
    current = Math.max(-1, Math.min(steps.length - 1, index));
    render();
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    text($("play"), "Play");
  }

  function play() {
    if (timer !== null) { stop(); return; }
    if (current >= steps.length - 1) { go(-1); }
    text($("play"), "Pause");
    timer = setInterval(function () {
      if (current >= steps.length - 1) { stop(); return; }
      go(current + 1);
    }, 900);
  }

  $("next").addEventListener("click", function () { stop(); go(current + 1); });
  $("prev").addEventListener("click", function () { stop(); go(current - 1); });
  $("reset").addEventListener("click", function () { stop(); go(-1); });
  $("end").addEventListener("click", function () { stop(); go(steps.length - 1); });
  $("play").addEventListener("click", play);
  $("to-forward").addEventListener("click", function () { stop(); go(0); });
  $("to-backward").addEventListener("click", function () {
    stop();
    go(firstBackward < 0 ? steps.length - 1 : firstBackward);
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowRight") { stop(); go(current + 1); }
    else if (ev.key === "ArrowLeft") { stop(); go(current - 1); }
    else if (ev.key === "Home") { stop(); go(-1); }
    else if (ev.key === "End") { stop(); go(steps.length - 1); }
    else if (ev.key === " ") { ev.preventDefault(); play(); }
    else { return; }
  });
  all(".node").forEach(function (g) {
    g.addEventListener("click", function () {
      var name = g.getAttribute("data-node");
      var forward = current >= firstBackward && firstBackward >= 0;
      for (var i = 0; i < steps.length; i++) {
        if (steps[i].node === name && (steps[i].phase === "backward") === forward) { stop(); go(i); return; }
      }
    });
  });
  render();
}());
