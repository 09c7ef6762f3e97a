/**
 * The server's webhook deliveries in the background (docs/webhooks.md). With DATA_DIR's outbox,
 * one process per data directory sends them, the one holding `webhooks/deliverer.pid` (a live
 * pid; a dead one's file is taken over), so that with several workers each delivery is attempted
 * by one. With Redis's, every process sends (each delivery is leased by one), and the holder of
 * the pid file moves the events the pull left in DATA_DIR's outbox into Redis's. Every second, or
 * sooner when a delivery falls due, what is due is sent; nothing here runs inside an API answer.
 */
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "../files/process-alive.ts";
import { Deliverer, type DelivererOptions } from "./deliverer.ts";
import { SUBSCRIPTIONS_DOCUMENT, WEBHOOKS_DIR } from "./subscriptions.ts";

const PID_FILE = "deliverer.pid";

// Whether this process holds (or now takes) the deliverer's place.
function claim(path: string): boolean {
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number(readFileSync(path, "utf8").trim());
    if (holder === process.pid) return true;
    if (processAlive(holder)) return false;
    rmSync(path, { force: true }); // its holder was killed
  }
  return false;
}

/**
 * Starts delivering; `stop` ends the loop and gives the place up at once: an attempt under way is
 * not waited for (a receiver may take 15 s), and, unrecorded, is made again by the next process
 * with the same `webhook-id`.
 */
export function startDeliveries(
  options: DelivererOptions & { pollMs?: number; log?: (line: string) => void },
): {
  stop(): Promise<void>;
} {
  const deliverer = new Deliverer(options);
  const { dataDir, outbox } = options.webhooks;
  const pidFile = join(dataDir, WEBHOOKS_DIR, PID_FILE);
  const pollMs = options.pollMs ?? 1_000;
  const shared = outbox.drainFileOutbox !== undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let holding = false;
  let said = "";
  const round = async () => {
    // A store without subscriptions has nothing to deliver: nothing is claimed or written.
    if (!existsSync(join(dataDir, SUBSCRIPTIONS_DOCUMENT.name))) return;
    holding ||= claim(pidFile);
    if (holding && shared) await outbox.drainFileOutbox!();
    if (holding || shared) await deliverer.deliverDue();
  };
  const tick = () => {
    void (async () => {
      try {
        await round();
        said = "";
      } catch (error) {
        // Said once while it lasts (a read-only or full disk, Redis away), not every second.
        const message = `Webhook deliveries: ${(error as Error).message}`;
        if (message !== said) options.log?.(message);
        said = message;
      }
      if (stopped) return;
      // What is still due now waits (a paused subscription's): the next look is a poll away.
      const next = holding || shared ? await deliverer.nextDue().catch(() => null) : null;
      const wait = next === null || next <= Date.now() ? pollMs : Math.min(pollMs, next - Date.now());
      if (!stopped) timer = setTimeout(tick, wait);
    })();
  };
  tick();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      try {
        if (holding) rmSync(pidFile, { force: true });
      } catch {
        // A store that turned read-only: the pid left names a dead process, which the next takes over.
      }
      return Promise.resolve();
    },
  };
}
