// Portal behaviour that htmx attributes cannot express. No inline scripts: the
// Content-Security-Policy forbids them.
(function () {
  "use strict";
  function browserZone() {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return ""; }
  }
  // The sign-in form tells the portal the browser's time zone, the user's default.
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("input[data-browser-time-zone]").forEach(function (el) { el.value = browserZone(); });
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-fill-time-zone]");
    if (!button) return;
    var input = document.getElementById(button.getAttribute("data-fill-time-zone"));
    if (input) input.value = browserZone();
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy-target]");
    if (!button) return;
    var target = document.getElementById(button.getAttribute("data-copy-target"));
    if (!target || !navigator.clipboard) return;
    navigator.clipboard.writeText(target.value || target.textContent.trim()).then(function () {
      button.textContent = "Copied";
    });
  });
})();
