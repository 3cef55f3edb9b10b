// Inputs format as people type ([data-format]): a card number in groups
// (4-4-4-4, American Express 4-6-5), an expiry as MM/YY, an EIN, an SSN, a
// TIN (an EIN, or an SSN when typed with its first dash), a US phone number,
// a ZIP code and an amount of money. It is progressive enhancement: the
// server reads every format. What it keeps to:
// - the value is only ever set as the input's value property, never as an
//   attribute (card numbers must not reach the DOM's markup or htmx's
//   history), and nothing typed is stored anywhere else;
// - the caret stays after the same digit it followed, so editing mid-number
//   works, and a paste is formatted as a whole;
// - a value holding anything but digits and the kind's separators (a typo, a
//   masked value "•••• 6789", a foreign postal code, "+44 …") is left exactly
//   as typed, for the server's message;
// - nothing is announced: labels, hints and live regions are untouched.
// No inline scripts: the Content-Security-Policy forbids them.
(function () {
  "use strict";

  // Layouts: # is a digit; any other character is a separator written only
  // between digits. A value with more digits than its layout is left alone.
  var kinds = {
    card: { allowed: /^[\d\s-]*$/, layout: function (d) { return /^3[47]/.test(d) ? "#### ###### #####" : "#### #### #### #### ###"; } },
    expiry: { allowed: /^[\d\s/-]*$/, layout: function () { return "##/####"; } },
    ein: { allowed: /^[\d\s-]*$/, layout: function () { return "##-#######"; } },
    ssn: { allowed: /^[\d\s-]*$/, layout: function () { return "###-##-####"; } },
    // A TIN is an EIN (12-3456789), or an SSN typed with its first dash; its
    // first three digits may begin either, so they show bare.
    tin: { allowed: /^[\d\s-]*$/, layout: function (d, typed) { return /^\s*\d{3}-/.test(typed) ? "###-##-####" : d.length > 3 ? "##-#######" : "###"; } },
    phone: { allowed: /^[\d\s().-]*$/, layout: function (d) { return d.charAt(0) === "1" ? "# (###) ###-####" : "(###) ###-####"; } },
    zip: { allowed: /^[\d\s-]*$/, layout: function () { return "#####-####"; } },
    money: { allowed: /^\$?[\d\s,]*(\.\d{0,2})?$/, significant: /[\d.]/ }
  };

  function isSignificant(kind, ch) {
    return (kind.significant || /\d/).test(ch);
  }

  // significant keeps the characters that carry the value (digits; the
  // decimal point of an amount).
  function significant(kind, s) {
    var out = "";
    for (var i = 0; i < s.length; i++) if (isSignificant(kind, s.charAt(i))) out += s.charAt(i);
    return out;
  }

  // byLayout writes digits into layout. A separator the person typed after
  // the last digit stays ("08/", "123-"), so they see it was taken.
  function byLayout(layout, digits, typed) {
    var out = "", n = 0, i = 0;
    for (; i < layout.length && n < digits.length; i++) {
      out += layout.charAt(i) === "#" ? digits.charAt(n++) : layout.charAt(i);
    }
    if (n < digits.length) return null;
    if (n > 0 && /\D$/.test(typed)) {
      for (; i < layout.length && layout.charAt(i) !== "#"; i++) out += layout.charAt(i);
    }
    return out;
  }

  function money(sig) {
    var parts = sig.split("."), whole = parts[0], grouped = "";
    while (whole.length > 3) {
      grouped = "," + whole.slice(-3) + grouped;
      whole = whole.slice(0, -3);
    }
    return whole + grouped + (parts.length > 1 ? "." + parts[1] : "");
  }

  // format returns how typed reads in kind, or null to leave it as typed.
  function format(kind, typed) {
    if (!kind.allowed.test(typed)) return null;
    var sig = significant(kind, typed);
    if (!kind.layout) return money(sig);
    return byLayout(kind.layout(sig, typed), sig, typed);
  }

  // caretAfter is the position after the n-th significant character of s
  // (after a separator that ends s, when n counts them all).
  function caretAfter(kind, s, n) {
    if (n === 0) return 0;
    if (n === significant(kind, s).length) return s.length;
    for (var i = 0, seen = 0; i < s.length; i++) {
      if (isSignificant(kind, s.charAt(i)) && ++seen === n) return i + 1;
    }
    return s.length;
  }

  // apply formats the input and keeps its caret after the same significant
  // character (the caret moves only in the focused input).
  function apply(input, value, caret) {
    var kind = kinds[input.getAttribute("data-format")];
    if (!kind) return;
    var formatted = format(kind, value);
    if (formatted === null) {
      if (value !== input.value) input.value = value;
      return;
    }
    var before = significant(kind, value.slice(0, caret)).length;
    if (formatted !== input.value) input.value = formatted;
    if (document.activeElement === input) {
      var at = caretAfter(kind, formatted, before);
      input.setSelectionRange(at, at);
    }
  }

  document.addEventListener("input", function (event) {
    var input = event.target;
    if (event.isComposing || !input.matches || !input.matches("input[data-format]")) return;
    apply(input, input.value, input.selectionStart === null ? input.value.length : input.selectionStart);
  });

  // Backspace just after a separator (or Delete just before one) removes the
  // digit beyond it: removing the separator alone would only bring it back.
  document.addEventListener("beforeinput", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches("input[data-format]")) return;
    var back = event.inputType === "deleteContentBackward";
    if (!back && event.inputType !== "deleteContentForward") return;
    var kind = kinds[input.getAttribute("data-format")], v = input.value, at = input.selectionStart;
    if (!kind || at === null || at !== input.selectionEnd || format(kind, v) !== v) return;
    var step = back ? -1 : 1, i = back ? at - 1 : at;
    // A separator at the very end (typed by the person) goes as usual.
    if (i < 0 || i >= v.length || isSignificant(kind, v.charAt(i)) || (back && at === v.length)) return;
    while (i >= 0 && i < v.length && !isSignificant(kind, v.charAt(i))) i += step;
    if (i < 0 || i >= v.length) return;
    event.preventDefault();
    apply(input, v.slice(0, i) + v.slice(i + 1), back ? i : at);
  });

  // Values the page arrives with (typed before a problem, stored) read the
  // same way; htmx fires htmx:load for the page and every fragment it swaps.
  function formatWithin(root) {
    if (!root.querySelectorAll) return;
    root.querySelectorAll("input[data-format]").forEach(function (input) {
      if (document.activeElement !== input && input.value) apply(input, input.value, input.value.length);
    });
  }
  document.addEventListener("DOMContentLoaded", function () { formatWithin(document); });
  document.addEventListener("htmx:load", function (event) { formatWithin(event.target); });
})();
