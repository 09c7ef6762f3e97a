/**
 * A stand-in for the Eskom Data Portal on loopback, for the pull's tests: a WordPress-like graph
 * page per file that links the file's current upload (`/dataportal/wp-content/uploads/YYYY/MM/
 * Name.csv`, a folder and a name that move), conditional GETs on the uploads, and misbehaviour on
 * demand. Nothing here reaches the internet.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import { portalFile } from "../src/pull/portal-files.ts";

/** Handles a request instead of the stand-in; returns true when it answered. */
export type Behaviour = (req: IncomingMessage, res: ServerResponse) => boolean | void;

/** One request as the stand-in saw it. */
export interface SeenRequest {
  readonly path: string;
  readonly ifNoneMatch?: string;
  readonly ifModifiedSince?: string;
}

export interface PortalStandIn {
  /** The portal's root, as PORTAL_URL takes it. */
  readonly root: string;
  readonly requests: SeenRequest[];
  /**
   * Makes `body` the current download of `file`: its page links it at `folder` (YYYY/MM) under
   * `name` (the file's own name by default). The previous upload of the file stops answering
   * unless `keepOld`. Returns the upload's URL.
   */
  publish(
    file: string,
    body: Buffer | string,
    options?: { folder?: string; name?: string; contentType?: string; keepOld?: boolean },
  ): string;
  /** Answers requests whose path contains `match` with `behaviour` (the last one set wins). */
  on(match: string, behaviour: Behaviour | undefined): void;
  /** The URL path of `file`'s page. */
  pagePath(file: string): string;
}

const ERROR_PAGE =
  "<!DOCTYPE html>\n<html>\n<head><title>Error 404 - www.eskom.co.za</title></head>\n<body>Not found</body>\n</html>\n";

function page(root: string, link: string | undefined): string {
  return `<!DOCTYPE html><html><head><title>Eskom Data Portal</title></head><body>
<nav><a href="${root}">Home</a> <a href="${root}supply-side/">Supply side</a> <a href="/about/">About</a></nav>
<a href="https://mirror.example/dataportal/wp-content/uploads/Station_Build_Up.csv">not the portal</a>
<figure class="graph"><img src="${root}wp-content/uploads/graph.png" alt="graph"></figure>
${link === undefined ? "<p>No data available.</p>" : `<p><a class="download" href="${link}">Download the data (CSV)</a></p>`}
<a href="${root}wp-content/uploads/methodology.pdf">Methodology</a>
</body></html>`;
}

/** Starts a stand-in on a free loopback port, closed when the test ends. */
export async function startPortal(t: TestContext): Promise<PortalStandIn> {
  const uploads = new Map<string, { body: Buffer; contentType: string }>();
  const current = new Map<string, string>(); // file -> upload path
  const behaviours: [string, Behaviour][] = [];
  const requests: SeenRequest[] = [];
  let root = "";
  const pagePath = (file: string) => `/dataportal/${portalFile(file)!.page}`;

  const server = createServer((req, res) => {
    const path = new URL(req.url!, "http://x").pathname;
    requests.push({
      path,
      ifNoneMatch: req.headers["if-none-match"],
      ifModifiedSince: req.headers["if-modified-since"],
    });
    for (const [match, behaviour] of [...behaviours].reverse()) {
      if (path.includes(match) && behaviour(req, res)) return;
    }
    const file = [...current.keys()].find((f) => pagePath(f) === path);
    if (file !== undefined) {
      const html = page(root, new URL(current.get(file)!, root).href);
      res.writeHead(200, { "Content-Type": "text/html; charset=UTF-8" }).end(html);
      return;
    }
    const upload = uploads.get(path);
    if (upload === undefined) {
      res.writeHead(404, { "Content-Type": "text/html" }).end(ERROR_PAGE);
      return;
    }
    const etag = `"${createHash("sha256").update(upload.body).digest("hex").slice(0, 16)}"`;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { ETag: etag }).end();
      return;
    }
    res.writeHead(200, {
      "Content-Type": upload.contentType,
      "Content-Length": upload.body.length,
      ETag: etag,
      "Last-Modified": "Tue, 21 Feb 2023 09:00:00 GMT",
    });
    res.end(upload.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  );
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dataportal/`;
  return {
    root,
    requests,
    pagePath,
    publish(file, body, options = {}) {
      const path = `/dataportal/wp-content/uploads/${options.folder ?? "2023/02"}/${options.name ?? file}`;
      const before = current.get(file);
      if (before !== undefined && before !== path && !options.keepOld) uploads.delete(before);
      const bytes = typeof body === "string" ? Buffer.from(body) : body;
      uploads.set(path, { body: bytes, contentType: options.contentType ?? "text/csv" });
      current.set(file, path);
      return new URL(path, root).href;
    },
    on(match, behaviour) {
      if (behaviour === undefined) {
        for (let i = behaviours.length - 1; i >= 0; i--)
          if (behaviours[i]![0] === match) behaviours.splice(i, 1);
      } else behaviours.push([match, behaviour]);
    },
  };
}
