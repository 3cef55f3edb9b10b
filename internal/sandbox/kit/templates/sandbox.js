// Shows every <time datetime="..."> of a sandbox page in the viewer's time
// zone; without this script the pages show UTC.
document.querySelectorAll("time[datetime]").forEach(function (el) {
  var d = new Date(el.getAttribute("datetime"));
  if (!isNaN(d)) {
    el.title = el.textContent;
    el.textContent = d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
  }
});
