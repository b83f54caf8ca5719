/**
 * The demo data of `npm run seed`: the two admins, the demo driver and ~400 seeded drivers, the
 * referral codes and resellers, plans, stations, payments with their service-time ledger, offers
 * and invitations. What messaging needs (consent, templates, leads) is in demo-messaging.ts.
 */
import { REGISTRATION_CONSENT } from "../../src/shared/consent-texts.ts";
import { hashPassword } from "../../src/worker/auth/password.ts";
import { sealSecret } from "../../src/worker/auth/secret-box.ts";
import {
  consentEvents,
  invitations,
  offers,
  payments,
  plans,
  referralCodes,
  resellers,
  serviceTimeLedger,
  stations,
  users,
} from "../../src/worker/db/schema.ts";
import { displayName, stationArea, stationCode } from "../../src/worker/platform/station-zones.ts";
import { DEFAULT_STATIONS } from "../../test/fake-platform/server.ts";
import { messagingStatements } from "./demo-messaging.ts";
import { DAY, DEMO, DEMO_DRIVER_ID, DEMO_RESELLER_CODE, demoDrivers, demoRandom, type NewUser, prng, REFERRALS, type SeededDriver } from "./people.ts";
import { db, excluded, insertRows, statementText } from "./sql-text.ts";

/** Why demo offers were disliked: the reasons evaluateOffer gives (src/shared/offer-filter.ts) and the engine's own. */

/** The same rows as migrations/0005_default_plans.sql creates in a fresh database (kept here for a database whose plans were deleted). */
const PLANS: (typeof plans.$inferInsert & { id: number; days: number; priceCents: number })[] = [
  { id: 1, app: "flex", name: "1 week", days: 7, priceCents: 3999, sortOrder: 1 },
  { id: 2, app: "flex", name: "2 weeks", days: 14, priceCents: 7499, sortOrder: 2 },
  { id: 3, app: "flex", name: "4 weeks", days: 28, priceCents: 13999, sortOrder: 3 },
  { id: 4, app: "spark", name: "1 week", days: 7, priceCents: 2999, sortOrder: 1 },
  { id: 5, app: "spark", name: "2 weeks", days: 14, priceCents: 5499, sortOrder: 2 },
  { id: 6, app: "spark", name: "4 weeks", days: 28, priceCents: 9999, sortOrder: 3 },
];

/** The two admins, upserted: a re-run resets their credentials to the printed ones. */
async function adminStatements(vars: Record<string, string>, now: number): Promise<string[]> {
  const admins = [
    { id: 1, who: DEMO.owner, role: "owner", billing: true },
    { id: 2, who: DEMO.support, role: "support", billing: false },
  ];
  const sql: string[] = [];
  for (const a of admins) {
    const row: NewUser = {
      id: a.id,
      app: "flex",
      phone: a.who.phone,
      phoneVerified: true,
      name: a.who.name,
      email: `${a.role}@blockpilot.local`,
      passwordHash: await hashPassword(a.who.password, vars.PASSWORD_PEPPER!),
      language: "en",
      isAdmin: true,
      roleName: a.role,
      roleProperties: { billingDetails: a.billing },
      goodStanding: true,
      expirationAt: now + 365 * DAY,
      accountConnected: true,
      setupComplete: true,
      status: "stop",
      inviteCode: `ADMIN${a.id}`,
      mfaSecret: await sealSecret(a.who.totp, vars.MFA_ENCRYPTION_KEY!),
      mfaMethod: "totp",
      createdAt: now - 400 * DAY,
    };
    const upsert = db
      .insert(users)
      .values(row)
      .onConflictDoUpdate({
        target: [users.app, users.phone],
        set: {
          passwordHash: excluded(users.passwordHash),
          mfaSecret: excluded(users.mfaSecret),
          mfaMethod: "totp",
          isAdmin: true,
          roleName: excluded(users.roleName),
          roleProperties: excluded(users.roleProperties),
        },
      });
    sql.push(statementText(upsert));
  }
  return sql;
}

/** Partner codes, the demo driver's reseller code, its approval and one application waiting. */
function resellerStatements(now: number): string[] {
  return [
    ...insertRows(referralCodes, [
      ...REFERRALS.map((code, i) => ({
        code,
        app: i % 3 === 2 ? ("spark" as const) : ("flex" as const),
        owner: `Partner ${i + 1}`,
        ownerUserId: null,
        createdAt: now - 300 * DAY,
      })),
      { code: DEMO_RESELLER_CODE, app: "flex", owner: DEMO.driver.name, ownerUserId: DEMO_DRIVER_ID, createdAt: now - 60 * DAY },
    ]),
    ...insertRows(resellers, [
      {
        userId: DEMO_DRIVER_ID,
        status: "approved",
        message: "I help the drivers at my station get set up.",
        commissionBps: 2000,
        referralCode: DEMO_RESELLER_CODE,
        appliedAt: now - 61 * DAY,
        decidedAt: now - 60 * DAY,
        decidedBy: 1,
        updatedAt: now - 60 * DAY,
      },
      // An application waiting for the billing page.
      {
        userId: 22,
        status: "applied",
        message: "Twenty drivers in my WhatsApp group want in.",
        commissionBps: 2000,
        appliedAt: now - DAY,
        updatedAt: now - DAY,
      },
    ]),
  ];
}

type Activity = {
  payments: (typeof payments.$inferInsert & { id: number; days: number; amountCents: number; settledAt: number; userId: number })[];
  offers: (typeof offers.$inferInsert)[];
  invitations: (typeof invitations.$inferInsert & { invitedAt: number })[];
};

/** Each driver's payments, offers at their app's stations and invitations, drawn in turn from `rand`. */
function driverActivity(drivers: SeededDriver[], stationRows: (typeof stations.$inferInsert)[], rand: () => number, now: number): Activity {
  const out: Activity = { payments: [], offers: [], invitations: [] };
  let paymentId = 1;
  let offerId = 1;
  for (const d of drivers) {
    const paidTimes = d.expirationAt ? 1 + Math.floor(rand() * 4) : 0;
    for (let p = 0; p < paidTimes; p++) {
      const plan = PLANS.filter((pl) => pl.app === d.app)[Math.floor(rand() * 2)]!;
      const status = rand() < 0.9 ? "successful" : rand() < 0.5 ? "failed" : "refunded";
      const created = d.createdAt + p * 7 * DAY;
      out.payments.push({
        id: paymentId,
        userId: d.id,
        planId: plan.id,
        amountCents: plan.priceCents,
        days: plan.days,
        status,
        payerId: d.id,
        provider: "local",
        providerRef: `demo_pay_${paymentId}`,
        refundedCents: status === "refunded" ? plan.priceCents : 0,
        failureCode: status === "failed" ? "expired" : null,
        settledAt: created + 60_000,
        createdAt: created,
        updatedAt: created + 60_000,
      });
      paymentId++;
    }
    if (d.accountConnected) {
      const appStations = stationRows.filter((s) => s.app === d.app);
      for (let o = 0; o < 5; o++) {
        const starts = now - Math.floor(rand() * 14) * DAY + Math.floor(rand() * 12) * 3_600_000;
        const roll = rand();
        const station = appStations[Math.floor(rand() * appStations.length)]!;
        // D1 holds won blocks only (about a third of what a driver is shown); the driver's own history
        // fills from the demo platform as their engine runs.
        if (roll >= 0.35) continue;
        out.offers.push({
          id: offerId,
          userId: d.id,
          app: d.app,
          platformOfferId: `demo-offer-${offerId++}`,
          stationId: station.id,
          stationName: station.name,
          timeZone: station.timeZone ?? "UTC",
          payCents: 5400 + Math.floor(rand() * 60) * 100,
          startsAt: starts,
          endsAt: starts + (3 + Math.floor(rand() * 3)) * 1_800_000,
          seenAt: starts - 3_600_000,
          createdAt: starts - 3_600_000,
        });
      }
    }
    if (rand() < 0.3) {
      const count = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < count; k++) {
        // Some invitees registered (phone of another demo driver), most did not.
        const registered = rand() < 0.3;
        const invitee = registered ? drivers[Math.floor(rand() * drivers.length)]! : null;
        const phone = invitee ? invitee.phone : `+1786555${String(Math.floor(rand() * 9000) + 1000)}`;
        // A friend counts as registered only with an account made after the invitation (docs/payments.md).
        const ago = Math.floor(rand() * 60) * DAY;
        const invitedAt = invitee ? Math.min(now - ago, invitee.createdAt - DAY) : now - ago;
        out.invitations.push({ inviterId: d.id, app: d.app, phone, invitedAt, freeWeek: registered && rand() < 0.5 });
      }
    }
  }
  return out;
}

/** Each settled demo payment's ledger rows, so the service-time history explains the days. */
function ledgerRows(paid: Activity["payments"]): (typeof serviceTimeLedger.$inferInsert)[] {
  return paid
    .filter((p) => p.status === "successful" || p.status === "refunded")
    .flatMap((p) => {
      const days = p.days * DAY;
      const payment = { userId: p.userId, paymentId: p.id, requestId: "seed" };
      const rows: (typeof serviceTimeLedger.$inferInsert)[] = [
        {
          ...payment,
          kind: "payment",
          deltaMs: days,
          expirationBefore: null,
          expirationAfter: p.settledAt + days,
          sourceKey: `payment:${p.id}`,
          createdAt: p.settledAt,
        },
      ];
      if (p.status === "refunded") {
        rows.push({
          ...payment,
          kind: "refund",
          deltaMs: -days,
          expirationBefore: p.settledAt + days,
          expirationAfter: p.settledAt,
          sourceKey: `refund:${p.id}:${p.amountCents}`,
          createdAt: p.settledAt + DAY,
        });
      }
      return rows;
    });
}

/**
 * The consent ledger (docs/messaging-rules.md): most drivers ticked the marketing box when they
 * registered; invited numbers carry only the weaker invitation basis, which allows no marketing.
 */
function consentRows(drivers: SeededDriver[], invited: Activity["invitations"]): (typeof consentEvents.$inferInsert)[] {
  const rand = prng(14);
  const rows: (typeof consentEvents.$inferInsert)[] = [];
  for (const d of drivers) {
    if (rand() >= 0.85) continue;
    const language = d.language === "es" ? "es" : "en";
    rows.push({
      phone: d.phone,
      kind: "consent",
      channel: "all",
      basis: "express",
      source: "registration",
      text: REGISTRATION_CONSENT[language],
      textVersion: REGISTRATION_CONSENT.version,
      language,
      userId: d.id,
      at: d.createdAt,
    });
  }
  // The invitation rows name no actor: the demo data has always been seeded without one.
  for (const i of invited)
    rows.push({ phone: i.phone, kind: "consent", channel: "all", basis: "invitation", source: "invitation", language: "en", at: i.invitedAt });
  // Fixed ids (those a fresh database gives them), so that a re-run adds none again.
  return rows.map((row, i) => ({ ...row, id: i + 1 }));
}

/** Every statement of the demo data, in the order they run. */
export async function demoStatements(vars: Record<string, string>, now: number): Promise<string[]> {
  const rand = demoRandom();
  const driverHash = await hashPassword(DEMO.driver.password, vars.PASSWORD_PEPPER!);
  const sql = await adminStatements(vars, now);
  const drivers = demoDrivers(rand, now, driverHash);
  sql.push(...insertRows(users, drivers), ...resellerStatements(now), ...insertRows(plans, PLANS));
  // The fake platform's stations and delivery areas, as drivers' settings pages save them.
  const stationRows = (["flex", "spark"] as const).flatMap((app) =>
    DEFAULT_STATIONS[app].map((s) => {
      // As the catalogue keeps them (src/worker/platform/station-catalogue.ts): Flex's zone from the station table.
      const name = displayName(s.name);
      const area = stationArea(stationCode(name));
      return { app, id: s.serviceAreaId, name, city: s.region ?? area?.city ?? null, timeZone: s.timeZone ?? area?.timeZone ?? "UTC", updatedAt: now };
    }),
  );
  sql.push(...insertRows(stations, stationRows));
  const activity = driverActivity(drivers, stationRows, rand, now);
  sql.push(
    ...insertRows(payments, activity.payments),
    ...insertRows(serviceTimeLedger, ledgerRows(activity.payments)),
    ...insertRows(offers, activity.offers),
    ...insertRows(invitations, activity.invitations),
    ...insertRows(consentEvents, consentRows(drivers, activity.invitations)),
    ...messagingStatements(now),
  );
  return sql;
}
