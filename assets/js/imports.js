// The import's upload: the file goes with a progress bar, and the CSRF token in a
// header, so the server reads the file as it arrives and nothing of it touches the
// disk. Without this script the form posts normally. No inline scripts: the
// Content-Security-Policy forbids them.
(function () {
  "use strict";

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || "";
    } catch (e) {
      return "";
    }
  }

  function showError(form, message) {
    var el = form.querySelector("[data-import-error]");
    var input = form.querySelector("#import-file");
    el.textContent = message;
    el.hidden = !message;
    if (message) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    } else {
      input.removeAttribute("aria-invalid");
    }
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.matches || !form.matches("[data-import-form]")) return;
    var input = form.querySelector("#import-file");
    if (!input.files || input.files.length === 0) {
      ev.preventDefault();
      showError(form, "Choose a CSV file to upload.");
      return;
    }
    ev.preventDefault();
    showError(form, "");
    var data = new FormData(form);
    data.delete("csrf_token");
    var box = form.querySelector("[data-import-progress]");
    var bar = box.querySelector("progress");
    var button = form.querySelector("button[type=submit]");
    box.hidden = false;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    var xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("X-CSRF-Token", csrfToken());
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", function (e) {
      if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 100);
    });
    xhr.upload.addEventListener("load", function () {
      // Sent: the server checks the rows now; the bar shows it is busy.
      bar.removeAttribute("value");
    });
    xhr.addEventListener("load", function () {
      var answer = {};
      try {
        answer = JSON.parse(xhr.responseText || "{}");
      } catch (e) {
        answer = {};
      }
      if (xhr.status === 201 && answer.location) {
        window.location.assign(answer.location);
        return;
      }
      box.hidden = true;
      button.disabled = false;
      button.removeAttribute("aria-busy");
      var errors = answer.errors || {};
      var message = errors.file || errors.owner_id || answer.message || "The upload failed (" + xhr.status + "). Try again.";
      showError(form, message);
    });
    xhr.addEventListener("error", function () {
      box.hidden = true;
      button.disabled = false;
      button.removeAttribute("aria-busy");
      showError(form, "The upload failed: the connection was lost. Try again.");
    });
    xhr.send(data);
  });
})();
