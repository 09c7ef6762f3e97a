/**
 * Dashboard sessions. A session id is 32 random bytes, sent only in the cookie; the server keeps
 * its SHA-256 and nothing that could be replayed. Sessions live in memory and in
 * `DATA_DIR/sessions.json` (mode 0600), so a restart signs no one out: creating or ending one is
 * written before the response, the last-seen times at most once a minute and on shutdown.
 * A session ends after 12 hours idle or 7 days in all. The server process is the file's only
 * writer (several processes share sessions through Redis instead, see the README).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../files/atomic-write.ts";

export const SESSIONS_FILE = "sessions.json";
export const IDLE_MS = 12 * 3_600_000;
export const LIFETIME_MS = 7 * 24 * 3_600_000;
const SEEN_FLUSH_MS = 60_000;

const SessionSchema = v.object({
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  account: v.string(),
  created: v.number(),
  seen: v.number(),
});
const SessionFileSchema = v.object({ format: v.literal(1), sessions: v.array(SessionSchema) });

/** One signed-in browser: whose, and when it began and was last seen (UTC ms). */
export type Session = v.InferOutput<typeof SessionSchema>;

export interface SessionStore {
  /** Begins a session; the id is for the cookie only. Written to disk before it resolves. */
  create(account: string): Promise<{ id: string; session: Session }>;
  /** The live session with that id (its last-seen time is updated), or undefined. */
  find(id: string | undefined): Session | undefined;
  /** Ends the session with that id. */
  end(id: string): Promise<void>;
  /** Ends every session of an account (a password change, a disable). */
  endAll(account: string): Promise<void>;
  /** Writes the sessions now (on shutdown, and from a timer for last-seen times). */
  flush(): Promise<void>;
  /** How many sessions are held. */
  readonly size: number;
}

/** The stored form of a session id. */
export function sessionHash(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

function load(path: string, onError: (error: unknown) => void): Map<string, Session> {
  if (!existsSync(path)) return new Map();
  try {
    const result = v.safeParse(SessionFileSchema, JSON.parse(readFileSync(path, "utf8")));
    if (!result.success) throw new SyntaxError(result.issues[0].message);
    return new Map(result.output.sessions.map((s) => [s.hash, s]));
  } catch (error) {
    // Sessions are disposable: a damaged file signs everyone out, and the next write replaces it.
    onError(
      new SyntaxError(
        `Cannot read "${SESSIONS_FILE}", starting with no sessions: ${(error as Error).message}`,
      ),
    );
    return new Map();
  }
}

/** Opens the sessions in `dir`; `now` is the clock, `onError` hears of failed reads and writes. */
export function createSessionStore(options: {
  dir: string;
  now?: () => number;
  onError?: (error: unknown) => void;
}): SessionStore {
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ((error) => console.error(error));
  const path = join(options.dir, SESSIONS_FILE);
  const sessions = load(path, onError);
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const live = (s: Session, t: number) => t - s.seen < IDLE_MS && t - s.created < LIFETIME_MS;

  function write(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    // Writes are chained, so a slow one never lands after a newer one.
    writing = writing.then(() => {
      const t = now();
      for (const [hash, s] of sessions) if (!live(s, t)) sessions.delete(hash);
      const text = JSON.stringify({ format: 1, sessions: [...sessions.values()] }) + "\n";
      try {
        writeFileAtomic(path, text, { mode: 0o600 });
      } catch (error) {
        onError(error);
      }
    });
    return writing;
  }

  return {
    async create(account) {
      const id = randomBytes(32).toString("base64url");
      const t = now();
      const session: Session = { hash: sessionHash(id), account, created: t, seen: t };
      sessions.set(session.hash, session);
      await write();
      return { id, session };
    },
    find(id) {
      if (id === undefined || id === "") return undefined;
      const session = sessions.get(sessionHash(id));
      const t = now();
      if (session === undefined || !live(session, t)) return undefined;
      session.seen = t;
      timer ??= setTimeout(() => void write(), SEEN_FLUSH_MS).unref();
      return session;
    },
    async end(id) {
      if (sessions.delete(sessionHash(id))) await write();
    },
    async endAll(account) {
      let ended = 0;
      for (const [hash, s] of sessions) if (s.account === account && sessions.delete(hash)) ended++;
      if (ended > 0) await write();
    },
    flush: write,
    get size() {
      return sessions.size;
    },
  };
}
