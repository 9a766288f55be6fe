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

  var el = window.aeSample.el, detailsNode = window.aeSample.detailsNode;
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
