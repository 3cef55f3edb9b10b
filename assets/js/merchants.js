// The merchant page's forms that undo something ask first. No inline
// scripts: the Content-Security-Policy forbids them.
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var message = event.target.getAttribute && event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) event.preventDefault();
  });
})();
