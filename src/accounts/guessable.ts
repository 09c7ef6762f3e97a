/**
 * Whether a new password is easy to guess, as NIST SP 800-63B (5.1.1.2) asks a verifier to check:
 * against lists of common and breached passwords, dictionary words, repeated or sequential
 * characters, keyboard rows, dates, and words of the context (the username, the service). The
 * estimate is zxcvbn's (Dropbox), in its maintained TypeScript port `@zxcvbn-ts`, whose dictionaries
 * (about 30,000 common passwords, and English words and names) come from the package. Its
 * dictionaries are loaded on the first check, not at start.
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core";

/** The lowest zxcvbn score accepted: 3, "safely unguessable" to an online attacker. */
export const MIN_SCORE = 3;

// What zxcvbn's warnings mean, in the service's words.
const WARNINGS: Readonly<Record<string, string>> = {
  straightRow: "it is a row of keys on the keyboard",
  keyPattern: "it is a short keyboard pattern",
  simpleRepeat: 'it repeats a character ("aaa")',
  extendedRepeat: 'it repeats a pattern ("abcabc")',
  sequences: 'it is a sequence ("abcd", "1234")',
  recentYears: "it ends in a recent year",
  dates: "it is a date",
  topTen: "it is one of the ten most common passwords",
  topHundred: "it is one of the hundred most common passwords",
  common: "it is a commonly used password",
  similarToCommon: "it is a common password with small changes",
  wordByItself: "it is a single word",
  namesByThemselves: "it is a name",
  commonNames: "it is built on a common name",
  userInputs: "it is built on the username or the service's name",
};

let factory: ZxcvbnFactory | undefined;

async function zxcvbn(): Promise<ZxcvbnFactory> {
  if (factory === undefined) {
    const [{ ZxcvbnFactory: Factory }, common] = await Promise.all([
      import("@zxcvbn-ts/core"),
      import("@zxcvbn-ts/language-common"),
    ]);
    factory = new Factory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  }
  return factory;
}

/** Why `password` is easy to guess for the account `username`, or undefined when it is not. */
export async function guessable(password: string, username = ""): Promise<string | undefined> {
  const context = [username, "grid", "data", "service", "eskom", "gds", "dashboard"].filter(Boolean);
  const result = (await zxcvbn()).check(password, context);
  if (result.score >= MIN_SCORE) return undefined;
  const why = WARNINGS[result.feedback.warning ?? ""] ?? "it follows a pattern that is quick to guess";
  return `The password is too easy to guess: ${why}. A few unrelated words make a strong one`;
}
