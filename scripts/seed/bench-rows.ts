/**
 * `npm run seed -- --drivers N`: N extra Flex drivers who signed up over the last year, and that
 * year's activity, for the benches (the dashboard and users budgets are for 100,000 drivers with a
 * year of data). The activity is made inside SQLite (INSERT … SELECT over a counter), deterministic
 * from the ids, with fixed ids so a re-run adds nothing: about 6 payments, 15 offers and a share of
 * 52 weekly campaigns' messages per driver.
 */
import { type SQL, sql } from "drizzle-orm";
import { campaignMessages, campaigns, offers, payments, stations, users } from "../../src/worker/db/schema.ts";
import { BENCH_FIRST_ID, DAY, makeDriver, type NewUser, prng } from "./people.ts";
import { insertRows, insertSelect } from "./sql-text.ts";

/** A counter 0 … last as the recursive view `name(n)`. */
const counter = (name: string, last: number) => sql.raw(`with recursive ${name}(n) as (select 0 union all select n + 1 from ${name} where n < ${last})`);

export function benchStatements(count: number, now: number): string[] {
  const rand = prng(99);
  const rows: NewUser[] = [];
  for (let i = 0; i < count; i++) {
    const driver = makeDriver(BENCH_FIRST_ID + i, "flex", `+1${6460000000 + i}`, rand, now, null);
    // Spread over the whole year, not the demo's 240 days.
    driver.createdAt = now - Math.floor(rand() * 365 * DAY);
    rows.push(driver);
  }
  return [...insertRows(users, rows, 400), ...benchActivity(count, now)];
}

function benchActivity(count: number, now: number): string[] {
  const last = BENCH_FIRST_ID + count - 1;
  const benchDrivers = sql`${users.id} between ${BENCH_FIRST_ID} and ${last}`;
  const k = sql.raw("k.n");
  // The n-th event of a driver's chain: from sign-up (plus a few weeks for the first), every `step` days,
  // at a pseudo-random time of day; events that would fall after now are not made. So each day of the
  // year gets about the same activity from the drivers signed up by then, as a real service would.
  const chain = (stepDays: number): SQL =>
    sql`${users.createdAt} + ((${users.id} % 4) * 7 + ${k} * ${stepDays}) * ${DAY} + ((${users.id} * 31 + ${k} * 17) % ${DAY})`;
  const when = chain(7);
  const offerAt = chain(10);
  const plan = sql`(${users.id} + ${k}) % 3`;
  const outcome = sql`(${users.id} * 3 + ${k}) % 20`;
  const price = sql`case ${plan} when 0 then 3999 when 1 then 7499 else 13999 end`;
  const offerOutcome = sql`(${users.id} * 3 + ${k}) % 20`;
  const weeksAgo = (week: SQL) => sql`${now} - (52 - ${week}) * 7 * ${DAY}`;
  return [
    // Payments: up to 12 weekly ones per driver (about 6), one of the three Flex plans; 1 in 20 failed, 1 in 20 refunded.
    insertSelect(
      payments,
      {
        id: sql`10000000 + (${users.id} - ${BENCH_FIRST_ID}) * 12 + ${k}`,
        userId: users.id,
        payerId: users.id,
        planId: sql`1 + ${plan}`,
        amountCents: price,
        days: sql`case ${plan} when 0 then 7 when 1 then 14 else 28 end`,
        status: sql`case ${outcome} when 0 then 'failed' when 1 then 'refunded' else 'successful' end`,
        provider: "local",
        providerRef: sql`'bench_pay_' || ${users.id} || '_' || ${k}`,
        refundedCents: sql`case ${outcome} when 1 then ${price} else 0 end`,
        settledAt: sql`case ${outcome} when 0 then null else ${when} + 60000 end`,
        createdAt: when,
      },
      sql`from ${users} join k on ${k} < (${users.id} * 7919) % 13 where ${benchDrivers} and ${when} + 60000 < ${now}`,
      counter("k", 11),
    ),
    // Won blocks: of up to 30 offers per driver, one every 10 days (about 15) at the Flex stations,
    // about a third won (D1 holds only those; the offers passed on live in each driver's history).
    insertSelect(
      offers,
      {
        id: sql`20000000 + (${users.id} - ${BENCH_FIRST_ID}) * 30 + ${k}`,
        userId: users.id,
        app: "flex",
        platformOfferId: sql`'bench-offer-' || ${users.id} || '-' || ${k}`,
        stationId: sql.raw("s.id"),
        stationName: sql.raw("s.name"),
        timeZone: sql.raw("s.time_zone"),
        payCents: sql`5400 + ((${users.id} * 13 + ${k} * 7) % 60) * 100`,
        startsAt: sql`${offerAt} + 3600000`,
        endsAt: sql`${offerAt} + 3600000 + (3 + (${users.id} + ${k}) % 3) * 1800000`,
        seenAt: offerAt,
        createdAt: offerAt,
      },
      sql`from ${users} join k on ${k} < (${users.id} * 104729) % 31 join s on s.i = (${users.id} + ${k}) % s.total where ${benchDrivers} and ${offerAt} + 3600000 < ${now} and ${offerOutcome} < 7`,
      sql`${counter("k", 29)}, s as (select ${stations.id} as id, ${stations.name} as name, ${stations.timeZone} as time_zone, row_number() over (order by ${stations.id}) - 1 as i, count(*) over () as total from ${stations} where ${stations.app} = 'flex')`,
    ),
    // 52 weekly campaigns by the owner, each to 1 in 52 of the drivers: a year of messages, 1 in 25 failed.
    insertSelect(
      campaigns,
      {
        id: sql`1000000 + w.n`,
        app: "flex",
        channel: "sms",
        source: "drivers",
        message: sql`'Weekly reminder ' || w.n`,
        audience: "{}",
        authorId: 1,
        idempotencyKey: sql`'bench-week-' || w.n`,
        status: "done",
        total: 0,
        createdAt: weeksAgo(sql.raw("w.n")),
        updatedAt: weeksAgo(sql.raw("w.n")),
      },
      sql`from w`,
      counter("w", 51),
    ),
    insertSelect(
      campaignMessages,
      {
        campaignId: sql`1000000 + ${users.id} % 52`,
        userId: users.id,
        phone: users.phone,
        name: users.name,
        status: sql`case when ${users.id} % 25 = 0 then 'failed' else 'delivered' end`,
        providerId: sql`'bench_msg_' || ${users.id}`,
        attempts: 1,
        updatedAt: sql`${weeksAgo(sql`${users.id} % 52`)} + (${users.id} % 3600) * 1000`,
      },
      sql`from ${users} where ${benchDrivers}`,
    ),
  ];
}
