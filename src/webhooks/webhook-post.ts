/**
 * One attempt of a webhook delivery on the wire: a POST of the signed body to the subscription's
 * address, checked first (`destination.ts`) and connected to as checked, on a connection of its
 * own, with a time limit; of the answer, its status and `Retry-After`, reading at most 64 KB.
 * Nothing here throws: a refused address, an error or a timeout is an answer without a status.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { DAY_MS, retryAfterMs } from "../time.ts";
import { checkDestination, type DestinationRules } from "./destination.ts";
import type { Subscription } from "./subscriptions.ts";

const ANSWER_BYTES = 64 * 1024;

export interface Answer {
  readonly status: number | null;
  readonly retryAfterMs?: number;
  readonly error?: string;
}

// What the network said, in words that name no address: the delivery log is the account's to read.
const NETWORK_FAILURES: Record<string, string> = {
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was reset",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  ETIMEDOUT: "the connection timed out",
  EPIPE: "the connection was closed while sending",
};

function failureOf(error: Error & { code?: string }): string {
  const known = error.code === undefined ? undefined : NETWORK_FAILURES[error.code];
  return known === undefined ? error.message : `${known} (${error.code})`;
}

/** One POST to the address checked, with a time limit and a cap on what is read of the answer. */
export async function post(
  sub: Subscription,
  body: string,
  headers: Record<string, string>,
  rules: DestinationRules,
  timeoutMs: number,
): Promise<Answer> {
  let target;
  try {
    target = await checkDestination(sub.url, rules);
  } catch (error) {
    return { status: null, error: (error as Error).message };
  }
  const send = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(target.url, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      timeout: timeoutMs,
      // A connection of its own per attempt: a kept-alive one that the receiver closes as it is
      // reused (Node's servers close idle ones after 5 s, the first retry's very wait) fails an
      // attempt that never reached the receiver, and the next waits 5 minutes.
      agent: false,
      // The address checked, whichever form the connection asks for (one, or all with autoSelectFamily).
      lookup: (_host, options, done) =>
        options.all === true
          ? (done as (e: null, all: { address: string; family: number }[]) => void)(null, [
              { address: target.address, family: target.family },
            ])
          : done(null, target.address, target.family),
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on("error", (error) => {
      clearTimeout(timer);
      resolve({ status: null, error: failureOf(error) });
    });
    req.on("response", (res) => {
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > ANSWER_BYTES) res.destroy();
      });
      const done = () => {
        clearTimeout(timer);
        // Seconds or an HTTP-date, at most a day.
        const asked = retryAfterMs(res.headers["retry-after"]);
        const retryAfter = asked === undefined ? undefined : Math.min(asked, DAY_MS);
        resolve({
          status: res.statusCode ?? null,
          ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
        });
      };
      res.on("end", done);
      res.on("close", done);
    });
    req.end(body);
  });
}
