/**
 * One stat per request instead of one per watched file. Every file the server watches
 * (`manifest.json`, `keys.json`, `accounts.json`) is replaced by a rename into the data directory,
 * and a rename changes the directory's own modification time. So the server stats the directory
 * once per request (`poll`), and its readers restat their files only when the directory changed.
 *
 * Two safeguards keep this exact. Directory times come from a coarse clock, so a change within the
 * same tick as the last look would not show: a stamp less than `RACY_MS` old is not trusted, and
 * every poll in that window counts as a change (as git treats "racily clean" files). And a file
 * edited in place (not renamed) does not touch the directory: readers restat their files at least
 * once a second anyway (`SAFETY_MS`), so even that is seen within a second.
 *
 * Requests handled in the same turn of the event loop share one stat: any change another process
 * finished before those requests arrived happened before the turn began, so the turn's stat sees
 * it, and the next turn stats afresh. They share one reading of the clock too (`polledAt`): the
 * readers time their once-a-second recheck by it rather than each reading the clock per request.
 */
import { type Stats, statSync } from "node:fs";

const RACY_MS = 100;
/** The longest a reader trusts the directory without restatting its own file. */
export const SAFETY_MS = 1000;

export interface ChangeGate {
  /** Looks at the directory (one stat); returns the version, which grows whenever it may have changed. */
  poll(): number;
  /** The version at the last poll. */
  readonly version: number;
  /** The clock's reading at the last poll (ms); -Infinity before the first. */
  readonly polledAt: number;
}

/** A gate over `dir`; `now` is the clock for the racy window. */
export function createChangeGate(dir: string, now: () => number = Date.now): ChangeGate {
  // The directory as last seen (null: it was missing; undefined: not looked at yet).
  let seen: Stats | null | undefined = undefined;
  let lookedThisTurn = false;
  const nextTurn = () => {
    lookedThisTurn = false;
  };
  // Plain fields, not getters: every request's readers load them, and a getter is a call.
  const gate = {
    version: 0,
    polledAt: -Infinity,
    poll(): number {
      if (lookedThisTurn) return gate.version;
      lookedThisTurn = true;
      setImmediate(nextTurn);
      const polledAt = now();
      gate.polledAt = polledAt;
      const stat = statSync(dir, { throwIfNoEntry: false }) ?? null;
      const racy = stat !== null && polledAt - Math.max(stat.mtimeMs, stat.ctimeMs) < RACY_MS;
      if (seen === undefined || !sameDirectory(seen, stat) || racy) gate.version++;
      seen = stat;
      return gate.version;
    },
  };
  return gate;
}

// The same directory, unchanged: the same inode and times, or missing both times.
function sameDirectory(a: Stats | null, b: Stats | null): boolean {
  if (a === null || b === null) return a === b;
  return a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/**
 * Whether a reader should restat its file now: the gate saw a change since the reader last
 * looked, or a second has passed by the gate's clock, or there is no gate, or it was never polled.
 */
export function createRecheck(gate: ChangeGate | undefined): () => boolean {
  let seen = -1;
  let lastFull = -Infinity;
  return () => {
    if (gate === undefined) return true;
    const t = gate.polledAt;
    if (gate.version === seen && t - lastFull < SAFETY_MS && t !== -Infinity) return false;
    seen = gate.version;
    lastFull = t;
    return true;
  };
}
