/** `pull`'s settings, from the environment, validated. */
import * as v from "valibot";
import type { DownloadPolicy } from "./download.ts";
import { parseEnv, PositiveInteger } from "../env-settings.ts";
import { DEFAULT_PORTAL_FILES, DEFAULT_PORTAL_URL } from "./portal-urls.ts";

const Seconds = v.pipe(
  v.string(),
  v.regex(/^\d+(\.\d+)?$/, "must be a number of seconds"),
  v.transform(Number),
  v.minValue(0.01, "must be above 0"),
);

const PullEnvSchema = v.object({
  PORTAL_URL: v.optional(v.pipe(v.string(), v.url("must be a URL")), DEFAULT_PORTAL_URL),
  PORTAL_FILES: v.optional(v.string(), DEFAULT_PORTAL_FILES.join(",")),
  PULL_TIMEOUT_S: v.optional(Seconds, "30"),
  PULL_ATTEMPTS: v.optional(PositiveInteger, "4"),
  PULL_BACKOFF_S: v.optional(Seconds, "2"),
});

/** Validated pull settings. */
export interface PullConfig {
  readonly baseUrl: string;
  readonly files: readonly string[];
  readonly policy: Omit<DownloadPolicy, "onRetry">;
}

/** Reads PORTAL_URL, PORTAL_FILES (comma-separated), PULL_TIMEOUT_S, PULL_ATTEMPTS and PULL_BACKOFF_S. */
export function loadPullConfig(env: NodeJS.ProcessEnv): PullConfig {
  const out = parseEnv(PullEnvSchema, env);
  const files = out.PORTAL_FILES.split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  const bad = files.find((f) => !/^[A-Za-z0-9._-]+\.csv$/.test(f));
  if (bad !== undefined || files.length === 0) {
    throw new TypeError(`Invalid PORTAL_FILES: "${out.PORTAL_FILES}" must name .csv files, comma-separated`);
  }
  return {
    baseUrl: out.PORTAL_URL,
    files,
    policy: {
      timeoutMs: out.PULL_TIMEOUT_S * 1000,
      attempts: out.PULL_ATTEMPTS,
      backoffMs: out.PULL_BACKOFF_S * 1000,
      maxBackoffMs: 60_000,
    },
  };
}
