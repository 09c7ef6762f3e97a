/**
 * Password hashing with scrypt from `node:crypto`: a random 16-byte salt per password, and the
 * cost parameters stored beside the hash, so they can be raised later without breaking old
 * hashes. Hashing runs on libuv's thread pool (at most four at once, 32 MiB each at N = 2^15),
 * never on the event loop.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import * as v from "valibot";

/** The shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 12;
/** The longest: scrypt hashes anything, but a megabyte "password" is an attack, not a secret. */
export const MAX_PASSWORD_LENGTH = 256;

/** A stored password: the algorithm, its parameters, the salt and the derived key (base64). */
export const PasswordHashSchema = v.object({
  algorithm: v.literal("scrypt"),
  N: v.pipe(v.number(), v.integer(), v.minValue(1024)),
  r: v.pipe(v.number(), v.integer(), v.minValue(1)),
  p: v.pipe(v.number(), v.integer(), v.minValue(1)),
  salt: v.pipe(v.string(), v.base64()),
  hash: v.pipe(v.string(), v.base64()),
});

export type PasswordHash = v.InferOutput<typeof PasswordHashSchema>;

/** scrypt's cost parameters: N (a power of two) and r set the memory (128 * N * r bytes) and time. */
export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** The parameters new hashes get: 32 MiB and about 100 ms per hash on this project's VM. */
export const SCRYPT_PARAMS: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must cover 128 * N * r bytes, plus a margin OpenSSL wants.
    const maxmem = 256 * params.N * params.r;
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { ...params, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if (length > MAX_PASSWORD_LENGTH)
    return `The password must be at most ${MAX_PASSWORD_LENGTH} characters long`;
  if (password.trim() !== password) return "The password must not start or end with a space";
  return undefined;
}

/**
 * Hashes a password with a fresh salt and the current parameters. Other parameters are for tests
 * (the way Django's and Rails' suites hash with a cheap cost): a hash keeps its own, and checking a
 * password against it costs what they cost.
 */
export async function hashPassword(password: string, params = SCRYPT_PARAMS): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, params);
  return {
    algorithm: "scrypt",
    N: params.N,
    r: params.r,
    p: params.p,
    salt: salt.toString("base64"),
    hash: hash.toString("base64"),
  };
}

/**
 * A stored hash no password matches, with the current parameters: random bytes stand for the
 * derived key. Checking a password against it costs what checking one against a real hash does,
 * so an unknown username answers in the time of a wrong password, and making it costs nothing.
 */
export function decoyHash(): PasswordHash {
  return {
    algorithm: "scrypt",
    N: SCRYPT_PARAMS.N,
    r: SCRYPT_PARAMS.r,
    p: SCRYPT_PARAMS.p,
    salt: randomBytes(16).toString("base64"),
    hash: randomBytes(KEY_LENGTH).toString("base64"),
  };
}

/** Whether `password` matches `stored`, compared in constant time. */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, "base64");
  const actual = await derive(
    password.slice(0, MAX_PASSWORD_LENGTH * 4),
    Buffer.from(stored.salt, "base64"),
    stored,
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A random one-time password: 20 characters from an alphabet without look-alikes (~115 bits). */
export function generatePassword(): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const out: string[] = [];
  while (out.length < 20) {
    for (const byte of randomBytes(32)) {
      // Reject the top of the byte range so every character is equally likely.
      if (byte < 256 - (256 % alphabet.length) && out.length < 20)
        out.push(alphabet[byte % alphabet.length]!);
    }
  }
  return out.join("");
}
