/**
 * The entry point: reads the settings, then serves in this process, or with `WORKERS` > 1 starts
 * that many server processes sharing the port (`cluster/primary.ts`).
 */
import cluster from "node:cluster";
import { runPrimary } from "./cluster/primary.ts";
import { loadConfig } from "./config.ts";
import { runServerProcess } from "./server-process.ts";

const config = loadConfig();
if (config.workers > 1 && cluster.isPrimary) runPrimary(config);
else await runServerProcess(config);
