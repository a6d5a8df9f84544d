/**
 * Passwords (API.md §3.12, DESIGN.md §6): scrypt at the OWASP parameters (N = 2^17, r = 8,
 * p = 1; 128 MiB and a few hundred milliseconds per hash), from node:crypto — no native module
 * to ship in the Lambda bundle. Stored as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` so the
 * parameters can be raised later without invalidating existing hashes. And the password rules.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { codePoints } from '../text.js';

const LOG2_N = 17;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, LOG2_N, R, P);
  return `scrypt$${LOG2_N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * The hash of a random password nobody knows (made once, offline, with the parameters above),
 * verified against when there is no account: the same work, no extra work on first use.
 */
const DECOY = 'scrypt$17$8$1$x5D8Yp4Zwq-93xAsiq3wrg$sNQLOpKh-AJGTjvSh3LoOZwPinOl33yONOVnIcC3TZU';

/**
 * Whether `password` matches `stored`. Without a stored hash (unknown e-mail, an account made by
 * social sign-in) a decoy hash is verified, so the answer takes as long either way (§2, no
 * account enumeration by timing), and is false.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const target = stored ?? DECOY;
  const [scheme, logN, r, p, salt, hash] = target.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected) && stored !== null && stored !== undefined;
}

/**
 * The server's list of common passwords (compared case-insensitively). Passwords under 10
 * characters are refused by length anyway, so the list holds the common ones of 10 or more.
 */
const COMMON = new Set(
  `password123 password1234 password12345 password123456 passw0rd123 qwertyuiop qwerty12345 qwerty123456
  1q2w3e4r5t 1q2w3e4r5t6y 1qaz2wsx3edc iloveyou123 iloveyou1234 letmein1234 letmein12345 administrator
  1234567890 0123456789 9876543210 abcdefghij abc1234567 abcd123456 asdfghjkl1 asdfghjkl; zxcvbnm123
  qazwsxedcrfv 1234qwerasdf qwer1234asdf welcome123 welcome1234 sunshine123 princess123 football123
  baseball123 superman123 batman12345 starwars123 dragon12345 monkey12345 master12345 trustno1234
  changeme123 changeme1234 default1234 password!23 p@ssw0rd123 p@ssword123 passwordpassword
  1111111111 2222222222 0000000000 1234512345 1122334455 1212121212 6969696969 qwertyqwerty
  naruto12345 pokemon1234 pikachu1234 onepiece123 anime123456 dragonball1 sailormoon1 totoro12345
  letmeinplease iloveanime1 animelover1 myanimelist mypassword1 mypassword123 secret12345 secretpassword`
    .split(/\s+/)
    .filter(Boolean)
    .map((p) => p.toLowerCase()),
);

/**
 * Rule violations of a new password (§3.12): 10–128 characters, not all digits, not common,
 * not too similar to the username or the e-mail's local part. Empty when it is acceptable.
 */
export function passwordProblems(password: string, user: { username?: string; email?: string }): string[] {
  const problems: string[] = [];
  const n = codePoints(password);
  if (n < 10) problems.push('This password is too short. It must contain at least 10 characters.');
  if (n > 128) problems.push('This password is too long. It must contain at most 128 characters.');
  if (/^\d+$/.test(password)) problems.push('This password is entirely numeric.');
  const lower = password.toLowerCase();
  if (COMMON.has(lower)) problems.push('This password is too common.');
  const similar = [user.username, user.email?.split('@')[0]]
    .map((v) => v?.toLowerCase())
    .filter((v): v is string => v !== undefined && codePoints(v) >= 4);
  if (similar.some((v) => lower.includes(v) || v.includes(lower))) problems.push('The password is too similar to the username or the e-mail address.');
  return problems;
}
