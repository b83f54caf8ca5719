/**
 * Times a password check against a real hash and against ABSENT_ACCOUNT_HASH, the hash the
 * sign-in route checks when the phone is unknown, so the response time cannot tell whether an
 * account exists. The Worker tests count the PBKDF2 work of each path; this measures its time.
 * Exits non-zero when the medians differ by more than 25 % of a check (skipping the hash would make it ~100 %).
 *
 *   npm run bench:password                  40 checks of each kind
 *   npm run bench:password -- --short       8 of each (what npm test runs): the gap is printed, not
 *                                           enforced, as with every time figure of a short run (npm
 *                                           test runs it beside the e2e suite; 42.0 against 31.2 ms
 *                                           there was load, not a skipped hash)
 */
import { ABSENT_ACCOUNT_HASH, hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "../src/worker/auth/password.ts";

const short = process.argv.includes("--short");
const rounds = short ? 8 : 40;
const pepper = "bench-pepper";
const realHash = await hashPassword("Real#Password1", pepper);

async function time(stored: string): Promise<number> {
  const started = performance.now();
  await verifyPassword("Wrong#Password1", stored, pepper);
  return performance.now() - started;
}

const real: number[] = [];
const absent: number[] = [];
// Interleaved, so a change in the machine's load hits both kinds alike.
for (let i = 0; i < rounds; i++) {
  real.push(await time(realHash));
  absent.push(await time(ABSENT_ACCOUNT_HASH));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const realMs = median(real);
const absentMs = median(absent);
const gap = Math.abs(realMs - absentMs) / realMs;

console.log(`PBKDF2-SHA256, ${PBKDF2_ITERATIONS} iterations, ${rounds} checks of each kind (median)`);
console.log(`| check | median |\n|---|---|`);
console.log(`| wrong password, real account | ${realMs.toFixed(1)} ms |`);
console.log(`| unknown phone (ABSENT_ACCOUNT_HASH) | ${absentMs.toFixed(1)} ms |`);
console.log(`| difference | ${(gap * 100).toFixed(1)} % |`);
if (gap > 0.25) {
  console.error(
    `The two checks differ by more than 25 %: an unknown phone would answer at a different speed${short ? " (short run on a busy machine: informative only)" : ""}.`,
  );
  if (!short) process.exit(1);
}
