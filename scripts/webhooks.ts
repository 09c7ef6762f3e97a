/** `npm run --silent webhooks -- COMMAND`: webhook subscriptions in DATA_DIR (see `webhooks help`). */
import { resolve } from "node:path";
import { runWebhooksCli } from "../src/webhooks/webhooks-cli.ts";

const rules = {
  allowPrivate: process.env.WEBHOOK_ALLOW_PRIVATE === "1",
  allowHttp: process.env.WEBHOOK_ALLOW_HTTP === "1",
};
try {
  process.exitCode = await runWebhooksCli(
    process.argv.slice(2),
    resolve(process.env.DATA_DIR || "data"),
    rules,
    {
      stdout: (t) => void process.stdout.write(t),
      stderr: (t) => void process.stderr.write(t),
    },
  );
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
