// Portal behaviour that htmx attributes cannot express. No inline scripts: the
// Content-Security-Policy forbids them.
(function () {
  "use strict";
  function browserZone() {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return ""; }
  }
  // The browser's time zone becomes the user's default when they sign in: the
  // sign-in form sends it, and every page keeps it in a cookie for the other
  // ways in (an invitation, a reset link, the second step), whose forms do not.
  (function () {
    var zone = browserZone();
    if (!zone) return;
    document.cookie = "portal_tz=" + encodeURIComponent(zone) + "; path=/; SameSite=Lax" +
      (location.protocol === "https:" ? "; Secure" : "");
  })();
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("input[data-browser-time-zone]").forEach(function (el) { el.value = browserZone(); });
  });
  // A filter bar folds away on a phone, so the first rows show on the first screen.
  document.addEventListener("DOMContentLoaded", function () {
    if (!window.matchMedia || !window.matchMedia("(max-width: 48rem)").matches) return;
    document.querySelectorAll("details[data-fold-on-phone]").forEach(function (el) {
      if (!el.querySelector("[aria-invalid=true]")) el.open = false;
    });
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
    var label = button.getAttribute("data-copy-label") || button.textContent;
    button.setAttribute("data-copy-label", label);
    navigator.clipboard.writeText(target.value || target.textContent.trim()).then(function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = label; }, 2000);
    }, function () {
      button.textContent = "Select and copy by hand";
    });
  });
})();
