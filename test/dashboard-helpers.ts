/** Fixtures for dashboard tests: a store with sample data, accounts, a cookie-keeping HTTP client, a browser. */
import { CHROMIUM, CHROMIUM_ARGS } from "./run-helpers.mjs";
import type { DocumentStore } from "../src/files/document-store.ts";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, type TestContext } from "node:test";
import type { Browser } from "playwright-core";
import { createAccount } from "../src/accounts/account-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import {
  ingestTexts,
  skipUnless,
  startServer,
  tempDir,
  type TestServer,
  TEST_KEY_ACCOUNT,
  type TestServerOptions,
} from "./helpers.ts";

/** A chosen password that passes the rules. */
export const PASSWORD = "correct horse battery";

/**
 * The cheapest parameters a stored hash may have (the schema's floor): a test account's sign-in
 * costs about 3 ms and 1 MiB, not 170 ms and 32 MiB. The dashboard's own password forms, the CLI
 * and the decoy keep the real ones.
 */
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };

/**
 * A store with ten days of generated data, and a running server over it. The account of the
 * server's own test key ("tests") exists too, as every key's account does in use (the keys CLI
 * refuses any other), so that the admin pages show no key of a missing account.
 */
export async function dashboardServer(
  t: TestContext,
  options: TestServerOptions = {},
): Promise<{ dir: string; server: TestServer }> {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-06-01", days: 10 }) });
  const server = await startServer(t, dir, options);
  await account(dir, TEST_KEY_ACCOUNT);
  return { dir, server };
}

/** Creates an account with `PASSWORD` (or a one-time password, returned), in `documents` when given. */
export async function account(
  dir: string,
  name: string,
  options: { admin?: boolean; oneTime?: boolean; now?: () => number; documents?: DocumentStore } = {},
): Promise<string> {
  const { oneTimePassword } = await createAccount(dir, {
    name,
    admin: options.admin,
    documents: options.documents,
    password: options.oneTime ? undefined : PASSWORD,
    now: options.now === undefined ? undefined : new Date(options.now()),
    scrypt: TEST_SCRYPT,
  });
  return oneTimePassword ?? PASSWORD;
}

/**
 * A minimal browser over fetch: keeps cookies, follows nothing, reads forms' CSRF tokens. With
 * `retry` (such as redis-helpers' `answered`), every request is sent through it, which may send
 * it again.
 */
export class Client {
  readonly cookies = new Map<string, string>();
  readonly base: string;
  readonly #retry: (send: () => Promise<Response>) => Promise<Response>;
  constructor(base: string, options: { retry?: (send: () => Promise<Response>) => Promise<Response> } = {}) {
    this.base = base;
    this.#retry = options.retry ?? ((send) => send());
  }

  #remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  #cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await this.#retry(() =>
      fetch(this.base + path, { redirect: "manual", headers: { ...this.#cookieHeader(), ...headers } }),
    );
    this.#remember(res);
    return res;
  }

  async post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const res = await this.#retry(() =>
      fetch(this.base + path, {
        method: "POST",
        redirect: "manual",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          ...this.#cookieHeader(),
          ...headers,
        },
        body: new URLSearchParams(fields).toString(),
      }),
    );
    this.#remember(res);
    return res;
  }

  /** The CSRF token in the page at `path`. */
  async token(path: string): Promise<string> {
    const text = await (await this.get(path)).text();
    const match = /name="csrf" value="([^"]+)"/.exec(text);
    if (match === null) throw new Error(`No CSRF token on ${path}`);
    return match[1]!;
  }

  /** Signs in; resolves to the response of the sign-in POST. */
  async signIn(username: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
    const csrf = await this.token("/dashboard/sign-in");
    return this.post("/dashboard/sign-in", { csrf, username, password }, headers);
  }
}

/** Why browser tests cannot run when Debian's chromium is not there. */
export const BROWSER_SKIP = skipUnless(
  existsSync(CHROMIUM),
  `chromium not found at ${CHROMIUM}; install it with: apt-get install -y chromium (make test does this when run as root)`,
);

/**
 * The run's Chromium (`GDS_TEST_BROWSER`, which run-suite.mjs launched), connected to; or, for a
 * file run alone, Debian's chromium launched for this process. The caller closes it (a connection
 * closes, the run's browser stays). Loaded here, not at the top, so that the tests that use no
 * browser do not load playwright-core.
 */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  const shared = process.env.GDS_TEST_BROWSER;
  if (shared !== undefined) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
}

/**
 * One browser for the tests of a file: connected (or launched) before them (unless BROWSER_SKIP),
 * closed after. Returns its getter, for use inside the tests.
 */
export function sharedBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    if (!BROWSER_SKIP) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** Where screenshots go, for a person to look at (ignored by git). */
export const SCREENSHOTS = join(import.meta.dirname, "..", "test-output");

/** Makes the screenshot folder. */
export function screenshotDir(): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return SCREENSHOTS;
}

/** A clock a test moves by hand. */
export function clock(start = Date.parse("2026-01-01T00:00:00Z")) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** A dashboard server with the account `analyst` (admin if asked), signed in by a cookie-keeping client. */
export async function signedIn(t: Parameters<typeof dashboardServer>[0], options: { admin?: boolean } = {}) {
  const c = clock();
  const { dir, server } = await dashboardServer(t, { now: c.now });
  await account(dir, "analyst", { ...options, now: c.now });
  const client = new Client(server.url);
  const res = await client.signIn("analyst", PASSWORD);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/dashboard");
  return { c, dir, server, client };
}
