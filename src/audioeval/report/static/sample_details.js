"use strict";
// One sample's details, drawn from its `report/sample_rows.details` data by the report's sample
// browser (browser.js) and by the viewer (viewer.js): inputs, reference or gold answer, raw and
// processed answer, word diff, scores, clips and every judge vote. Every string reaches the page
// through textContent, never as HTML.
window.aeSample = (function () {
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
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
  return { el: el, row: row, diffNode: diffNode, clipsNode: clipsNode, detailsNode: detailsNode };
})();
