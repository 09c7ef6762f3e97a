/**
 * `src/http/api-response.ts`: the headers the pipeline adds wait and go out with the writer's
 * head, the writer's value replacing a waiting one of the same name except `Vary`, which joins.
 * Checked on the wire, through a real `node:http` server with the class installed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, get, type IncomingMessage, ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { addHeader, ApiResponse, sameName } from "../src/http/api-response.ts";
import { createApp } from "../src/http/app.ts";

async function rawHead(t: test.TestContext, handler: (res: ServerResponse) => void): Promise<string[]> {
  const server = createServer({ ServerResponse: ApiResponse }, (_req, res) => handler(res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`http://127.0.0.1:${port}/`, resolve).on("error", reject),
  );
  res.resume();
  const lines: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!;
    if (!["Date", "Connection", "Keep-Alive"].includes(name)) lines.push(`${name}: ${res.rawHeaders[i + 1]}`);
  }
  return [String(res.statusCode), ...lines];
}

test("waiting headers come first, in order, with the writer's object headers after them", async (t) => {
  const head = await rawHead(t, (res) => {
    addHeader(res, "X-Request-Id", "r-1");
    addHeader(res, "Vary", "Origin");
    addHeader(res, "RateLimit", "old");
    addHeader(res, "RateLimit", '"s";r=1;t=60');
    res.writeHead(200, { "Content-Type": "text/plain", vary: "Accept", "Content-Length": 2 });
    res.end("ok");
  });
  assert.deepEqual(head, [
    "200",
    "X-Request-Id: r-1",
    "Vary: Origin, Accept",
    'RateLimit: "s";r=1;t=60',
    "Content-Type: text/plain",
    "Content-Length: 2",
  ]);
});

test("the writer's value replaces a waiting one; flat and nested arrays and a reason phrase work", async (t) => {
  const flat = await rawHead(t, (res) => {
    addHeader(res, "Cache-Control", "no-cache");
    res.writeHead(201, "Made", ["cache-control", "no-store", "Set-Cookie", ["a=1", "b=2"]]);
    res.end();
  });
  assert.deepEqual(flat, [
    "201",
    "Cache-Control: no-store",
    "Set-Cookie: a=1",
    "Set-Cookie: b=2",
    "Transfer-Encoding: chunked",
  ]);
  const nested = await rawHead(t, (res) => {
    addHeader(res, "X-A", "1");
    res.writeHead(200, [["X-B", "2"]] as unknown as string[]);
    res.end();
  });
  assert.deepEqual(nested, ["200", "X-A: 1", "X-B: 2", "Transfer-Encoding: chunked"]);
});

test("a waiting header named again after one node:http reads is still replaced, not sent twice", async (t) => {
  const head = await rawHead(t, (res) => {
    addHeader(res, "X-A", "waiting");
    addHeader(res, "X-B", "kept");
    res.writeHead(200, ["Content-Length", 2, "X-C", "new", "x-a", "writer's", "x-b", "writer's too"]);
    res.end("ok");
  });
  assert.deepEqual(head, ["200", "X-A: writer's", "X-B: writer's too", "Content-Length: 2", "X-C: new"]);
});

test("a head of many names still merges repeated ones, and writes the others once", async (t) => {
  const many = Array.from({ length: 32 }, (_, i) => [`X-Fill-${i}`, String(i)]).flat();
  await rawHead(t, (res) => {
    res.writeHead(200, [...many, "Content-Length", 0]);
    res.end();
  });
  const repeated = await rawHead(t, (res) => {
    addHeader(res, "X-Late-A", "waiting");
    addHeader(res, "X-Late-B", "kept");
    res.writeHead(200, ["X-Late-C", "new", "x-late-a", "writer's", "Content-Length", 0]);
    res.end();
  });
  assert.deepEqual(repeated, [
    "200",
    "X-Late-A: writer's",
    "X-Late-B: kept",
    "X-Late-C: new",
    "Content-Length: 0",
  ]);
  const distinct = await rawHead(t, (res) => {
    addHeader(res, "X-Late-A", "1");
    res.writeHead(200, ["X-Late-D", "2", "Content-Length", 0]);
    res.end();
  });
  assert.deepEqual(distinct, ["200", "X-Late-A: 1", "X-Late-D: 2", "Content-Length: 0"]);
});

test("an implicit head (end without writeHead) and setHeader still carry the waiting headers", async (t) => {
  const head = await rawHead(t, (res) => {
    addHeader(res, "X-Request-Id", "r-2");
    res.setHeader("X-Set", "yes");
    res.statusCode = 404;
    res.end("gone");
  });
  assert.deepEqual(head, ["404", "X-Set: yes", "X-Request-Id: r-2", "Content-Length: 4"]);
});

test("waiting headers are sent once, and a response that never adds one is untouched", async (t) => {
  const head = await rawHead(t, (res) => {
    const api = res as ApiResponse;
    api.wait("X-Once", "1");
    assert.equal(api.waiting("x-once"), "1");
    res.writeHead(200, { "Content-Length": 0 });
    assert.equal(api.waiting("X-Once"), undefined, "nothing waits after the head is written");
    assert.throws(() => api.wait("X-Late", "1"), { code: "ERR_HTTP_HEADERS_SENT" });
    res.end();
  });
  assert.deepEqual(head, ["200", "X-Once: 1", "Content-Length: 0"]);
  assert.deepEqual(
    await rawHead(t, (res) => {
      res.writeHead(204);
      res.end();
    }),
    ["204"],
  );
});

test("on a plain ServerResponse addHeader sets the header, appending to Vary", () => {
  const set: [string, unknown][] = [];
  const res = {
    setHeader: (k: string, v: unknown) => set.push([k, v]),
    appendHeader: (k: string, v: unknown) => set.push([`+${k}`, v]),
  } as unknown as ServerResponse;
  addHeader(res, "X-A", "1");
  addHeader(res, "Vary", "Origin");
  assert.deepEqual(set, [
    ["X-A", "1"],
    ["+Vary", "Origin"],
  ]);
});

test("header names compare ignoring ASCII case only: token characters one bit apart stay distinct", () => {
  assert.equal(sameName("Content-Type", "content-TYPE"), true);
  assert.equal(sameName("Vary", "VARY"), true);
  assert.equal(sameName("X-Request-Id", "Content-Type"), false, "same length, different names");
  assert.equal(sameName("ETag", "Vary"), false);
  // '^' and '~', '@' and '`', '[' and '{' differ by the case bit but are not letters.
  assert.equal(sameName("X-^", "X-~"), false);
  assert.equal(sameName("@a", "`a"), false);
  assert.equal(sameName("[", "{"), false);
  assert.equal(sameName("a", "ab"), false);
  // Every pair of ASCII characters agrees with lower-casing.
  for (let x = 0x21; x < 0x7f; x++) {
    for (let y = 0x21; y < 0x7f; y++) {
      const a = String.fromCharCode(x);
      const b = String.fromCharCode(y);
      assert.equal(sameName(a, b), a.toLowerCase() === b.toLowerCase(), `${a} ${b}`);
    }
  }
});

// What a server sends for one request, byte for byte, with the Date field's value blanked.
async function rawBytes(
  t: test.TestContext,
  ServerResponseClass: typeof ServerResponse,
  write: (res: ServerResponse) => void,
): Promise<string> {
  const server = createServer({ ServerResponse: ServerResponseClass }, (_req, res) => {
    try {
      write(res);
      if (!res.writableEnded) res.end(); // a writer that only writes a head (or should have thrown)
    } catch (error) {
      const code = (error as { code?: string }).code ?? String(error);
      if (!res.headersSent) res.writeHead(500, { "Content-Length": code.length }).end(code);
      else res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const socket = connect(port, "127.0.0.1");
  socket.write("GET / HTTP/1.1\r\nHost: here\r\nConnection: close\r\n\r\n");
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("latin1")
    .replace(/\r\nDate: [^\r]*/, "\r\nDate: -");
}

// Runs `write`; when node:http refuses it, writes a 500 (with `reason`, if given). The error's
// code is left out: node names the same refusal differently on its setHeader and writeHead paths,
// and from one Node line to the next.
function orErrorHead(res: ServerResponse, write: () => void, reason?: string): void {
  try {
    write();
  } catch {
    if (reason !== undefined) res.statusMessage = reason;
    res.writeHead(500, ["X-Error", "refused", "Content-Length", 0]);
  }
}

test("the head is the one node:http writes for the same headers set with setHeader, byte for byte", async (t) => {
  const writers: [string, (res: ServerResponse) => void][] = [
    [
      "the service's usual head",
      (res) => {
        addHeader(res, "X-Request-Id", "3f9a0c1d2e4b-1");
        addHeader(res, "RateLimit", '"normalized_data";r=9;t=60');
        res.writeHead(200, [
          "Vary",
          "Accept, Accept-Encoding",
          "ETag",
          '"abc"',
          "Content-Type",
          "application/json",
          "Content-Length",
          2,
        ]);
        res.end("{}");
      },
    ],
    [
      "a 304, no length",
      (res) => {
        addHeader(res, "X-Request-Id", "r");
        res.writeHead(304, ["ETag", '"abc-gz"', "Cache-Control", "private, max-age=60"]);
        res.end();
      },
    ],
    [
      "names node:http reads, in the middle and in any case, and numbers",
      (res) => {
        res.writeHead(200, [
          "X-A",
          1,
          "connection",
          "close",
          "X-B",
          "after",
          "DATE",
          "Thu, 01 Jan 2026 00:00:00 GMT",
          "Keep-Alive",
          "timeout=1",
          "Content-Length",
          "3",
        ]);
        res.end("abc");
      },
    ],
    [
      "a Content-Disposition with a Latin-1 name, and chunked",
      (res) => {
        res.writeHead(200, [
          "X-A",
          "é",
          "Content-Disposition",
          'attachment; filename="é.csv"',
          "Transfer-Encoding",
          "chunked",
        ]);
        res.end("x");
      },
    ],
    [
      "repeated names, arrays and a reason phrase",
      (res) => {
        res.writeHead(201, "Made", ["X-A", "1", "x-a", "2", "Set-Cookie", ["a=1", "b=2"], "Vary", "Accept"]);
        res.end();
      },
    ],
    [
      "headers as an object",
      (res) => {
        addHeader(res, "X-Request-Id", "r");
        res.writeHead(200, { "X-A": "1", "Content-Length": 0 });
        res.end();
      },
    ],
    [
      "appendHeader first",
      (res) => {
        res.appendHeader("X-Set", "1");
        res.writeHead(200, ["X-A", "1", "Content-Length", 0]);
        res.end();
      },
    ],
    [
      "setHeader first",
      (res) => {
        res.setHeader("X-Set", "1");
        res.writeHead(200, ["X-A", "1", "Content-Length", 0]);
        res.end();
      },
    ],
    [
      "the pipeline's own headers: the request id, nosniff and the RateLimit count",
      (res) => {
        addHeader(res, "X-Request-Id", "3f9a0c1d2e4b-2");
        addHeader(res, "X-Content-Type-Options", "nosniff");
        addHeader(res, "RateLimit", '"normalized_data";r=8;t=60');
        res.writeHead(200, ["Vary", "Accept", "Content-Type", "application/json", "Content-Length", 2]);
        res.end("{}");
      },
    ],
    [
      "a waiting value replaced by a bad one before the head",
      (res) => {
        try {
          addHeader(res, "X-A", "ok");
          addHeader(res, "X-A", "a\u0001"); // a plain response refuses it here, ours at writeHead
          res.writeHead(200, ["Content-Length", 0]);
        } catch (error) {
          res.statusMessage = "Refused";
          res.writeHead(500, ["X-A", (error as { code: string }).code, "Content-Length", 0]);
        }
      },
    ],
    [
      "waiting headers, then the writer's with an array value in the middle",
      (res) => {
        addHeader(res, "X-Request-Id", "r-9");
        res.writeHead(200, ["X-A", "1", "Set-Cookie", ["a=1", "b=2"], "X-B", "2", "Content-Length", 0]);
      },
    ],
    [
      "a waiting header node:http reads, between others",
      (res) => {
        addHeader(res, "X-A", "1");
        addHeader(res, "Content-Disposition", "attachment");
        addHeader(res, "X-B", "2");
        res.writeHead(200, ["X-C", "3", "Content-Length", 0]);
      },
    ],
    // Repeated heads, one value changing at a time.
    ...[
      ["1", "1", "1"],
      ["1", "1", "1"],
      ["1", "2", "1"],
      ["1", "1", "1"],
      ["2", "1", "1"],
      ["2", "1", "2"],
      ["1", "1", "1"],
    ].map(([a, b, c], i): [string, (res: ServerResponse) => void] => [
      `repeated head ${i}`,
      (res) => {
        addHeader(res, "X-Run-A", a!);
        addHeader(res, "X-Request-Id", `r-${i}`);
        res.writeHead(200, ["X-Run-A2", a!, "X-Run-B", b!, "X-Run-C", c!, "Content-Length", 0]);
      },
    ]),
    ["a name that is not a string", (res) => res.writeHead(200, ["X-A", "ok", 5, "x"])],
    [
      "a name that is not a string, after waiting headers",
      (res) => {
        addHeader(res, "X-Request-Id", "r-5");
        // The error's head still carries the request id, on both.
        orErrorHead(res, () => res.writeHead(200, [5, "x", "X-A", "ok"]), "Refused");
      },
    ],
    [
      "a bad status after waiting headers: the error's head still carries them",
      (res) => {
        addHeader(res, "X-Request-Id", "r-6");
        addHeader(res, "X-Content-Type-Options", "nosniff");
        orErrorHead(res, () => res.writeHead(1000, ["X-A", "ok"]));
      },
    ],
    ["a value with a line break", (res) => res.writeHead(200, ["X-A", "ok", "X-B", "a\r\nX-Evil: 1"])],
    ["a value with a control character", (res) => res.writeHead(200, ["X-A", "a\u0001"])],
    ["a value beyond Latin-1", (res) => res.writeHead(200, ["X-A", "ok", "X-B", "\u0100"])],
    ["a bad name", (res) => res.writeHead(200, ["X-A", "ok", "X B", "1"])],
    ["an empty name", (res) => res.writeHead(200, ["", "1"])],
    ["an odd list", (res) => res.writeHead(200, ["X-A", "ok", "X-B"])],
    ["a bad status", (res) => res.writeHead(1000, ["X-A", "ok"])],
  ];
  for (const [what, write] of writers) {
    const ours = await rawBytes(t, ApiResponse, write);
    const nodes = await rawBytes(t, ServerResponse, write);
    assert.equal(ours, nodes, what);
  }
  // And the first is not trivially equal: it is a real head.
  assert.match(
    await rawBytes(t, ApiResponse, writers[0]![1]),
    /^HTTP\/1\.1 200 OK\r\nX-Request-Id: 3f9a0c1d2e4b-1\r\nRateLimit: /,
  );
});

test("a waiting header the writer replaced with a bad value is back, as it was, on the error's head", async (t) => {
  const bytes = await rawBytes(t, ApiResponse, (res) => {
    addHeader(res, "X-A", "ok");
    orErrorHead(res, () => res.writeHead(200, ["x-a", "a\r\nX-Evil: 1"]));
  });
  assert.match(bytes, /^HTTP\/1\.1 500 [^\r]*\r\nX-A: ok\r\nX-Error: refused\r\n/);
  assert.doesNotMatch(bytes, /X-Evil/);
});

test("after a failed writeHead, nothing of the writer's is left over for the next head", async (t) => {
  const bytes = await rawBytes(t, ApiResponse, (res) => {
    assert.throws(() => res.writeHead(1000, ["X-Left", "over"]), { code: "ERR_HTTP_INVALID_STATUS_CODE" });
    res.writeHead(200, ["Content-Length", 0]);
    res.end();
  });
  assert.doesNotMatch(bytes, /X-Left/);
  assert.match(bytes, /^HTTP\/1\.1 200 OK\r\nContent-Length: 0\r\n/);
});

test("a handler whose head node:http refuses gets a 500 that still carries the request id", async (t) => {
  const app = createApp({
    routes: [
      {
        path: "/bad",
        methods: ["GET"],
        scope: null,
        handler: (_req, res) => {
          res.writeHead(200, ["X-Bad", "a\u0001"]);
          res.end();
        },
      },
    ],
    logError: () => {},
  });
  const server = createServer({ ServerResponse: ApiResponse }, app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/bad`, { headers: { "X-Request-Id": "trace-1" } });
  assert.equal(res.status, 500);
  assert.equal(res.headers.get("x-request-id"), "trace-1");
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.equal(res.headers.get("x-bad"), null);
});
