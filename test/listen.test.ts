/**
 * Listening where the settings say (src/listen.ts): the port the system chose for port 0, and the
 * line an operator reads when the address cannot be had, naming the setting to change.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { type ListenAt, listenAt, listenFailure } from "../src/listen.ts";

const at = (host: string, port: number): ListenAt => ({
  host,
  port,
  hostSetting: "HOST",
  portSetting: "PORT",
});

/** What listenAt reports for `where`: the port it listens on, or the reason it cannot. */
function tryListen(t: { after: (fn: () => void) => void }, where: ListenAt) {
  const server = createServer();
  t.after(() => server.close());
  return new Promise<{ port: number } | { why: string }>((resolve) =>
    listenAt(
      server,
      where,
      (port) => resolve({ port }),
      (why) => resolve({ why }),
    ),
  );
}

test("port 0 listens on the port the system chose, and says which", async (t) => {
  const result = await tryListen(t, at("127.0.0.1", 0));
  assert.ok("port" in result && result.port > 0, JSON.stringify(result));
});

test("a port in use, a host not of this machine: one line naming the setting to change", async (t) => {
  const held = createServer().listen(0, "127.0.0.1");
  await once(held, "listening");
  t.after(() => held.close());
  const port = (held.address() as AddressInfo).port;
  assert.deepEqual(await tryListen(t, at("127.0.0.1", port)), {
    why: `Cannot listen on 127.0.0.1:${port} (HOST, PORT): another process listens there. Stop it, or set PORT to a free port.`,
  });
  // 192.0.2.1 is documentation's address (RFC 5737): no machine's own.
  assert.deepEqual(await tryListen(t, at("192.0.2.1", 8000)), {
    why: "Cannot listen on 192.0.2.1:8000 (HOST, PORT): 192.0.2.1 is not an address of this machine. Set HOST to one of its addresses.",
  });
});

test("a privileged port without the privilege, and any other reason, say so", () => {
  const error = (code: string, message: string) => Object.assign(new Error(message), { code });
  assert.equal(
    listenFailure(error("EACCES", "listen EACCES: permission denied 0.0.0.0:80"), at("0.0.0.0", 80)),
    "Cannot listen on 0.0.0.0:80 (HOST, PORT): a port below 1024 needs privileges this process does not have. Set PORT to 1024 or above (a reverse proxy can take 80 and 443).",
  );
  assert.equal(
    listenFailure(error("EACCES", "listen EACCES: permission denied 0.0.0.0:8080"), at("0.0.0.0", 8080)),
    "Cannot listen on 0.0.0.0:8080 (HOST, PORT): listen EACCES: permission denied 0.0.0.0:8080",
  );
});
