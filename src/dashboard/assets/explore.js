// The explorer's conveniences; the page works without them (the charts are drawn on the server).
// Hover: the record under the pointer, read from the table behind the chart, each value named by
// its field's label with its unit, and its stamp in the view's zone. Zoom: drag across a chart to
// open the view of that span.
const table = document.getElementById("records");
const hover = document.getElementById("hover");
const charts = document.querySelector(".charts");
if (table && hover && charts) {
  const heads = [...table.tHead.rows[0].cells].map((th) => ({
    label: th.textContent.trim(),
    unit: th.dataset.unit,
  }));
  const rows = [...table.tBodies[0].rows];
  const times = rows.map((tr) => Number(tr.dataset.t));
  const zone = charts.dataset.tz === "UTC" ? "UTC" : "SAST";
  const offset = Number(charts.dataset.offset);
  const stamp = (t) => new Date(t + offset).toISOString().slice(0, 16).replace("T", " ") + " " + zone;
  const nearest = (t) => {
    let lo = 0;
    let hi = times.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && t - times[lo - 1] < times[lo] - t ? lo - 1 : lo;
  };
  // Each value beside its own column's label: a null (an empty cell) is left out, not shifted into.
  const readout = (row) =>
    [...row.cells]
      .map((td, k) => ({ text: td.textContent, head: heads[k] }))
      .slice(1)
      .filter(({ text }) => text !== "")
      .map(({ text, head }) => `${head.label} ${text}${head.unit ? " " + head.unit : ""}`)
      .join(", ");
  for (const svg of charts.querySelectorAll("svg[data-t0]")) {
    const x0 = Number(svg.dataset.x0);
    const x1 = Number(svg.dataset.x1);
    const t0 = Number(svg.dataset.t0);
    const t1 = Number(svg.dataset.t1);
    const width = svg.viewBox.baseVal.width;
    const timeAt = (event) => {
      const box = svg.getBoundingClientRect();
      const x = ((event.clientX - box.left) / box.width) * width;
      return t0 + ((x - x0) / (x1 - x0)) * (t1 - t0);
    };
    let dragFrom = null;
    svg.addEventListener("pointermove", (event) => {
      const i = nearest(timeAt(event));
      hover.hidden = false;
      hover.textContent = stamp(times[i]) + ": " + readout(rows[i]);
    });
    svg.addEventListener("pointerdown", (event) => (dragFrom = timeAt(event)));
    svg.addEventListener("pointerup", (event) => {
      const to = timeAt(event);
      // A click, or a drag of less than two hours, is no span to open.
      if (dragFrom === null || Math.abs(to - dragFrom) < 2 * 3600e3) return (dragFrom = null);
      const day = (t) => new Date(t + offset).toISOString().slice(0, 10);
      const [a, b] = [Math.min(dragFrom, to), Math.max(dragFrom, to)];
      const url = new URL(location.href);
      url.searchParams.set("range", "custom");
      url.searchParams.set("start", day(a));
      url.searchParams.set("end", day(b + 86400e3));
      url.searchParams.delete("interval");
      location.assign(url.toString());
    });
  }
}
