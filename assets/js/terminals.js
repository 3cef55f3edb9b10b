// Card terminals: the launch control goes grey the moment it is pressed (a
// second press or a double click sends nothing: the form's one-time token
// makes it one launch anyway), and the tip form shows the tip and warns
// above the threshold. No inline scripts: the Content-Security-Policy
// forbids them.
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[data-launch-form], form:has([data-busy-text])")) return;
    if (form.dataset.sent === "true") { event.preventDefault(); return; }
    form.dataset.sent = "true";
    form.querySelectorAll("button[type=submit]").forEach(function (b) {
      b.disabled = true;
      b.setAttribute("aria-busy", "true");
      if (b.dataset.busyText) b.textContent = b.dataset.busyText;
    });
  });
  // A page restored from the back-forward cache gets its controls back.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    document.querySelectorAll("form[data-sent]").forEach(function (form) {
      delete form.dataset.sent;
      form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = false; b.removeAttribute("aria-busy"); });
    });
  });
  function cents(text) {
    var s = String(text).replace(/[$,\s]/g, "");
    if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
    var parts = s.split(".");
    return parseInt(parts[0], 10) * 100 + (parts[1] ? parseInt((parts[1] + "0").slice(0, 2), 10) : 0);
  }
  function money(c) { return (c < 0 ? "-" : "") + "$" + Math.floor(Math.abs(c) / 100) + "." + ("0" + Math.abs(c) % 100).slice(-2); }
  function showTip(input) {
    var base = parseInt(input.dataset.tipBase, 10), warn = parseInt(input.dataset.tipWarn, 10);
    var out = document.getElementById("tip-difference");
    var confirm = input.form.querySelector("[data-tip-confirm]");
    var total = cents(input.value);
    if (!out) return;
    if (total === null || !base) { out.textContent = ""; return; }
    var tip = total - base;
    if (tip < 0) { out.textContent = "The new total is below the sale amount of " + money(base) + "."; return; }
    var pct = Math.round(tip * 1000 / base) / 10;
    out.textContent = "Tip: " + money(tip) + " (" + pct + "% of the sale)." + (pct > warn ? " That is above " + warn + "%: check it with the cardholder." : "");
    if (confirm) confirm.hidden = !(pct > warn);
  }
  document.addEventListener("input", function (event) {
    if (event.target.matches("input[data-tip-base]")) showTip(event.target);
  });
  // While an outcome is unknown the page keeps asking for news, and an answer
  // replaces the whole status section. As long as the answer still asks what the
  // terminal showed, the form stays as it is (with what the person chose or typed
  // in it) and only the rest of the section is brought up to date; once the
  // answer is known, the whole section is replaced and the form goes.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "launch-status" || !event.detail.serverResponse) return;
    var form = target.querySelector("#confirm-form");
    if (!form) return;
    var doc = new DOMParser().parseFromString(event.detail.serverResponse, "text/html");
    var next = doc.getElementById("launch-status");
    var nextForm = next && next.querySelector("#confirm-form");
    if (!nextForm) return;
    event.detail.shouldSwap = false;
    Array.prototype.forEach.call(next.children, function (child) {
      if (!child.id || child.id === "confirm-form") return;
      var old = target.querySelector("#" + CSS.escape(child.id));
      if (!old || old.parentNode !== target || old.contains(document.activeElement)) return;
      var fresh = document.importNode(child, true);
      if (old.open) fresh.open = true;
      old.replaceWith(fresh);
    });
    // An answer that no longer asks to be polled stops the polling.
    if (!next.hasAttribute("hx-get")) target.dataset.pollingStopped = "true";
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.id === "launch-status" && elt.dataset.pollingStopped === "true") event.preventDefault();
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("input[data-tip-base]").forEach(showTip);
  });
})();
