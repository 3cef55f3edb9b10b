// Payments pages: a form that moves money is sent once (its button is
// disabled on the first submit); countdowns of the void window; times in the
// viewer's own zone; the ledger's dates in that zone. No inline scripts: the
// Content-Security-Policy forbids them.
(function () {
  "use strict";

  // Send a [data-once] form once: a second click, Enter or submit does nothing.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-once]")) return;
    if (form.dataset.sent === "true") {
      event.preventDefault();
      return;
    }
    form.dataset.sent = "true";
    form.setAttribute("aria-busy", "true");
    form.querySelectorAll("button[type=submit], button:not([type])").forEach(function (b) {
      b.disabled = true;
      if (b.dataset.sending) {
        b.dataset.label = b.textContent;
        b.textContent = b.dataset.sending;
      }
    });
  }, true);

  // Leaving the page forgets the card and account digits typed, so the
  // back-forward cache never keeps a copy of them.
  window.addEventListener("pagehide", function () {
    document.querySelectorAll("input[name=card_number], input[name=security_code], input[name=account_number]").forEach(function (i) {
      i.value = "";
    });
  });

  // A page shown again from the back-forward cache is sent anew only by a
  // new click: re-enable its buttons. It still carries its token, so the
  // server answers with the transaction it made, never a second one.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    document.querySelectorAll("form[data-once]").forEach(function (form) {
      delete form.dataset.sent;
      form.removeAttribute("aria-busy");
      form.querySelectorAll("button").forEach(function (b) {
        b.disabled = false;
        if (b.dataset.label) b.textContent = b.dataset.label;
      });
    });
  });

  // The button of a [data-total] form names the total as it is typed:
  // "Charge $12.50" (its data-verb-<action> and the amounts marked
  // data-total-part); without an amount, what it moves ("Charge the card",
  // its data-object), as the page sent it.
  var usd = window.Intl ? new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }) : null;
  function totalCents(form) {
    var cents = 0;
    var parts = form.querySelectorAll("[data-total-part]");
    for (var i = 0; i < parts.length; i++) {
      var v = parts[i].value.replace(/[$,\s]/g, "");
      if (v === "") continue;
      if (!/^(\d+\.?\d{0,2}|\.\d{1,2})$/.test(v)) return 0;
      cents += Math.round(parseFloat(v) * 100);
    }
    return cents;
  }
  function nameTotal(form) {
    var button = form.querySelector("button[type=submit]");
    if (!button || !usd || form.dataset.sent === "true") return;
    var action = form.querySelector("input[name=action]:checked");
    var verb = button.getAttribute("data-verb-" + (action ? action.value : "sale")) || button.getAttribute("data-verb-sale");
    var cents = totalCents(form), amount = form.querySelector("[data-total-part]");
    var what = cents > 0 && amount && amount.value.trim() !== "" ? usd.format(cents / 100) : button.getAttribute("data-object");
    var label = verb + " " + what;
    if (button.textContent !== label) button.textContent = label;
  }
  function totalChanged(event) {
    var form = event.target.form;
    if (form && form.hasAttribute("data-total")) nameTotal(form);
  }
  document.addEventListener("input", totalChanged);
  document.addEventListener("change", totalChanged);

  function countdowns() {
    document.querySelectorAll("[data-deadline]").forEach(function (el) {
      var left = Math.floor((new Date(el.getAttribute("data-deadline")) - new Date()) / 1000);
      if (left <= 0) {
        el.textContent = el.getAttribute("data-deadline-passed") || "the void window has passed";
        return;
      }
      var m = Math.floor(left / 60), s = left % 60;
      el.textContent = m + " min " + (s < 10 ? "0" : "") + s + " s left";
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form[data-total]").forEach(nameTotal);
    var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
    document.querySelectorAll("input[data-timezone]").forEach(function (i) {
      if (!i.value && zone) i.value = zone;
    });
    if (document.querySelector("[data-deadline]")) {
      countdowns();
      window.setInterval(countdowns, 1000);
    }
  });
})();
