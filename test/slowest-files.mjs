/**
 * A node:test reporter that prints, after the run, the ten test files whose tests took longest
 * (the sum of their top-level tests' durations), so that the next person sees where the suite's
 * time goes. `make test-suite` runs it beside the spec reporter. Plain JavaScript: Node 20 loads a
 * reporter before the `--import tsx` hooks apply.
 *
 * @param {AsyncIterable<{ type: string, data?: { file?: string, nesting?: number, details?: { duration_ms?: number } } }>} source
 * @returns {AsyncGenerator<string>}
 */
import { relative } from "node:path";

export default async function* slowestFiles(source) {
  const byFile = new Map();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { file, nesting, details } = event.data ?? {};
    if (file === undefined || nesting !== 0) continue;
    byFile.set(file, (byFile.get(file) ?? 0) + (details?.duration_ms ?? 0));
  }
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  if (slowest.length === 0) return;
  yield "\nThe ten slowest test files (sum of their tests' durations):\n";
  for (const [file, ms] of slowest)
    yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${relative(process.cwd(), file)}\n`;
}
