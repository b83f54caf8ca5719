/**
 * "Download my data": one JSON document with everything we hold about the signed-in account
 * (the privacy policy: "a copy of your data on request"). Secrets are never in it (password hash,
 * second-factor secret, the platform's tokens, code hashes).
 *
 * Bounded: each list is read newest first up to EXPORT_LIMITS, and the document says per section
 * how many rows there are in all and whether it was cut. A driver's offers are the one list that
 * can grow large (every offer the engine was shown); 10,000 covers months of driving, and older
 * ones are deleted by the engine's own retention (RETENTION in src/worker/retention.ts).
 */
import { count, desc, eq, or } from "drizzle-orm";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import {
  commissions,
  consentEvents,
  driverFilters,
  driverStationZones,
  invitations,
  optOuts,
  payments,
  platformAccounts,
  resellers,
  serviceTimeLedger,
} from "../db/schema";
import { historyOf } from "../platform/history-client";

export const EXPORT_LIMITS = { offers: 10_000, payments: 5_000, serviceTime: 5_000, invitations: 5_000, consent: 5_000, commissions: 5_000 } as const;

export const EXPORT_FILENAME = "blockpilot-data.json";

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

function section<T>(rows: T[], total: number, limit: number) {
  return { total, limit, truncated: total > rows.length, rows };
}

export async function accountExport(db: Db, env: Pick<Env, "CAPTURE_SESSION">, user: SessionUser, now = Date.now()) {
  const id = user.id;
  // The offers live in the driver's own history, in their capture engine's object.
  const history = await historyOf(env, id).offersPage(id, { page: 1, pageSize: EXPORT_LIMITS.offers });
  const offerCount = history.counts.won + history.counts.disliked + history.counts.gone;
  const offerRows = history.rows.map(({ id: _id, ...offer }) => offer);
  const consentOf = or(eq(consentEvents.phone, user.phone), eq(consentEvents.userId, id));
  const [
    filters,
    connection,
    [paymentCount],
    paymentRows,
    [ledgerCount],
    ledgerRows,
    [invitationCount],
    invitationRows,
    [consentCount],
    consentRows,
    optOutRows,
    reseller,
    [commissionCount],
    commissionRows,
    stationZoneRows,
  ] = await db.batch([
    db.select().from(driverFilters).where(eq(driverFilters.userId, id)),
    db
      .select({
        customerId: platformAccounts.customerId,
        accountName: platformAccounts.accountName,
        connectedAt: platformAccounts.connectedAt,
        disconnectedAt: platformAccounts.disconnectedAt,
        disconnectReason: platformAccounts.disconnectReason,
      })
      .from(platformAccounts)
      .where(eq(platformAccounts.userId, id)),
    db
      .select({ n: count() })
      .from(payments)
      .where(or(eq(payments.userId, id), eq(payments.payerId, id))),
    db
      .select({
        id: payments.id,
        forAccount: payments.userId,
        paidBy: payments.payerId,
        amountCents: payments.amountCents,
        days: payments.days,
        status: payments.status,
        refundedCents: payments.refundedCents,
        failureCode: payments.failureCode,
        createdAt: payments.createdAt,
        settledAt: payments.settledAt,
      })
      .from(payments)
      .where(or(eq(payments.userId, id), eq(payments.payerId, id)))
      .orderBy(desc(payments.createdAt), desc(payments.id))
      .limit(EXPORT_LIMITS.payments),
    db.select({ n: count() }).from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, id)),
    db
      .select({
        kind: serviceTimeLedger.kind,
        deltaMs: serviceTimeLedger.deltaMs,
        expirationBefore: serviceTimeLedger.expirationBefore,
        expirationAfter: serviceTimeLedger.expirationAfter,
        paymentId: serviceTimeLedger.paymentId,
        invitationId: serviceTimeLedger.invitationId,
        reason: serviceTimeLedger.reason,
        createdAt: serviceTimeLedger.createdAt,
      })
      .from(serviceTimeLedger)
      .where(eq(serviceTimeLedger.userId, id))
      .orderBy(desc(serviceTimeLedger.createdAt), desc(serviceTimeLedger.id))
      .limit(EXPORT_LIMITS.serviceTime),
    db.select({ n: count() }).from(invitations).where(eq(invitations.inviterId, id)),
    db
      .select({ id: invitations.id, phoneNumber: invitations.phone, via: invitations.via, invitedAt: invitations.invitedAt, freeWeek: invitations.freeWeek })
      .from(invitations)
      .where(eq(invitations.inviterId, id))
      .orderBy(desc(invitations.invitedAt), desc(invitations.id))
      .limit(EXPORT_LIMITS.invitations),
    db.select({ n: count() }).from(consentEvents).where(consentOf),
    db
      .select({
        kind: consentEvents.kind,
        channel: consentEvents.channel,
        basis: consentEvents.basis,
        source: consentEvents.source,
        text: consentEvents.text,
        textVersion: consentEvents.textVersion,
        language: consentEvents.language,
        at: consentEvents.at,
      })
      .from(consentEvents)
      .where(consentOf)
      .orderBy(desc(consentEvents.at), desc(consentEvents.id))
      .limit(EXPORT_LIMITS.consent),
    db.select({ channel: optOuts.channel, keyword: optOuts.keyword, at: optOuts.at }).from(optOuts).where(eq(optOuts.phone, user.phone)),
    db
      .select({
        status: resellers.status,
        message: resellers.message,
        commissionBps: resellers.commissionBps,
        referralCode: resellers.referralCode,
        appliedAt: resellers.appliedAt,
        decidedAt: resellers.decidedAt,
      })
      .from(resellers)
      .where(eq(resellers.userId, id)),
    db.select({ n: count() }).from(commissions).where(eq(commissions.resellerId, id)),
    db
      .select({
        paymentId: commissions.paymentId,
        amountCents: commissions.amountCents,
        commissionBps: commissions.commissionBps,
        status: commissions.status,
        transferredCents: commissions.transferredCents,
        reversedCents: commissions.reversedCents,
        createdAt: commissions.createdAt,
      })
      .from(commissions)
      .where(eq(commissions.resellerId, id))
      .orderBy(desc(commissions.createdAt), desc(commissions.id))
      .limit(EXPORT_LIMITS.commissions),
    // The zones the driver gave stations themselves (a few at most: one per station they see).
    db
      .select({ app: driverStationZones.app, stationId: driverStationZones.stationId, timeZone: driverStationZones.timeZone })
      .from(driverStationZones)
      .where(eq(driverStationZones.userId, id)),
  ]);

  return {
    format: "blockpilot-account-export/1",
    exportedAt: iso(now),
    notes: "Times are milliseconds since 1970-01-01 UTC; money is in cents (US dollars). Lists are newest first, each up to its stated limit.",
    profile: {
      id: user.id,
      app: user.app,
      phoneNumber: user.phone,
      phoneVerified: user.phoneVerified,
      name: user.name,
      email: user.email,
      language: user.language,
      createdAt: user.createdAt,
      lastSignInAt: user.lastSignInAt,
      humanRegion: user.humanRegion,
      deliveryArea: user.deliveryArea,
      serviceUntil: user.expirationAt,
      system: user.status,
      referralCode: user.referralCode,
      inviteCode: user.inviteCode,
      invitedBy: user.invitedBy,
      secondFactor: user.mfaMethod,
      smsOptOut: user.smsOptOut,
      whatsappOptOut: user.whatsappOptOut,
      isAdmin: user.isAdmin,
    },
    platformConnection: connection[0] ?? null,
    filters: filters[0] ?? null,
    stationZones: stationZoneRows,
    offers: section(offerRows, offerCount, EXPORT_LIMITS.offers),
    payments: section(paymentRows, paymentCount?.n ?? 0, EXPORT_LIMITS.payments),
    serviceTime: section(ledgerRows, ledgerCount?.n ?? 0, EXPORT_LIMITS.serviceTime),
    invitations: section(invitationRows, invitationCount?.n ?? 0, EXPORT_LIMITS.invitations),
    consent: { history: section(consentRows, consentCount?.n ?? 0, EXPORT_LIMITS.consent), optOuts: optOutRows },
    reseller: reseller[0] ? { ...reseller[0], commissions: section(commissionRows, commissionCount?.n ?? 0, EXPORT_LIMITS.commissions) } : null,
  };
}
