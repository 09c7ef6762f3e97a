/** `pull`'s settings, from the environment, validated. */
import * as v from "valibot";
import type { DownloadPolicy } from "./download.ts";
import { parseEnv, PositiveInteger } from "../env-settings.ts";
import {
  DEFAULT_PORTAL_FILES,
  DEFAULT_PORTAL_URL,
  portalFile,
  PORTAL_FILES,
  type PortalFileSpec,
  portalRoot,
} from "./portal-files.ts";

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
  STALE_AFTER_H: v.optional(PositiveInteger, "36"),
  PORTAL_POWERBI: v.optional(v.picklist(["0", "1"], 'must be "0" or "1"'), "1"),
  POWERBI_API_URL: v.optional(
    v.pipe(v.string(), v.url("must be a URL"), v.regex(/^https?:\/\//, "must be an http or https URL")),
  ),
});

/** Validated pull settings. */
export interface PullConfig {
  /** The portal's root, every graph page under it. */
  readonly root: string;
  /** What to tell the operator about PORTAL_URL (an old upload-folder value), if anything. */
  readonly note?: string;
  readonly files: readonly PortalFileSpec[];
  readonly policy: Omit<DownloadPolicy, "onRetry">;
  /** The grace past a file's cadence before it is late (STALE_AFTER_H), as the server judges it. */
  readonly staleAfterMs: number;
  /** Whether stopped files' PowerBI reports are read (PORTAL_POWERBI), and where (POWERBI_API_URL). */
  readonly powerbi: { readonly enabled: boolean; readonly apiUrl?: string };
}

/**
 * Reads PORTAL_URL, PORTAL_FILES (comma-separated), PULL_TIMEOUT_S, PULL_ATTEMPTS, PULL_BACKOFF_S,
 * STALE_AFTER_H, PORTAL_POWERBI and POWERBI_API_URL.
 */
export function loadPullConfig(env: NodeJS.ProcessEnv): PullConfig {
  const out = parseEnv(PullEnvSchema, env);
  const names = out.PORTAL_FILES.split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = names.find((name) => portalFile(name) === undefined);
  if (unknown !== undefined || names.length === 0) {
    throw new TypeError(
      `Invalid PORTAL_FILES: "${out.PORTAL_FILES}" must name the portal's files, comma-separated, from: ` +
        PORTAL_FILES.map((spec) => spec.name).join(", "),
    );
  }
  const { root, note } = portalRoot(out.PORTAL_URL);
  return {
    root,
    ...(note === undefined ? {} : { note }),
    files: names.map((name) => portalFile(name)!),
    policy: {
      timeoutMs: out.PULL_TIMEOUT_S * 1000,
      attempts: out.PULL_ATTEMPTS,
      backoffMs: out.PULL_BACKOFF_S * 1000,
      maxBackoffMs: 60_000,
    },
    staleAfterMs: out.STALE_AFTER_H * 3_600_000,
    powerbi: {
      enabled: out.PORTAL_POWERBI === "1",
      ...(out.POWERBI_API_URL === undefined ? {} : { apiUrl: out.POWERBI_API_URL }),
    },
  };
}
