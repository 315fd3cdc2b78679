// skillstate inspector: live timeline. Polls the run's versions endpoint and adds the
// new rows at the top of the timeline. Every value is set with textContent (never
// innerHTML), so whatever an agent wrote stays text.
(function () {
  // the prompt page's Copy button: the exact text, fetched from prompt.txt (the page
  // shows control characters escaped; HTML would turn a CR into a newline)
  "use strict";
  var button = document.getElementById("copy-prompt");
  if (!button || !navigator.clipboard) { return; }
  var state = document.getElementById("copy-state");
  button.hidden = false;
  button.addEventListener("click", function () {
    fetch(button.dataset.src, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error(String(r.status)); } return r.text(); })
      .then(function (text) { return navigator.clipboard.writeText(text); })
      .then(function () { state.textContent = "copied"; })
      .catch(function (e) { state.textContent = "not copied: " + e; });
  });
})();
(function () {
  "use strict";
  var table = document.getElementById("timeline");
  if (!table || table.dataset.live !== "1") { return; }
  var body = table.tBodies[0];
  var api = table.dataset.api;
  var base = table.dataset.base;
  var head = parseInt(table.dataset.head, 10) || 0;
  var every = parseInt(table.dataset.poll, 10) || 1500;
  var delay = every;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }

  function cell(label) {
    var td = el("td");
    td.setAttribute("data-label", label);
    return td;
  }

  function link(href, text) {
    var a = el("a", text);
    a.setAttribute("href", href);
    return a;
  }

  function rowOf(r) {
    var tr = el("tr", null, "version new" + (r.rollback ? " rollback" : ""));
    tr.setAttribute("data-version", String(r.version));
    var v = cell("Version"); v.className = "num";
    v.appendChild(link(base + "/at/" + r.version, r.version)); tr.appendChild(v);
    var t = cell("Time"); t.appendChild(el("time", r.ts)); tr.appendChild(t);
    var l = cell("Label"); l.appendChild(document.createTextNode(r.label));
    if (r.fork) {
      var f = link(base.replace(/\/runs\/[^\/]*$/, "/runs/") + encodeURIComponent(r.fork.run) +
        (r.fork.version ? "/at/" + r.fork.version : ""), r.note);
      f.className = "note fork"; l.appendChild(document.createTextNode(" ")); l.appendChild(f);
    } else if (r.note) { l.appendChild(document.createTextNode(" ")); l.appendChild(el("span", r.note, "note")); }
    tr.appendChild(l);
    var k = cell("Keys");
    (r.keys || []).forEach(function (key) {
      k.appendChild(el("code", key, "key")); k.appendChild(document.createTextNode(" "));
    });
    tr.appendChild(k);
    var a = cell("Action");
    if (r.rejection) {
      var rj = r.rejection;
      a.appendChild(el("span", "rejected (" + rj.kind + ")", "rejected"));
      if (rj.action) { a.appendChild(document.createTextNode(" attempted ")); a.appendChild(el("code", rj.action, "attempted")); }
      if (rj.reasons && rj.reasons.length) {
        var ul = el("ul", null, "reasons");
        rj.reasons.forEach(function (why) { ul.appendChild(el("li", why)); });
        a.appendChild(ul);
      }
    } else if (r.action) {
      a.appendChild(el("code", r.action));
      if (r.action_status) { a.appendChild(document.createTextNode(" ")); a.appendChild(el("span", r.action_status, "note")); }
    }
    tr.appendChild(a);
    var s = cell("Status"); s.appendChild(el("span", r.status, "status status-" + String(r.status).replace(/[^a-z]/g, ""))); tr.appendChild(s);
    var o = cell("Observation");
    if (r.observation !== null && r.observation !== undefined) {
      var d = el("details"); d.appendChild(el("summary", "text")); d.appendChild(el("pre", r.observation, "obs")); o.appendChild(d);
    } else if (r.observation_sha256) {
      o.appendChild(el("code", r.observation_sha256.slice(0, 12) + "…", "digest"));
    }
    tr.appendChild(o);
    var x = cell("");
    if (r.version > 1) { x.appendChild(link(base + "/diff/" + r.version, "diff")); }
    if (table.dataset.session === "1") {
      var pl = link(base + "/prompt?v=" + r.version, "prompt"); pl.className = "prompt-link";
      pl.setAttribute("title", "the prompt the model was shown at this version");
      x.appendChild(document.createTextNode(" ")); x.appendChild(pl);
    }
    tr.appendChild(x);
    return tr;
  }

  function setText(id, value) {
    var node = document.getElementById(id);
    if (node) { node.textContent = String(value); }
  }

  function apply(answer) {
    var rows = answer.rows || [];
    rows.forEach(function (r) {
      if (r.version <= head) { return; }
      // the previous head row showed the observation text; now it is a digest
      body.insertBefore(rowOf(r), body.firstChild);
      head = r.version;
    });
    if (answer.head > head) { head = answer.head; }
    table.dataset.head = String(head);
    setText("run-version", answer.head);
    setText("run-status", answer.status);
    setText("run-step", answer.step);
    setText("run-updated", answer.updated);
    setText("run-phase", answer.phase || "");
    var phaseRow = document.getElementById("run-phase-row");
    if (phaseRow) { phaseRow.hidden = !answer.phase; }
    setText("version-count", answer.head + (answer.head === 1 ? " version" : " versions"));
    // the diff inputs follow the head: from the one before it, to it (unless edited)
    var from = document.getElementById("diff-from");
    var to = document.getElementById("diff-to");
    if (from && to) {
      var followed = to.value === to.getAttribute("max");
      from.setAttribute("max", String(answer.head)); to.setAttribute("max", String(answer.head));
      if (followed) { to.value = String(answer.head); from.value = String(Math.max(answer.head - 1, 1)); }
    }
    var shown = document.getElementById("state-version");
    var stale = document.getElementById("stale");
    if (shown && stale && String(answer.head) !== shown.textContent) { stale.hidden = false; }
  }

  function poll() {
    fetch(api + "?after=" + head, { headers: { "Accept": "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error(String(r.status)); } return r.json(); })
      .then(function (answer) { apply(answer); delay = every; })
      .catch(function () { delay = Math.min(delay * 2, 30000); })
      .then(function () { window.setTimeout(poll, delay); });
  }

  window.setTimeout(poll, every);
})();
