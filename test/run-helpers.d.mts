/** The types of `run-helpers.mjs`, for the TypeScript helpers that import it. */
import type { BrowserServer } from "playwright-core";

export const REDIS_SERVER: string | undefined;
export const CHROMIUM: string;
export const CHROMIUM_ARGS: readonly string[];
export const TEST_DATABASES: number;
export function freePort(): Promise<number>;
export function spawnRedis(): Promise<{
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  running(): boolean;
}>;
export function launchBrowserServer(): Promise<BrowserServer | undefined>;
