// Portal behaviour that htmx attributes cannot express. No inline scripts: the
// Content-Security-Policy forbids them.
(function () {
  "use strict";
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
