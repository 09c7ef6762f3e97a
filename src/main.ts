/** The entry point: reads the settings, opens the store and serves until stopped. */
import { createServer } from "node:http";
import { loadConfig } from "./config.ts";
import { createService } from "./service.ts";
import { createReadingStore } from "./store/reading-store.ts";

const config = loadConfig();
const store = createReadingStore({ dir: config.dataDir, cacheDays: config.cacheDays });
const server = createServer(
  createService({
    store,
    log: (entry) => process.stdout.write(JSON.stringify(entry) + "\n"),
    logError: (error) => process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`),
  }),
);
server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : config.port;
  process.stderr.write(
    `Grid Data Service listening on http://${config.host}:${port} (data: ${config.dataDir})\n`,
  );
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
