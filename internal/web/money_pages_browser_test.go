package web_test

// Checks of the money pages for the every-page test (everyPage's check).

// virtualTerminalCheck: an empty keyed sale fits the first desktop screen
// (its button ends within 1280×800; it was 1,992 px tall), the tip sits
// beside the amount, and the card is one row (number, expiry, security code).
const virtualTerminalCheck = `(function(w){
	var out = [], button = document.querySelector("form[action$=\"/payments/card\"] button[type=submit]");
	if (!button) return ["no card form"];
	if (w < 1280) return out;
	var bottom = button.getBoundingClientRect().bottom + window.scrollY;
	if (bottom > window.innerHeight) out.push("the empty card form's button ends at " + Math.round(bottom) + " px, below the first screen (" + window.innerHeight + " px)");
	function top(id) { return document.getElementById(id).getBoundingClientRect().top; }
	if (Math.abs(top("card-amount") - top("card-tip")) > 2) out.push("the tip is not beside the amount");
	if (Math.abs(top("card-number") - top("card-expiry")) > 2 || Math.abs(top("card-number") - top("card-cvc")) > 2) out.push("the card number, expiry and security code are not one row");
	return out;
})`

// ledgerCheck: the ledger's filters are a compact bar (the common ones on
// one row at 1280 px, the rest folded under More filters, the bar folded on
// a phone), the first transaction shows on the first screen, and every
// filter in force is a chip that removes just it.
const ledgerCheck = `(function(w){
	var out = [], bar = document.querySelector(".filter-bar"), row = document.querySelector(".tx-table tbody tr");
	if (!bar || !row) return ["no filter bar or no transaction"];
	if (w >= 1280) {
		var tops = new Set();
		bar.querySelectorAll("form > .filter-fields > div").forEach(function(f){ tops.add(Math.round(f.getBoundingClientRect().top / 10)); });
		if (tops.size > 1) out.push("the common filters take " + tops.size + " rows");
		if (!bar.open) out.push("the filter bar is folded at desktop width");
		if (!bar.querySelector("details.more-filters > summary")) out.push("no More filters");
	} else if (bar.open) out.push("the filter bar is open on a phone");
	var first = row.getBoundingClientRect().top + window.scrollY;
	if (first > window.innerHeight - 40) out.push("the first transaction starts at " + Math.round(first) + " px, below the first screen");
	var params = new URLSearchParams(location.search), chips = document.querySelectorAll(".filter-chips a");
	var set = Array.from(params.keys()).filter(function(k){ return k !== "tz" && k !== "after" && params.get(k); });
	if (chips.length !== set.length) out.push(chips.length + " chips for " + set.length + " filters in force");
	chips.forEach(function(a){
		var name = a.textContent.trim().replace(/\s+/g, " ");
		if (!/^Remove filter: .+: .+/.test(name)) out.push("a chip is named " + JSON.stringify(name));
		var left = new URLSearchParams(new URL(a.href).search), gone = set.filter(function(k){ return !left.get(k); });
		if (gone.length !== 1) out.push("the chip " + JSON.stringify(name) + " removes " + JSON.stringify(gone));
	});
	return out;
})`
