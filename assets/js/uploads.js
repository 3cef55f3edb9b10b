// Document uploads: several files at once, each with its own progress bar
// and cancel button. XMLHttpRequest is used because fetch cannot report
// upload progress. Without this script the same forms post normally, one
// file at a time. No inline scripts: the Content-Security-Policy forbids them.
(function () {
  "use strict";

  var MAX_PARALLEL = 2;
  // The document list reloads on the first; the application page's
  // checklist and history on the second.
  var CHANGED_EVENTS = ["documents-changed", "application-changed"];
  var running = 0;
  var waiting = [];

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || "";
    } catch (e) {
      return "";
    }
  }

  // enhance turns on what needs the script: several files per pick on the
  // new-document form, and the drop zone.
  function enhance(root) {
    if (!root.querySelectorAll) return;
    var forms = Array.prototype.slice.call(root.querySelectorAll("[data-upload-form]"));
    if (root.matches && root.matches("[data-upload-form]")) forms.push(root);
    forms.forEach(function (form) {
      if (form.hasAttribute("data-enhanced")) return;
      form.setAttribute("data-enhanced", "");
      var input = form.querySelector("[data-file-input]");
      if (input && (form.querySelector("[data-doc-type]") || form.hasAttribute("data-slot"))) input.multiple = true;
      var zone = form.querySelector("[data-dropzone]");
      if (zone) zone.hidden = false;
      // A slot uploads as soon as a file is chosen: its button is only for pages
      // without this script.
      var button = form.querySelector("[data-slot-submit]");
      if (button) button.hidden = true;
    });
  }

  // queueFor is where a form's uploads show: the queue beside the form (inside
  // its slot, under the other-documents form), or, for a replacement in the
  // list (which reloads), the queue above the list.
  function queueFor(form) {
    if (form.hasAttribute("data-replace")) return document.querySelector("[data-upload-queue='replace']");
    var parent = form.parentElement;
    var own = parent && parent.querySelector(":scope > [data-upload-queue]");
    return own || document.querySelector("[data-upload-queue]");
  }

  // typeOf is the document type a form uploads: the slot's own, the type
  // chosen in the select, or none (a replacement keeps its type).
  function typeOf(form) {
    var select = form.querySelector("[data-doc-type]");
    if (select) return select.value;
    var fixed = form.querySelector("input[name='doc_type']");
    return fixed ? fixed.value : null;
  }

  function showError(form, selector, control, message) {
    var el = form.querySelector(selector);
    if (!el) return;
    el.textContent = message;
    el.hidden = !message;
    if (!control) return;
    if (message) {
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", el.id);
    } else {
      control.removeAttribute("aria-invalid");
    }
  }

  // startBatch queues files for one form; a new-document form needs a type.
  function startBatch(form, files) {
    var select = form.querySelector("[data-doc-type]");
    if (select && !select.value) {
      showError(form, "[data-type-error]", select, "Choose what kind of document this is.");
      select.focus();
      return false;
    }
    showError(form, "[data-type-error]", select, "");
    var docType = typeOf(form);
    files.forEach(function (file) {
      enqueue(form, file, docType);
    });
    return true;
  }

  function enqueue(form, file, docType) {
    var queue = queueFor(form);
    if (!queue) return;
    var item = document.createElement("li");
    item.className = "upload-item";
    item.setAttribute("data-upload-item", "");
    var name = document.createElement("span");
    name.className = "upload-name";
    name.textContent = file.name;
    var progress = document.createElement("progress");
    progress.max = 100;
    progress.value = 0;
    progress.setAttribute("aria-label", "Upload of " + file.name);
    var status = document.createElement("span");
    status.className = "upload-status";
    var button = document.createElement("button");
    button.type = "button";
    button.className = "secondary outline";
    button.textContent = "Cancel";
    button.setAttribute("aria-label", "Cancel the upload of " + file.name);
    item.append(name, progress, status, button);
    queue.appendChild(item);

    var job = { form: form, file: file, docType: docType, item: item, progress: progress, status: status, button: button, xhr: null };
    button.addEventListener("click", function () { cancel(job); });

    var max = Number(form.getAttribute("data-max-bytes"));
    if (file.size === 0) return settle(job, "error", "The file is empty.");
    if (max && file.size > max) {
      return settle(job, "error", "The file is larger than the " + form.getAttribute("data-max-label") + " limit.");
    }
    setState(job, "queued", "Waiting");
    waiting.push(job);
    pump();
  }

  function pump() {
    while (running < MAX_PARALLEL && waiting.length) start(waiting.shift());
  }

  function start(job) {
    running++;
    var xhr = new XMLHttpRequest();
    job.xhr = xhr;
    var data = new FormData();
    // The type goes first: the server reads the form as it streams in.
    if (job.docType !== null) data.append("doc_type", job.docType);
    data.append("file", job.file, job.file.name);
    xhr.open("POST", job.form.getAttribute("action"));
    xhr.setRequestHeader("X-CSRF-Token", csrfToken());
    xhr.setRequestHeader("HX-Request", "true");
    xhr.upload.addEventListener("progress", function (e) {
      if (e.lengthComputable) job.progress.value = Math.floor((e.loaded / e.total) * 100);
    });
    xhr.upload.addEventListener("load", function () {
      setState(job, "checking", "Checking the file");
    });
    xhr.addEventListener("load", function () {
      if (xhr.status >= 200 && xhr.status < 300) {
        job.progress.value = 100;
        settle(job, "done", "Uploaded");
        changed();
      } else {
        settle(job, "error", xhr.responseText || "The upload failed.");
      }
    });
    xhr.addEventListener("error", function () {
      settle(job, "error", "The connection was lost before the upload finished. Try again.");
    });
    xhr.addEventListener("abort", function () {
      settle(job, "cancelled", "Cancelled");
    });
    xhr.addEventListener("loadend", function () {
      running--;
      pump();
    });
    setState(job, "uploading", "Uploading");
    xhr.send(data);
  }

  function cancel(job) {
    var state = job.item.getAttribute("data-state");
    if (state === "queued") {
      waiting = waiting.filter(function (j) { return j !== job; });
      settle(job, "cancelled", "Cancelled");
    } else if (job.xhr && (state === "uploading" || state === "checking")) {
      job.xhr.abort();
    } else {
      job.item.remove();
    }
  }

  function setState(job, state, text) {
    job.item.setAttribute("data-state", state);
    job.status.textContent = text;
  }

  // settle ends a job; its button then dismisses the row.
  function settle(job, state, text) {
    setState(job, state, text);
    if (state === "error") {
      // A refused file shows its message alone, not a progress bar beside it.
      job.status.setAttribute("role", "alert");
      job.progress.remove();
    }
    job.button.textContent = "Dismiss";
    job.button.setAttribute("aria-label", "Dismiss " + job.file.name);
  }

  // changed reloads the document list, the readiness checklist and the
  // history, which listen for these events on <body>. Uploads that finish
  // close together cause one reload, not a burst of overlapping ones.
  var changedTimer = null;
  function changed() {
    clearTimeout(changedTimer);
    changedTimer = setTimeout(function () {
      CHANGED_EVENTS.forEach(function (name) {
        if (window.htmx) {
          window.htmx.trigger(document.body, name);
        } else {
          document.body.dispatchEvent(new CustomEvent(name, { bubbles: true }));
        }
      });
    }, 250);
  }

  document.addEventListener("submit", function (e) {
    var form = e.target.closest && e.target.closest("[data-upload-form]");
    if (!form || !window.FormData) return;
    e.preventDefault();
    var input = form.querySelector("[data-file-input]");
    var files = input ? Array.prototype.slice.call(input.files) : [];
    if (!files.length) {
      var select = form.querySelector("[data-doc-type]");
      if (select && !select.value) {
        showError(form, "[data-type-error]", select, "Choose what kind of document this is.");
      }
      if (input) input.focus();
      return;
    }
    if (startBatch(form, files)) input.value = "";
  });

  document.addEventListener("dragover", function (e) {
    var zone = e.target.closest && e.target.closest("[data-dropzone]");
    if (!zone) return;
    e.preventDefault();
    zone.classList.add("dragover");
  });
  document.addEventListener("dragleave", function (e) {
    var zone = e.target.closest && e.target.closest("[data-dropzone]");
    if (zone) zone.classList.remove("dragover");
  });
  document.addEventListener("drop", function (e) {
    var zone = e.target.closest && e.target.closest("[data-dropzone]");
    if (!zone) return;
    e.preventDefault();
    zone.classList.remove("dragover");
    var files = Array.prototype.slice.call(e.dataTransfer.files || []);
    var form = zone.querySelector("[data-upload-form]") || zone.closest("[data-upload-form]");
    if (form && files.length) startBatch(form, files);
  });

  // Choosing files in a slot uploads them at once, as the slot's type.
  document.addEventListener("change", function (e) {
    var input = e.target;
    if (!input.matches || !input.matches("[data-file-input]")) return;
    var form = input.form;
    if (!form || !form.hasAttribute("data-slot") || !window.FormData) return;
    var files = Array.prototype.slice.call(input.files || []);
    if (files.length && startBatch(form, files)) input.value = "";
  });

  // A delete that fails (the application was handed off meanwhile, the
  // session expired) says so above the list instead of doing nothing.
  function deleteFailed(event, fallback) {
    var d = event.detail || {};
    var elt = d.elt || event.target;
    var form = elt && elt.closest && elt.closest("[data-delete-form]");
    if (!form) return;
    var section = form.closest("section") || document;
    var box = section.querySelector("[data-doc-message]");
    if (!box) return;
    var text = d.xhr && (d.xhr.responseText || "").trim();
    box.textContent = text && text.length < 600 ? text : fallback;
    box.hidden = false;
  }
  document.addEventListener("htmx:responseError", function (e) {
    deleteFailed(e, "The document could not be deleted. Reload the page and try again.");
  });
  document.addEventListener("htmx:sendError", function (e) {
    deleteFailed(e, "The portal could not be reached. Check the connection and try again.");
  });
  document.addEventListener("htmx:beforeRequest", function (e) {
    var elt = e.detail && e.detail.elt;
    if (!elt || !elt.closest || !elt.closest("[data-delete-form]")) return;
    var box = (elt.closest("section") || document).querySelector("[data-doc-message]");
    if (box) box.hidden = true;
  });

  document.addEventListener("htmx:load", function (e) { enhance(e.target); });
  document.addEventListener("DOMContentLoaded", function () { enhance(document); });
})();
