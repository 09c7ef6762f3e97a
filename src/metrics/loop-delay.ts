/**
 * For `make bench` only: with GDS_LOOP_STATS=1, each SIGUSR2 prints the worst event-loop delay
 * since the last as one JSON line (`event_loop_max_ms`), which the bench reads as a stall.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

/** Starts watching the event loop; each SIGUSR2 logs the worst delay since the last, and resets it. */
export function reportLoopDelayOnSignal(log: (line: string) => void): void {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  process.on("SIGUSR2", () => {
    log(JSON.stringify({ event_loop_max_ms: Number((delay.max / 1e6).toFixed(2)) }));
    delay.reset();
  });
}
