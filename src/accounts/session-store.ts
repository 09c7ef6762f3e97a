/**
 * Dashboard sessions. A session id is 32 random bytes, sent only in the cookie; the server keeps
 * its SHA-256 and nothing that could be replayed. Sessions live in memory and in
 * `DATA_DIR/sessions.json` (mode 0600), so a restart signs no one out: creating or ending one is
 * written before the response, the last-seen times at most once a minute and on shutdown.
 * A session ends after 12 hours idle or 7 days in all. Every change goes through the document
 * store (`files/document-store.ts`): merged into the file under its lock, or with Redis into the
 * copy every process follows; the file is reread when another writer changed it.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import * as v from "valibot";
import { fileStamp } from "../files/file-stamp.ts";
import type { DocumentStore, KeptFile } from "../files/document-store.ts";
import { catchUpWith, type KeptDocument, keptDocument } from "../files/kept-document.ts";

export const SESSIONS_FILE = "sessions.json";
const SESSIONS_DOCUMENT: KeptFile = { name: SESSIONS_FILE, lock: ".sessions.lock" };
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
  /**
   * Takes the sessions as the document store holds them now: with Redis, a session another
   * process began a moment ago, before its notice has reached this one. For a cookie `find` does
   * not know; at most one read per `CATCH_UP_MS`, shared by the requests that ask meanwhile.
   * Rejects when the sessions cannot be read (`SharedStateUnavailable` while Redis is slow or
   * away): the cookie may be live, so it is answered as unavailable, not as signed out.
   */
  catchUp(): Promise<void>;
  /** How many sessions are held. */
  readonly size: number;
}

/** The stored form of a session id. */
export function sessionHash(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

function parseSessions(text: string): Map<string, Session> {
  const result = v.safeParse(SessionFileSchema, JSON.parse(text));
  if (!result.success) throw new SyntaxError(result.issues[0].message);
  return new Map(result.output.sessions.map((s) => [s.hash, s]));
}

function load(path: string, onError: (error: unknown) => void): Map<string, Session> {
  return existsSync(path) ? fromText(readFileSync(path, "utf8"), onError) : new Map<string, Session>();
}

function fromText(text: string | null, onError: (error: unknown) => void): Map<string, Session> {
  if (text === null) return new Map();
  try {
    return parseSessions(text);
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

const serialize = (sessions: ReadonlyMap<string, Session>) =>
  JSON.stringify({ format: 1, sessions: [...sessions.values()] }) + "\n";

const live = (s: Session, t: number) => t - s.seen < IDLE_MS && t - s.created < LIFETIME_MS;

function prune(sessions: Map<string, Session>, t: number): void {
  for (const [hash, s] of sessions) if (!live(s, t)) sessions.delete(hash);
}

/** A change to the sessions, applied to this process's map and to the stored ones. */
type Change = (sessions: Map<string, Session>) => void;

/** What the open sessions keep between calls. */
interface OpenSessions extends KeptDocument {
  sessions: Map<string, Session>;
  /** The file's identity when this process last read or wrote it. */
  stamp: string;
  /** The pending write of last-seen times. */
  timer: NodeJS.Timeout | undefined;
  /** The last write in the chain. */
  writing: Promise<void>;
  /** Why the last write failed, until one succeeds (every write writes every session). */
  failure: unknown;
}

/**
 * Opens the sessions in `dir`; `now` is the clock, `onError` hears of failed reads and writes.
 * Every change is merged into the stored sessions (the other writers' changes kept), and this
 * process rereads its copy when it changes, so a session begun or ended by one process counts in
 * every other at once.
 */
export function createSessionStore(options: {
  dir: string;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** Where changes go: DATA_DIR's file (the default), or with REDIS_URL Redis's copy. */
  documents?: DocumentStore;
}): SessionStore {
  const document = keptDocument(options, SESSIONS_FILE);
  const open: OpenSessions = {
    ...document,
    sessions: load(document.path, document.onError),
    stamp: fileStamp(document.path),
    timer: undefined,
    writing: Promise.resolve(),
    failure: undefined,
  };
  // A catch-up that cannot read rejects: the caller must not take the cookie as ended (a 503).
  const catchUp = catchUpWith(open, SESSIONS_DOCUMENT, (text) => take(open, fromText(text, open.onError)));
  return {
    async create(account) {
      const id = randomBytes(32).toString("base64url");
      const t = open.now();
      const session: Session = { hash: sessionHash(id), account, created: t, seen: t };
      await write(open, (map) => map.set(session.hash, session));
      return { id, session };
    },
    find: (id) => find(open, id),
    async end(id) {
      const hash = sessionHash(id);
      await write(open, (map) => map.delete(hash));
    },
    async endAll(account) {
      await write(open, (map) => {
        for (const [hash, s] of map) if (s.account === account) map.delete(hash);
      });
    },
    // A stop must know when the sessions could not be written.
    flush: () =>
      write(open, seenTimes(open)).then(() => {
        if (open.failure !== undefined) throw open.failure as Error;
      }),
    catchUp,
    get size() {
      return open.sessions.size;
    },
  };
}

function find(open: OpenSessions, id: string | undefined): Session | undefined {
  if (id === undefined || id === "") return undefined;
  reread(open);
  const session = open.sessions.get(sessionHash(id));
  const t = open.now();
  if (session === undefined || !live(session, t)) return undefined;
  session.seen = t;
  open.timer ??= setTimeout(() => void write(open, seenTimes(open)), SEEN_FLUSH_MS).unref();
  return session;
}

// Take what another process (a CLI, or with Redis a server elsewhere) wrote, keeping the later
// last-seen times of this one.
function reread(open: OpenSessions): void {
  if (fileStamp(open.path) === open.stamp) return;
  open.stamp = fileStamp(open.path);
  take(open, load(open.path, open.onError));
}

// The stored sessions become this process's, keeping the later last-seen times of this one.
function take(open: OpenSessions, fresh: Map<string, Session>): void {
  for (const [hash, s] of fresh) {
    const mine = open.sessions.get(hash);
    if (mine !== undefined && mine.seen > s.seen) s.seen = mine.seen;
  }
  open.sessions = fresh;
}

function write(open: OpenSessions, change: Change): Promise<void> {
  if (open.timer !== undefined) clearTimeout(open.timer);
  open.timer = undefined;
  change(open.sessions);
  const { documents, onError } = open;
  // Writes are chained, so a slow one never lands after a newer one.
  open.writing = open.writing.then(async () => {
    const t = open.now();
    try {
      await documents.update(SESSIONS_DOCUMENT, (text) => {
        const merged = fromText(text, onError);
        change(merged);
        prune(merged, t);
        return { text: serialize(merged), result: undefined };
      });
      open.failure = undefined;
    } catch (error) {
      open.failure = error;
      onError(error);
    }
  });
  return open.writing;
}

// The last-seen times of this process, merged into the stored ones (the later wins).
function seenTimes(open: OpenSessions): Change {
  return (target) => {
    for (const [hash, s] of open.sessions) {
      const stored = target.get(hash);
      if (stored !== undefined && stored.seen < s.seen) stored.seen = s.seen;
    }
  };
}
