import { test } from "node:test";
import assert from "node:assert/strict";
import { csvLinkOf } from "../src/pull/page-link.ts";
import { portalRoot, uploadFolderUrls } from "../src/pull/portal-files.ts";

const PAGE = "https://www.eskom.co.za/dataportal/supply-side/station-build-up-for-the-last-7-days/";

test("a page's CSV link is its first <a href> ending in .csv on its own host, made absolute", () => {
  const html = `<html><body>
    <nav><a href="/dataportal/">Home</a> <a href='../../demand-side/'>Demand</a></nav>
    <a href="https://elsewhere.example/data/Station_Build_Up.csv">a mirror</a>
    <a class="button" href="/dataportal/wp-content/uploads/2023/05/Station_Build_Up-1.csv?ver=2#top">Download CSV</a>
    <a href="/dataportal/wp-content/uploads/2023/04/Station_Build_Up.csv">older</a>
  </body></html>`;
  assert.equal(
    csvLinkOf(html, PAGE),
    "https://www.eskom.co.za/dataportal/wp-content/uploads/2023/05/Station_Build_Up-1.csv?ver=2",
  );
});

test("relative links, entities, unquoted values and upper-case extensions are read", () => {
  assert.equal(
    csvLinkOf(`<A HREF=files/A.CSV>x</A>`, PAGE),
    "https://www.eskom.co.za/dataportal/supply-side/station-build-up-for-the-last-7-days/files/A.CSV",
  );
  assert.equal(
    csvLinkOf(`<a data-x="1" href="/x.csv?a=1&amp;b=2">x</a>`, PAGE),
    "https://www.eskom.co.za/x.csv?a=1&b=2",
  );
});

test("a page with no CSV link on its host, or only broken ones, has none", () => {
  assert.equal(csvLinkOf("<p>Error 404 - www.eskom.co.za</p>", PAGE), undefined);
  assert.equal(csvLinkOf(`<a href="http://[bad">x.csv</a><a href="mailto:a@b.csv">m</a>`, PAGE), undefined);
  assert.equal(csvLinkOf(`<a href="javascript:alert(1)//x.csv">x</a>`, PAGE), undefined);
});

test("the upload folders are this SAST month's and the last, across a year's end", () => {
  const root = "https://www.eskom.co.za/dataportal/";
  // 2023-01-31 22:30 UTC is already February in SAST.
  assert.deepEqual(uploadFolderUrls(root, "Hourly_Generation.csv", Date.parse("2023-01-31T22:30:00Z")), [
    `${root}wp-content/uploads/2023/02/Hourly_Generation.csv`,
    `${root}wp-content/uploads/2023/01/Hourly_Generation.csv`,
  ]);
  assert.deepEqual(uploadFolderUrls(root, "x.csv", Date.parse("2023-01-15T00:00:00Z")), [
    `${root}wp-content/uploads/2023/01/x.csv`,
    `${root}wp-content/uploads/2022/12/x.csv`,
  ]);
});

test("PORTAL_URL is the portal's root; an old upload-folder value still works, with a note", () => {
  assert.deepEqual(portalRoot("https://www.eskom.co.za/dataportal"), {
    root: "https://www.eskom.co.za/dataportal/",
  });
  const old = portalRoot("https://www.eskom.co.za/dataportal/wp-content/uploads");
  assert.equal(old.root, "https://www.eskom.co.za/dataportal/");
  assert.match(old.note!, /upload folder.*set PORTAL_URL=https:\/\/www\.eskom\.co\.za\/dataportal\//);
});
