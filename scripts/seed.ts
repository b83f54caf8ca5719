/**
 * Demo data for local runs, idempotent (fixed ids and keys; re-running changes nothing but the
 * demo admins' credentials, which are reset to the printed ones). The statements are built with
 * drizzle against the schema (scripts/seed/) and run as one file by `wrangler d1 execute`.
 *
 *   npm run seed                     demo data: admins, ~300 Flex + ~100 Spark drivers, referrals,
 *                                    invitations, payments, offers, plans, stations, templates
 *   npm run seed -- --drivers 100000 also N extra Flex drivers for benchmarks
 *   npm run seed -- --print          only print the demo sign-in details
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { ensureDevVars, readDevVars } from "./dev-vars.ts";
import { DEMO, DEMO_RESELLER_CODE } from "./seed/people.ts";

export { DEMO, dashboardDriverPhone } from "./seed/people.ts";

function execute(file: string) {
  // D1_PERSIST_TO lets the end-to-end run seed its own throw-away database.
  const persist = process.env.D1_PERSIST_TO ? [`--persist-to=${process.env.D1_PERSIST_TO}`] : [];
  const result = spawnSync("wrangler", ["d1", "execute", "DB", "--local", `--file=${file}`, ...persist], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  if (result.status !== 0) {
    console.error(result.stdout);
    throw new Error(`wrangler d1 execute failed (${result.status})`);
  }
}

export function printDemoDetails(url = "http://localhost:5173") {
  console.log(`
  Blockpilot demo accounts (${url})
    Owner admin     ${DEMO.owner.phone}  password ${DEMO.owner.password}  TOTP secret ${DEMO.owner.totp}
    Support admin   ${DEMO.support.phone}  password ${DEMO.support.password}  TOTP secret ${DEMO.support.totp} (no billingDetails)
    Driver          ${DEMO.driver.phone}  password ${DEMO.driver.password}  (an approved reseller, code ${DEMO_RESELLER_CODE})
  SMS codes and messages go to the outbox (printed in this log). Payments use the local checkout:
  card 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has no funds.
`);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes("--print")) return printDemoDetails();
  const driversArg = args.indexOf("--drivers");
  const extra = driversArg >= 0 ? Number(args[driversArg + 1]) : 0;
  if (!Number.isInteger(extra) || extra < 0) throw new Error("--drivers takes a whole number");
  ensureDevVars();
  const vars = readDevVars();
  const now = Date.now();
  const started = performance.now();
  // The schema's modules import each other without extensions; Node needs the hook before loading them.
  await import("./seed/resolve-extensionless.ts");
  const { demoStatements } = await import("./seed/demo-rows.ts");
  const { benchStatements } = await import("./seed/bench-rows.ts");
  const statements = [...(await demoStatements(vars, now)), ...(extra ? benchStatements(extra, now) : [])];
  // A file of this run's own: `npm test` seeds the e2e database and the benches' at the same
  // moment, and with one shared file a seed could run another's statements (the e2e database once
  // got a bench's 2,000 extra drivers).
  mkdirSync(".seed", { recursive: true });
  const file = `.seed/seed-${process.pid}.sql`;
  writeFileSync(file, statements.join("\n"));
  try {
    execute(file);
  } finally {
    rmSync(file, { force: true });
  }
  console.log(`Seeded demo data${extra ? ` and ${extra} extra drivers` : ""} in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  printDemoDetails();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
