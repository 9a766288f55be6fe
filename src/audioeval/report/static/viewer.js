"use strict";
// The pages of `audioeval view` (report/viewer_server.py inlines this file after
// sample_details.js). Data comes as JSON (the page's #view-data, then the /api/ addresses);
// every string reaches the page through textContent, never as HTML.
window.addEventListener("error", function (e) {
  document.getElementById("script-errors").textContent = "script error: " + e.message;
});
(function () {
  var S = window.aeSample, el = S.el;
  var data = JSON.parse(document.getElementById("view-data").textContent);
  var view = document.getElementById("view");
  var POLL_MS = Number(new URLSearchParams(location.search).get("poll") || 1000);

  function table(headers, rows, cls) {
    var t = el("table", null, cls), head = el("tr");
    headers.forEach(function (h) { head.appendChild(el("th", h)); });
    t.appendChild(head);
    rows.forEach(function (r) {
      var tr = el("tr");
      r.forEach(function (c) { tr.appendChild(typeof c === "object" && c !== null ? wrap(c) : el("td", c === null || c === undefined ? "–" : c)); });
      t.appendChild(tr);
    });
    return t;
  }
  function wrap(node) { var td = el("td"); td.appendChild(node); return td; }
  function link(text, href) { var a = el("a", text); a.href = href; return a; }
  function section(title, id) { var s = el("section"); s.id = id; s.appendChild(el("h2", title)); view.appendChild(s); return s; }
  function compareHref(keys) { return "/compare?" + keys.map(function (k) { return "p=" + encodeURIComponent(k); }).join("&"); }

  function pairRows(pairs) {
    return pairs.map(function (p) {
      return [p.benchmark, p.model, p.done + (p.total === null ? "" : " / " + p.total), p.scored, p.failed,
        p.headline || "–", p.value, p.ci, p.usage || "–", p.reason || (p.problems ? p.problems + " line(s) not used" : "")];
    });
  }
  var PAIR_HEADERS = ["benchmark", "model", "samples done", "scored", "failed", "headline", "value", "95 % CI", "usage", "note"];

  function progress(r) {
    return r.finished ? "finished" : r.stopped ? "stopped before its end: no process is writing it (its command, run again, resumes it)" : "being written";
  }

  // ---- the runs --------------------------------------------------------------------------
  function drawRuns() {
    var checked = {};  // the boxes a person ticked stay ticked when the list is drawn again
    view.querySelectorAll("form.pick input[type=checkbox]").forEach(function (b) { checked[b.value] = b.checked; });
    var redrawn = view.querySelector("form.pick") !== null;
    view.textContent = "";
    var byBench = {};
    data.runs.forEach(function (r) {
      var s = section(r.name, "run-" + r.index);
      var h = s.querySelector("h2"); h.textContent = "";
      h.appendChild(link(r.name, "/run/" + r.index));
      h.appendChild(el("span", progress(r), "state " + (r.finished ? "done" : r.stopped ? "stopped" : "live")));
      var t = table(PAIR_HEADERS, pairRows(r.pairs)); t.className = "pairs"; s.appendChild(t);
      r.pairs.forEach(function (p) { (byBench[p.benchmark] = byBench[p.benchmark] || []).push([p.key, data.runs.length > 1 ? r.name + "/" + p.model : p.model]); });
    });
    var cmp = section("Compare", "compare");
    cmp.appendChild(el("p", "Pick two or more pairs of one benchmark (the first is A): each sample's inputs, outputs and scores side by side, with the paired-bootstrap difference.", "muted"));
    Object.keys(byBench).sort().forEach(function (b) {
      var members = byBench[b]; if (members.length < 2) return;
      var form = el("form", null, "pick"); form.action = "/compare"; form.method = "get";
      form.appendChild(el("strong", b + ": "));
      members.forEach(function (m, i) {
        var lab = el("label"), box = document.createElement("input");
        box.type = "checkbox"; box.name = "p"; box.value = m[0]; box.checked = redrawn && m[0] in checked ? checked[m[0]] : i < 2;
        lab.appendChild(box); lab.appendChild(document.createTextNode(" " + m[1])); form.appendChild(lab);
      });
      var go = el("button", "compare"); go.type = "submit"; form.appendChild(go);
      cmp.appendChild(form);
    });
  }

  // ---- one run, followed -----------------------------------------------------------------
  function drawRun(state) {
    view.textContent = "";
    var s = section("Pairs", "pairs");
    s.querySelector("h2").appendChild(el("span", state.finished || state.stopped ? progress(state) : "being written: updates as records are appended",
      "state " + (state.finished ? "done" : state.stopped ? "stopped" : "live")));
    var t = table(PAIR_HEADERS, pairRows(state.pairs)); t.id = "pair-table"; s.appendChild(t);
    s.appendChild(el("p", "Figures as the run computes them from the records written so far (" +
      "CIs from fewer resamples than the run's own summary).", "muted"));
    var benches = {};
    state.pairs.forEach(function (p) { (benches[p.benchmark] = benches[p.benchmark] || []).push(p.key); });
    Object.keys(benches).forEach(function (b) {
      if (benches[b].length > 1) { var p = el("p"); p.appendChild(link("compare the models on " + b, compareHref(benches[b].slice(0, 2)))); s.appendChild(p); }
    });
    var f = section("Failures (" + state.failures.length + ")", "failures");
    if (state.failures.length) { var ft = table(["pair", "id", "kind", "error"], state.failures); ft.id = "failure-table"; f.appendChild(ft); }
    else f.appendChild(el("p", "none so far", "muted"));
    var d = section("Judge disagreements (" + state.disagreements.length + ")", "disagreements");
    d.appendChild(el("p", "Rubrics whose votes did not agree (verdicts in the order voted).", "muted"));
    if (state.disagreements.length) d.appendChild(table(["pair", "id", "rubric", "verdicts"], state.disagreements));
    if (state.reliability.length) {
      var r = section("Judge reliability", "reliability");
      state.reliability.forEach(function (b) { var rt = table(state.reliability_headers, b.rows); rt.insertBefore(el("caption", b.caption), rt.firstChild); r.appendChild(rt); });
    }
    if (state.problems.length) {
      var u = section("Lines not used (" + state.problems.length + ")", "problems");
      u.appendChild(table(["pair", "why"], state.problems));
    }
  }
  // ---- every page follows what it shows while a run is being written ----------------------
  // `address` is polled every POLL_MS while `live(latest)` holds; `changed(latest)` is called
  // when what it returns differs from the last. Polls are counted in body[data-polls].
  function follow(address, first, live, changed, what) {
    var polls = 0, last = JSON.stringify(first);
    function tick() {
      fetch(address).then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
        .then(function (latest) {
          var text = JSON.stringify(latest);
          if (text !== last) { last = text; changed(latest); }
          polls += 1; document.body.setAttribute("data-polls", String(polls));
          if (live(latest)) setTimeout(tick, POLL_MS);
        })
        .catch(function (e) {
          document.getElementById("script-errors").textContent = what + " could not be read: " + e.message;
          setTimeout(tick, POLL_MS);
        });
    }
    if (live(first)) setTimeout(tick, POLL_MS);
  }

  function followRun() {
    drawRun(data.state);
    follow("/api/run/" + data.index, data.state, function (s) { return !s.finished && !s.stopped; }, drawRun, "the run");
  }

  function followRuns() {
    drawRuns();
    follow("/api/runs", data, function (d) { return d.runs.some(function (r) { return !r.finished && !r.stopped; }); },
      function (latest) { data = latest; drawRuns(); }, "the runs");
  }

  // ---- compare ---------------------------------------------------------------------------
  function drawCompare() {
    var n = data.systems.length, A = data.systems[0].label, B = data.systems[1].label;
    var top = section("Difference", "summary");
    function drawTop() {  // drawn again when a followed run has appended records
      top.textContent = "";
      top.appendChild(el("h2", "Difference"));
      if (data.live) top.querySelector("h2").appendChild(el("span", "being written: updates as records are appended", "state live"));
      top.appendChild(table(["", "system", "headline", "value", "samples"], data.systems.map(function (s, i) {
        return [String.fromCharCode(65 + i), s.label, s.headline || "–", s.value, String(s.done)];
      })));
      data.differences.forEach(function (d, i) {
        var label = (d.headline || "headline") + ": " + A + " − " + data.systems[i + 1].label + " = ";
        var p = el("p", label + (d.text || "– (" + (d.reason || "not computed") + ")"));
        if (i === 0) p.id = "difference";
        top.appendChild(p);
      });
      top.appendChild(el("p", "Paired bootstrap over the samples both scored (one draw for both); p two-sided. Per-sample values below are each pair's headline value as stored.", "muted"));
    }
    drawTop();
    var s = section("Samples", "samples");
    var controls = el("div", null, "controls");
    var filter = el("select"); filter.id = "filter";
    [["all", "all"], ["a-right-b-wrong", "A right, B wrong"], ["b-right-a-wrong", "B right, A wrong"], ["both-wrong", "both wrong"],
     ["differ", "scores differ"], ["largest", "largest differences first"]].forEach(function (o) { var op = el("option", o[1]); op.value = o[0]; filter.appendChild(op); });
    var search = el("input"); search.id = "search"; search.type = "search"; search.placeholder = "id, answer";
    var lf = el("label", "show "); lf.appendChild(filter); controls.appendChild(lf);
    var ls = el("label", "search "); ls.appendChild(search); controls.appendChild(ls);
    var shown = el("span", null, "muted"); shown.id = "shown"; controls.appendChild(shown);
    s.appendChild(controls);
    s.appendChild(el("p", "A = " + A + ", B = " + B + ". Open a sample for every system's output, scores, clips and the word diff against A; its address (#sample=…) links to it.", "muted"));
    var note = el("div"); note.id = "link-note"; s.appendChild(note);
    var list = el("div"); list.id = "sample-list"; s.appendChild(list);
    var MAX_DRAWN = 300;
    function right(c) { return c && c.st === "ok"; }
    function wrong(c) { return c && (c.st === "wrong" || c.st === "failed"); }
    function passes(r, f, q) {
      var a = r.cells[0], b = r.cells[1];
      if (f === "a-right-b-wrong" && !(right(a) && wrong(b))) return false;
      if (f === "b-right-a-wrong" && !(right(b) && wrong(a))) return false;
      if (f === "both-wrong" && !(wrong(a) && wrong(b))) return false;
      if (f === "differ" && !(r.d !== null && r.d !== 0)) return false;
      if (q) { var text = (r.id + " " + r.cells.map(function (c) { return c ? c.a : ""; }).join(" ")).toLowerCase(); if (text.indexOf(q) < 0) return false; }
      return true;
    }
    function fill(d, r) {
      if (d.getAttribute("data-filled")) return;
      d.setAttribute("data-filled", "loading");
      fetch("/api/sample?" + data.keys.map(function (k) { return "p=" + encodeURIComponent(k); }).join("&") + "&id=" + encodeURIComponent(r.id))
        .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.json(); })
        .then(function (one) {
          var cols = el("div", null, "cols"); cols.style.setProperty("--n", String(n));
          one.systems.forEach(function (sd, i) {
            var col = el("div"); col.appendChild(el("h3", String.fromCharCode(65 + i) + " · " + data.systems[i].label));
            if (!sd) col.appendChild(el("p", "no record of this sample", "badge failed"));
            else col.appendChild(S.detailsNode(null, sd));
            if (i > 0 && one.diffs[i - 1]) {
              var kv = el("div", null, "kv");
              var dn = S.diffNode({ ops: one.diffs[i - 1], scorer: "", units: "words" });
              dn.lastChild.textContent = "A's answer vs this one, word by word: struck = A's words missing or replaced, green = inserted or replacing";
              S.row(kv, "diff with A", dn); col.appendChild(kv);
            }
            cols.appendChild(col);
          });
          d.appendChild(cols); d.setAttribute("data-filled", "1");
        })
        .catch(function (e) { d.appendChild(el("div", "the sample could not be loaded: " + e.message, "badge failed")); d.setAttribute("data-filled", "1"); });
    }
    function draw(openId) {
      var f = filter.value, q = search.value.trim().toLowerCase();
      var rows = data.rows.filter(function (r) { return r.id === openId || passes(r, f, q); });
      if (f === "largest") rows = rows.filter(function (r) { return r.d !== null; }).sort(function (x, y) { return Math.abs(y.d) - Math.abs(x.d); });
      list.textContent = "";
      var drawn = rows.slice(0, MAX_DRAWN);
      if (openId && drawn.every(function (r) { return r.id !== openId; })) drawn = drawn.concat(rows.filter(function (r) { return r.id === openId; }));
      drawn.forEach(function (r) {
        var d = el("details", null, "sample cmp"); d.setAttribute("data-id", r.id); d.style.setProperty("--n", String(n));
        var sum = el("summary"); sum.appendChild(el("span", r.id, "id"));
        r.cells.forEach(function (c) {
          var cell = el("span");
          if (!c) cell.appendChild(el("span", "no record", "badge failed"));
          else { cell.appendChild(el("span", c.st, "badge " + c.st)); cell.appendChild(el("span", c.t === null ? "" : c.t)); cell.appendChild(el("div", c.a, "ans")); }
          sum.appendChild(cell);
        });
        sum.appendChild(el("span", r.d === null ? "–" : "A − B " + r.dt, "delta"));
        d.appendChild(sum);
        d.addEventListener("toggle", function () {
          if (!d.open) return;
          history.replaceState(null, "", "#sample=" + encodeURIComponent(r.id));
          fill(d, r);
        });
        list.appendChild(d);
        if (r.id === openId) { d.open = true; fill(d, r); setTimeout(function () { d.scrollIntoView(); }, 0); }
      });
      shown.textContent = rows.length + " of " + data.rows.length + " samples" + (rows.length > MAX_DRAWN ? " (the first " + MAX_DRAWN + " drawn: filter or search to narrow)" : "");
    }
    function openLinked() {
      var m = /^#sample=(.*)$/.exec(location.hash), id = null;
      note.textContent = "";
      if (m) {
        try { id = decodeURIComponent(m[1]); } catch (e) { id = null; }
        if (id === null || !data.rows.some(function (r) { return r.id === id; })) { note.textContent = "the link " + location.hash + " was not understood: no such sample"; id = null; }
        else filter.value = "all";
      }
      draw(id);
    }
    filter.addEventListener("change", function () { draw(null); });
    search.addEventListener("input", function () { draw(null); });
    window.addEventListener("hashchange", openLinked);
    openLinked();
    var pending = el("button", null, "pending"); pending.id = "new-samples"; pending.hidden = true;
    pending.addEventListener("click", function () { pending.hidden = true; drawTop(); draw(null); });
    controls.appendChild(pending);
    follow(compareAddress(), data, function (d) { return d.live; }, function (latest) {
      var had = data.rows.length;
      latest.keys = data.keys; data = latest;
      drawTop();
      // an open sample stays open: new samples are drawn when the person asks
      if (list.querySelector("details[open]")) {
        pending.textContent = "show " + Math.max(data.rows.length - had, 0) + " new samples";
        pending.hidden = false;
      } else draw(null);
    }, "the comparison");
  }

  function compareAddress() {
    return "/api/compare?" + data.keys.map(function (k) { return "p=" + encodeURIComponent(k); }).join("&");
  }

  if (document.body.getAttribute("data-page") === "runs") followRuns();
  else if (document.body.getAttribute("data-page") === "run") followRun();
  else if (document.body.getAttribute("data-page") === "compare") drawCompare();
  document.body.setAttribute("data-ready", "1");
})();
