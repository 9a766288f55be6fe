"use strict";
// The sample browser of `audioeval report` (report/html_page.py inlines this file). Every
// string reaches the page through textContent, never as HTML. A sample's details live in
// chunk scripts beside the page (report/sample_chunks.py), loaded with <script src> when the
// sample is opened: that works from file:// as over HTTP, where fetch() would not.
window.addEventListener("error", function (e) {
  document.getElementById("script-errors").textContent = "script error: " + e.message;
});
(function () {
  var data = JSON.parse(document.getElementById("samples-data").textContent);
  var pairs = data.pairs || [];
  if (!pairs.length) { document.body.setAttribute("data-ready", "1"); return; }
  var $ = function (id) { return document.getElementById(id); };
  var pairSel = $("pair"), search = $("search"), filter = $("filter"), groupSel = $("group"),
      minIn = $("score-min"), maxIn = $("score-max"), list = $("sample-list"), shown = $("shown"),
      note = $("link-note");
  var MAX_DRAWN = 300, chunks = {}, waiting = {};

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  window.aeChunk = function (pi, ci, rows) {
    var k = pi + "-" + ci, fs = waiting[k] || [];
    chunks[k] = rows; delete waiting[k];
    fs.forEach(function (f) { f(rows); });
  };
  function loadChunk(pi, ci, done) {
    var k = pi + "-" + ci;
    if (chunks[k]) { done(chunks[k]); return; }
    if (waiting[k]) { waiting[k].push(done); return; }
    waiting[k] = [done];
    var s = document.createElement("script");
    s.src = data.chunk_dir + "/p" + pi + "-c" + ci + ".js";
    s.onerror = function () { var fs = waiting[k] || []; delete waiting[k]; fs.forEach(function (f) { f(null); }); };
    document.head.appendChild(s);
  }
  // values come formatted in their metric's unit (report/units.py): `wer 10.00 %`, `IFR 50.00 %`,
  // under the metric's display name
  function scoreText(pair, s) {
    if (s.sc === null || s.sc === undefined) return "";
    return (pair.score_name || pair.score_key) + " " + (s.t !== undefined && s.t !== null ? s.t : s.sc);
  }

  // ---- details of one sample -------------------------------------------------------------
  function row(kv, key, node) {
    kv.appendChild(el("div", key, "k"));
    var v = el("div", null, "v");
    if (typeof node === "string") v.appendChild(el("div", node, "text")); else v.appendChild(node);
    kv.appendChild(v);
  }
  function diffNode(diff) {
    var d = el("div", null, "diff");
    diff.ops.forEach(function (op, i) {
      if (i) d.appendChild(document.createTextNode(" "));
      if (op[0] === "=") d.appendChild(el("span", op[1]));
      else if (op[0] === "s") { d.appendChild(el("span", op[1], "s-ref")); d.appendChild(el("span", op[2], "s-hyp")); }
      else if (op[0] === "d") d.appendChild(el("span", op[1], "d"));
      else d.appendChild(el("span", op[2], "i"));
    });
    d.appendChild(el("div", "reference vs hypothesis after the " + diff.scorer + " scorer's normaliser, by " + diff.units +
      ": struck = missing or replaced, green = inserted or replacing", "muted"));
    return d;
  }
  function optionsNode(options, right) {
    var ol = el("ol", null, "options");
    options.forEach(function (o, i) { ol.appendChild(el("li", o + (right === i + 1 ? "  ✓ right" : ""), right === i + 1 ? "right" : "")); });
    return ol;
  }
  function lettersNode(gold) {
    var ol = el("ol", null, "options letters");
    gold.choices.forEach(function (o, i) {
      var letter = String.fromCharCode(65 + i), marks = [];
      if (letter === gold.letter) marks.push("✓ right");
      if (letter === gold.pick) marks.push("◀ the model's pick (" + gold.pick_by + ")");
      var li = el("li", o + (marks.length ? "  " + marks.join(" · ") : ""),
        (letter === gold.letter ? "right" : "") + (letter === gold.pick ? " pick" : ""));
      li.setAttribute("data-letter", letter); ol.appendChild(li);
    });
    return ol;
  }
  function rubricNode(r) {
    var box = el("div", null, "rubric");
    box.appendChild(el("div", (r.category ? "[" + r.category + "] " : "") + r.question, "q"));
    box.appendChild(optionsNode(r.options, r.right));
    box.appendChild(el("div", "score " + (r.score === null || r.score === undefined ? "–" : r.score) +
      (r.failed ? " · failed: " + r.failed : "") + " · " + r.votes.length + " vote(s)", "muted"));
    if (r.votes.length) {
      var t = el("table", null, "votes"), head = el("tr");
      ["#", "options shown (their numbers above)", "answer", "verdict", "reason"].forEach(function (h) { head.appendChild(el("th", h)); });
      t.appendChild(head);
      r.votes.forEach(function (v, i) {
        var tr = el("tr");
        tr.appendChild(el("td", i + 1)); tr.appendChild(el("td", v[0])); tr.appendChild(el("td", v[1]));
        tr.appendChild(el("td", v[2], v[2]));
        var td = el("td");
        if (v[3]) { var det = el("details", null, "reason"); det.appendChild(el("summary", "reason")); det.appendChild(el("div", v[3], "text")); td.appendChild(det); }
        tr.appendChild(td); t.appendChild(tr);
      });
      box.appendChild(t);
    }
    return box;
  }
  function clipsNode(audio) {
    var box = el("div");
    audio.forEach(function (c) {
      var span = el("span", null, "clip"); span.appendChild(el("span", c[0], "muted"));
      if (c[1]) { var a = document.createElement("audio"); a.controls = true; a.preload = "metadata"; a.src = c[1]; span.appendChild(a); }
      else span.appendChild(el("span", "(clip missing)", "badge failed"));
      box.appendChild(span);
    });
    return box;
  }
  function detailsNode(pair, s) {
    var kv = el("div", null, "kv");
    s.inputs.forEach(function (x) { row(kv, x[0], x[1]); });
    if (s.prompt) row(kv, "prompt", s.prompt);
    if (s.gold) {
      var g = el("div"); g.appendChild(el("span", (s.gold.letter ? s.gold.letter + " · " : "") + s.gold.text, "gold"));
      g.appendChild(lettersNode(s.gold)); row(kv, "gold answer", g);
    } else if (s.reference !== null && s.reference !== undefined) {
      row(kv, "reference", typeof s.reference === "string" ? s.reference : JSON.stringify(s.reference, null, 1));
    }
    if (s.answer !== null && s.answer !== undefined) row(kv, "answer (raw)", s.answer);
    if (s.output_error) row(kv, "model error", s.output_error);
    if (s.processed !== null && s.processed !== undefined) row(kv, "answer (processed)", s.processed);
    if (s.outcome && s.outcome !== "ok") row(kv, "post-processing", s.outcome);
    if (s.diff) row(kv, "word diff", diffNode(s.diff));
    if (s.error) row(kv, "failure", s.error);
    if (s.scores.length) row(kv, "scores", s.scores.map(function (x) { return x[1] + " " + (x.length > 3 ? x[3] : x[2]); }).join(" · "));
    if (s.taxonomy.length) row(kv, "groups", s.taxonomy.map(function (x) { return x[0] + ": " + x[1]; }).join(" · "));
    if (s.audio.length) row(kv, "audio", clipsNode(s.audio));
    if (s.rubrics.length) {
      var rb = el("div"); s.rubrics.forEach(function (r) { rb.appendChild(rubricNode(r)); }); row(kv, "rubrics", rb);
    }
    s.judge_other.forEach(function (j) {
      var det = el("details", null, "reason"); det.appendChild(el("summary", "the judge's answers")); det.appendChild(el("pre", j[1]));
      row(kv, "judge: " + j[0], det);
    });
    return kv;
  }
  function fill(d, pi, index) {
    if (d.getAttribute("data-filled")) return;
    d.setAttribute("data-filled", "loading");
    var pair = pairs[pi], ci = Math.floor(index / pair.chunk);
    loadChunk(pi, ci, function (rows) {
      var s = rows && rows[index - ci * pair.chunk];
      if (!s) { d.appendChild(el("div", "the details of this sample could not be loaded (" + data.chunk_dir + "/ is missing beside the page)", "badge failed")); return; }
      d.appendChild(detailsNode(pair, s));
      d.setAttribute("data-filled", "1");
    });
  }

  // ---- the list --------------------------------------------------------------------------
  pairs.forEach(function (p, i) { var o = el("option", p.name); o.value = String(i); pairSel.appendChild(o); });
  function fillGroups(pair) {
    var seen = {}; groupSel.textContent = ""; var all = el("option", "any group"); all.value = ""; groupSel.appendChild(all);
    pair.samples.forEach(function (s) { s.g.forEach(function (g) { seen[g] = 1; }); });
    Object.keys(seen).sort().forEach(function (g) { var o = el("option", g); o.value = g; groupSel.appendChild(o); });
  }
  function passes(pair, s, q, f, grp, lo, hi) {
    if (f !== "all" && s.st !== f && !(f === "not-ok" && s.st !== "ok")) return false;
    if (grp && s.g.indexOf(grp) < 0) return false;
    if (q && s.q.indexOf(q) < 0) return false;
    if (lo !== null || hi !== null) {
      if (s.sc === null || s.sc === undefined) return false;
      var v = s.sc * (pair.scale || 1);  // the filter is in the shown unit (% for a fraction)
      if ((lo !== null && v < lo) || (hi !== null && v > hi)) return false;
    }
    return true;
  }
  function num(input) { return input.value === "" || isNaN(Number(input.value)) ? null : Number(input.value); }
  function draw(openId) {
    var pi = Number(pairSel.value) || 0, pair = pairs[pi], q = search.value.toLowerCase(), f = filter.value,
        grp = groupSel.value, lo = num(minIn), hi = num(maxIn), n = 0;
    list.textContent = "";
    minIn.placeholder = maxIn.placeholder = pair.unit === "fraction" || pair.unit === "percent" ? "%" : "";
    pair.samples.forEach(function (s, index) {
      if (!passes(pair, s, q, f, grp, lo, hi) && s.id !== openId) return;
      n += 1;
      if (n > MAX_DRAWN && s.id !== openId) return;
      var d = el("details", null, "sample"), sum = el("summary");
      d.setAttribute("data-id", s.id); d.id = "sample-" + pi + "-" + index;
      sum.appendChild(el("span", s.id, "id"));
      sum.appendChild(el("span", s.st, "badge " + s.st));
      sum.appendChild(el("span", scoreText(pair, s) + "  ", "muted"));
      sum.appendChild(el("span", s.g.join(" · "), "groups"));
      d.appendChild(sum);
      d.addEventListener("toggle", function () {
        if (!d.open) return;
        fill(d, pi, index);
        history.replaceState(null, "", "#pair=" + encodeURIComponent(pair.key).replace(/%2F/g, "/") + "&sample=" + encodeURIComponent(s.id));
      });
      list.appendChild(d);
      if (s.id === openId) { d.open = true; fill(d, pi, index); setTimeout(function () { d.scrollIntoView(); }, 0); }
    });
    shown.textContent = n + " of " + pair.samples.length + " shown" + (n > MAX_DRAWN ? " (the first " + MAX_DRAWN + " drawn; narrow the search)" : "") +
      (pair.truncated ? "; the page holds the first " + pair.samples.length + " of " + pair.total : "");
  }

  // ---- deep links: #pair=KEY&sample=ID (also #sample=ID: the first pair) -----------------------
  function parseLink(hash) {
    if (!hash || hash === "#") return { pair: 0, sample: null, ok: true };
    if (!/^#(pair|sample)=/.test(hash)) return { pair: 0, sample: null, ok: /^#[A-Za-z][\w-]*$/.test(hash) };
    var parts = {};
    try {
      hash.slice(1).split("&").forEach(function (kv) { var i = kv.indexOf("="); if (i < 0) throw new Error("no ="); parts[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); });
    } catch (e) { return { pair: 0, sample: null, ok: false }; }
    var pi = 0;
    if ("pair" in parts) {
      pi = -1;
      pairs.forEach(function (p, i) { if (pi < 0 && (p.key === parts.pair || p.name === parts.pair || String(i) === parts.pair)) pi = i; });
      if (pi < 0) return { pair: 0, sample: null, ok: false };
    }
    var sid = "sample" in parts ? parts.sample : null;
    if (sid !== null && !pairs[pi].samples.some(function (s) { return s.id === sid; })) return { pair: pi, sample: null, ok: false };
    return { pair: pi, sample: sid, ok: true };
  }
  function follow() {
    var link = parseLink(location.hash);
    note.textContent = link.ok ? "" : "The link " + location.hash.slice(0, 200) + " was not understood (expected #pair=BENCHMARK/MODEL&sample=ID); showing " + pairs[link.pair].name + ".";
    pairSel.value = String(link.pair); fillGroups(pairs[link.pair]);
    draw(link.sample);
    if (link.sample || !link.ok) $("samples").scrollIntoView();
  }
  pairSel.addEventListener("change", function () { fillGroups(pairs[Number(pairSel.value) || 0]); draw(null); });
  [search, minIn, maxIn].forEach(function (x) { x.addEventListener("input", function () { draw(null); }); });
  [filter, groupSel].forEach(function (x) { x.addEventListener("change", function () { draw(null); }); });
  window.addEventListener("hashchange", function () { if (/^#(pair|sample)=/.test(location.hash) || !/^#[A-Za-z][\w-]*$/.test(location.hash)) follow(); });
  follow();
  document.body.setAttribute("data-ready", "1");
})();
