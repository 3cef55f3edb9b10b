// The application workspace: what htmx attributes cannot say about autosave. No inline
// scripts anywhere: the Content-Security-Policy forbids them.
(function () {
  "use strict";

  // Section answers are morphed into the page (idiomorph), not swapped: the field the rep
  // is typing in stays the same element, keeps its focus and, here, its value, so no
  // keystroke typed while an autosave was on its way is lost.
  // The fields changed since the request being answered left are not touched by the
  // morph either: the rep's newer value stays, and is saved by the next autosave.
  var protectedFields = null;
  if (window.Idiomorph) {
    window.Idiomorph.defaults.ignoreActiveValue = true;
    window.Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (attr, el) {
      if (!protectedFields || (attr !== "value" && attr !== "checked" && attr !== "selected")) return;
      var field = el.tagName === "OPTION" ? el.closest("select") : el;
      if (field && field.id && Object.prototype.hasOwnProperty.call(protectedFields, field.id)) return false;
    };
  }

  // The form values sent by each autosave request, so that what the rep types while the
  // request is on its way can be put back after the section is swapped; and, per response,
  // those edits and whether the focus was inside the swapped section.
  var sent = new WeakMap();
  var pending = new WeakMap();

  // autosaveForm returns the section form a request belongs to: the form itself, or the form
  // of a button (the reveal buttons belong to another form, on purpose).
  function autosaveForm(elt) {
    if (!elt) return null;
    var form = elt.tagName === "FORM" ? elt : elt.form;
    return form && form.hasAttribute("data-autosave") ? form : null;
  }

  // eltOf returns the element that issued an htmx request, for any of htmx's events. The
  // request's own record comes first: htmx sets detail.elt to the element an event is fired
  // on, which for the swap's events is the target (the section), not the form that asked.
  function eltOf(event) {
    var d = event.detail || {};
    return (d.requestConfig && d.requestConfig.elt) || d.elt || event.target;
  }

  function snapshot(form) {
    var values = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.id || el.type === "hidden" || el.type === "submit" || el.type === "button") return;
      values[el.id] = el.type === "checkbox" || el.type === "radio" ? el.checked : el.value;
    });
    return values;
  }

  function statusOf(form) {
    return form ? form.querySelector("[data-save-status]") : null;
  }

  function showProblem(form, text) {
    var status = statusOf(form);
    if (!status) return;
    status.textContent = text;
    status.classList.add("save-failed");
    status.setAttribute("role", "alert");
  }

  // A form swapped out while its request waited in the queue must not send its stale
  // values and version: what it held is put back into the new form (below) and saved from
  // there.
  document.addEventListener("htmx:configRequest", function (event) {
    // The checklist's refresh brings the stepper: tell it which step is shown.
    if (event.detail.elt && event.detail.elt.id === "checklist") {
      var shown = document.querySelector("[data-step-panel]:not([hidden])");
      if (shown && panels().length > 1) event.detail.parameters.step = shown.getAttribute("data-step-panel");
    }
    var form = autosaveForm(eltOf(event));
    if (!form) return;
    if (!document.body.contains(form)) {
      event.preventDefault();
      return;
    }
    sent.set(form, snapshot(form));
    form.removeAttribute("data-dirty");
  });

  // 422 carries the section again with messages beside the fields: swap it like a 200.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr.status === 422) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
    var elt = eltOf(event);
    var form = autosaveForm(elt);
    if (!form || !event.detail.shouldSwap) return;
    // Removing an owner renumbers the owners after it: edits keyed by the old positions
    // would land on the wrong person, so that rare case keeps the server's version.
    if (elt.value && elt.value.indexOf("remove:") === 0) return;
    // Remember every field changed since the request left.
    var before = sent.get(form) || {};
    var now = snapshot(form);
    var edits = {};
    Object.keys(now).forEach(function (id) {
      if (now[id] !== before[id]) edits[id] = now[id];
    });
    pending.set(xhr, { edits: edits, focused: event.detail.target.contains(document.activeElement), section: event.detail.target.id });
    protectedFields = edits;
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    protectedFields = null;
    var state = pending.get(event.detail.xhr);
    if (!state || state.applied) return; // htmx fires afterSwap once per swapped element
    state.applied = true;
    var edits = state.edits;
    var changed = null;
    Object.keys(edits).forEach(function (id) {
      var el = document.getElementById(id);
      if (!el) return;
      if (el.type === "checkbox" || el.type === "radio") el.checked = edits[id];
      else el.value = edits[id];
      changed = el;
    });
    // Save what was put back, as if it had just been typed.
    if (changed) changed.dispatchEvent(new Event("change", { bubbles: true }));
  });

  // After a swap that removed the focused element (an owner removed), put the focus on the
  // section's heading rather than losing it to the page.
  document.addEventListener("htmx:afterSettle", function (event) {
    var state = pending.get(event.detail.xhr);
    if (!state || !state.focused) return;
    if (document.activeElement && document.activeElement !== document.body) return;
    var section = document.getElementById(state.section);
    var heading = section && section.querySelector("h2[tabindex]");
    if (heading) heading.focus();
  });

  // Conflicts (409), a lost connection or any other failure: say so beside the Save button;
  // the typed values stay on the page.
  document.addEventListener("htmx:responseError", function (event) {
    var form = autosaveForm(eltOf(event));
    if (form) form.setAttribute("data-dirty", "");
    var text = (event.detail.xhr.responseText || "").trim();
    text = text && text.length < 600 ? text : "Not saved: the portal answered with an error. Your values are still here; try Save again.";
    if (event.detail.xhr.status === 409 && form && showConflict(form, text)) {
      showProblem(form, "Not saved: see the message beside the field.");
      return;
    }
    showProblem(form, text);
  });

  // Left to the merchant, the deposit account's fields go off at once; the save that
  // follows brings the same from the server. Disabled, they are not sent, so what was
  // typed stays stored for when the box is unticked.
  document.addEventListener("change", function (event) {
    if (event.target.id !== "bank.from_merchant") return;
    var set = event.target.form && event.target.form.querySelector("[data-bank-account]");
    if (set) set.disabled = event.target.checked;
  });

  // The field last changed in each section form: a conflict is about it.
  document.addEventListener("change", function (event) {
    var form = autosaveForm(event.target);
    if (form && event.target.id) form.setAttribute("data-last-changed", event.target.id);
  });

  // showConflict puts a refused save's message beside the field the rep changed, where
  // they are looking, and ties it to the field for screen readers.
  function showConflict(form, text) {
    var id = form.getAttribute("data-last-changed");
    var field = id && document.getElementById(id);
    if (!field) return false;
    var noteId = id + "-conflict";
    var note = document.getElementById(noteId);
    if (!note) {
      note = document.createElement("small");
      note.id = noteId;
      note.className = "field-error conflict-note";
      note.setAttribute("role", "alert");
      var after = field.type === "checkbox" || field.type === "radio" ? field.closest("label") || field : field;
      after.insertAdjacentElement("afterend", note);
    }
    note.textContent = text;
    var described = (field.getAttribute("aria-describedby") || "").split(" ").filter(function (x) { return x && x !== noteId; });
    described.unshift(noteId);
    field.setAttribute("aria-describedby", described.join(" "));
    field.setAttribute("aria-invalid", "true");
    return true;
  }
  document.addEventListener("htmx:sendError", function (event) {
    var form = autosaveForm(eltOf(event));
    if (form) form.setAttribute("data-dirty", "");
    showProblem(form, "Not saved: the portal cannot be reached. Your values are still here; they will be saved with your next change, or press Save.");
  });

  // Typing that no autosave has sent yet: warn before leaving the page.
  document.addEventListener("input", function (event) {
    var form = autosaveForm(event.target);
    if (form) form.setAttribute("data-dirty", "");
  });
  window.addEventListener("beforeunload", function (event) {
    if (document.querySelector("form[data-autosave][data-dirty], .htmx-request[data-autosave]")) {
      event.preventDefault();
      event.returnValue = "";
    }
  });

  // The steps: one section at a time. The stepper's links work without this script (each
  // loads ?step=name); with it, a step is shown at once, keeping every form on the page and
  // its autosave. The checklist's links go to their step and then to their field, with the
  // field's label in view.
  function panels() { return document.querySelectorAll("[data-step-panel]"); }

  function currentStep() {
    var a = document.querySelector("#stepper [aria-current='step']");
    return a ? a.getAttribute("data-step-link") : null;
  }

  // markStep puts aria-current on the step shown, and opens its part of the checklist.
  function markStep(name) {
    Array.prototype.forEach.call(document.querySelectorAll("#stepper [data-step-link]"), function (a) {
      if (a.getAttribute("data-step-link") === name) a.setAttribute("aria-current", "step");
      else a.removeAttribute("aria-current");
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-checklist-section]"), function (d) {
      d.open = d.getAttribute("data-checklist-section") === name;
    });
  }

  function showStep(name, focus) {
    var found = false;
    Array.prototype.forEach.call(panels(), function (p) {
      var on = p.getAttribute("data-step-panel") === name;
      p.hidden = !on;
      if (on) found = true;
    });
    if (!found) return false;
    markStep(name);
    if (window.history && window.history.replaceState) {
      var url = new URL(window.location.href);
      url.searchParams.set("step", name);
      url.hash = "";
      window.history.replaceState(null, "", url.toString());
    }
    if (name === "review" && window.htmx) {
      var review = document.getElementById("review");
      if (review) window.htmx.trigger(review, "step-shown");
    }
    if (focus !== false) {
      var panel = document.querySelector("[data-step-panel='" + name + "']");
      var heading = panel && panel.querySelector("h2");
      var stepper = document.getElementById("stepper");
      if (stepper) stepper.scrollIntoView({ block: "start" });
      if (heading) {
        if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
        heading.focus({ preventScroll: true });
      }
    }
    return true;
  }
  window.portalShowStep = showStep;

  // gotoField shows a field with its label in view, and puts the cursor in it.
  function gotoField(id) {
    var el = document.getElementById(id);
    if (!el) return;
    var label = document.querySelector("label[for='" + (window.CSS && CSS.escape ? CSS.escape(id) : id) + "']");
    (label || el).scrollIntoView({ block: "start" });
    if (!el.matches("input, select, textarea, button, a[href], [tabindex]")) el.setAttribute("tabindex", "-1");
    el.focus({ preventScroll: true });
  }

  document.addEventListener("click", function (event) {
    var a = event.target.closest && event.target.closest("a[data-step-link]");
    if (!a || !panels().length || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var field = a.getAttribute("data-goto-field");
    if (!showStep(a.getAttribute("data-step-link"), !field)) return;
    event.preventDefault();
    if (field) gotoField(field);
  });

  // The checklist's answer brings a new stepper, out of band: keep the step shown marked.
  document.addEventListener("htmx:afterSettle", function () {
    var shown = document.querySelector("[data-step-panel]:not([hidden])");
    if (shown && panels().length > 1) markStep(shown.getAttribute("data-step-panel"));
  });
  document.addEventListener("DOMContentLoaded", function () {
    var name = currentStep();
    if (name) markStep(name);
  });

  // "Save and continue": once the section saved with nothing refused, the next step. (Kept
  // beside the form, not on it: the answer is morphed into the form, attributes and all.)
  var continueTo = new WeakMap();
  document.addEventListener("click", function (event) {
    var b = event.target.closest && event.target.closest("button[data-continue]");
    if (b && b.form) continueTo.set(b.form, b.getAttribute("data-continue"));
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = autosaveForm(eltOf(event));
    if (!form) return;
    var next = continueTo.get(form);
    continueTo.delete(form);
    if (next && event.detail.xhr && event.detail.xhr.status === 200) showStep(next);
  });

  // Submit: pressed once, it says so at once and cannot be pressed again; the page that
  // follows shows the push's progress until the merchant's link comes back.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("[data-submit-form]") || event.defaultPrevented) return;
    if (form.getAttribute("aria-busy") === "true") {
      event.preventDefault();
      return;
    }
    var button = form.querySelector("button[type=submit]");
    form.setAttribute("aria-busy", "true");
    if (button) {
      button.textContent = "Submitting…";
      button.setAttribute("aria-disabled", "true");
      setTimeout(function () { button.disabled = true; }, 0);
    }
    var pending = form.querySelector("[data-submit-pending]");
    if (pending) {
      pending.textContent = "Sending the application to the processor. The progress shows here in a moment.";
      var bar = document.createElement("progress");
      bar.setAttribute("aria-label", "Submitting");
      pending.appendChild(bar);
    }
  });

  // Forms that destroy something ask first.
  document.addEventListener("submit", function (event) {
    var message = event.target.getAttribute && event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) event.preventDefault();
  });
})();
