/**
 * The server's webhook deliveries in the background (docs/webhooks.md): one process per data
 * directory sends them, the one holding `webhooks/deliverer.pid` (a live pid; a dead one's file is
 * taken over), so that with several workers each delivery is attempted by one. Every second, or
 * sooner when a delivery falls due, what is due is sent; nothing here runs inside an API answer.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "../files/process-alive.ts";
import { Deliverer, type DelivererOptions } from "./deliverer.ts";
import { WEBHOOKS_DIR } from "./subscriptions.ts";
import { mkdirSync } from "node:fs";

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

/** Starts delivering; `stop` ends the loop after the attempt under way and gives the place up. */
export function startDeliveries(
  options: DelivererOptions & { pollMs?: number; log?: (line: string) => void },
): {
  stop(): Promise<void>;
} {
  const deliverer = new Deliverer(options);
  const dir = join(options.dataDir, WEBHOOKS_DIR);
  const pidFile = join(dir, PID_FILE);
  const pollMs = options.pollMs ?? 1_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let holding = false;
  const tick = () => {
    running = (async () => {
      try {
        mkdirSync(dir, { recursive: true });
        holding ||= claim(pidFile);
        if (holding) await deliverer.deliverDue();
      } catch (error) {
        options.log?.(`Webhook deliveries: ${(error as Error).message}`);
      }
      if (stopped) return;
      const next = holding ? deliverer.nextDue() : null;
      const wait = next === null ? pollMs : Math.max(0, Math.min(pollMs, next - Date.now()));
      timer = setTimeout(tick, wait);
    })();
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      if (holding) rmSync(pidFile, { force: true });
    },
  };
}
