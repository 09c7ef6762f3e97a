/**
 * What a key's name may hold: 1 to 100 characters, none a control character nor one of Unicode's
 * bidirectional controls (U+202A to U+202E, U+2066 to U+2069), which would make `keys list` and
 * the dashboard show a name reversed or reordered; any other Unicode (accents, emoji) is allowed.
 * Account names are narrower still (`ACCOUNT_NAME`: ASCII letters, digits, `.`, `_`, `-`).
 */
export const NAME_FORBIDDEN = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/** Whether `name` (already trimmed) is a key name this service accepts. */
export function isKeyName(name: string): boolean {
  return name.length >= 1 && [...name].length <= 100 && !NAME_FORBIDDEN.test(name);
}

/** The sentence a refused key name gets. */
export const KEY_NAME_RULE =
  "A key's name must be 1 to 100 characters, without control characters or Unicode bidirectional controls (U+202A to U+202E, U+2066 to U+2069).";
