/**
 * Erasing an account (the privacy policy: "we delete or anonymise your data within 30 days of a
 * request"; done at once). Table by table:
 *
 * - deleted: refresh_tokens, auth_challenges, verification_codes and rate_limits of the number,
 *   platform_accounts (after the capture engine dropped the tokens) and platform_sign_ins,
 *   driver_filters, offers, push_subscriptions, notification_channels and driver_notifications
 *   (the rows are anonymised, not deleted, so their cascade never runs), invitations the account sent and invitations naming its number, leads
 *   of the account or the number, opt_outs of the number (kept as a keyed hash in opt_out_hashes),
 *   campaign_exclusions and outbox rows of the number, the number in typed-list campaigns.
 * - anonymised: the users row (kept only as the anchor of what follows: phone and invite code become
 *   tombstones, every personal field empty), campaign_messages (number tombstoned, name, account
 *   link and the provider's error text removed; unsent ones skipped), consent_events (the number
 *   replaced by its keyed hash, so the ledger still proves what consent we had if the person asks,
 *   and the account link removed), audit_log entries about or by the account (phone, name and email
 *   removed from their details, and so are the earlier values of an administrator's profile edit
 *   and the client address of each sign-in and reset), the reseller application's message and its
 *   referral code's owner name.
 * - kept as they are: payments, service_time_ledger and commissions (tax and accounting law), linked
 *   to the anonymised account row.
 *
 * The capture engine is stopped and the platform disconnected first (its Durable Object drops the
 * tokens); that is safe to repeat. Everything in D1 is then one db.batch with its audit row: it
 * happens whole or not at all, and a second request for an erased account changes nothing.
 */
import { and, eq, isNull, like, ne, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { ERASED_PHONE_PREFIX } from "../../shared/account";
import { phoneHash } from "../compliance/erased-opt-outs";
import { type AuditAction, auditInsert, userTarget } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import {
  auditLog,
  authChallenges,
  campaignExclusions,
  campaigns,
  consentConfirmations,
  consentEvents,
  driverFilters,
  driverNotifications,
  driverStationZones,
  invitations,
  leads,
  notificationChannels,
  offers,
  optOutHashes,
  optOuts,
  outbox,
  pendingSignups,
  platformAccounts,
  platformSignIns,
  pushSubscriptions,
  rateLimits,
  referralCodes,
  refreshTokens,
  resellers,
  users,
  verificationCodes,
} from "../db/schema";
import { ApiError } from "../errors";
import { eraseMessagesStatements } from "../messaging/message-ledger";
import { engineOf } from "../platform/engine-client";

export type ErasureRequest =
  | { by: "self"; actorId: number }
  | {
      by: "admin";
      actorId: number;
      /** The written request's reference (ticket, letter, email subject and date). */
      reference: string;
    };

export type ErasureResult = { erased: true; alreadyErased: boolean };

/** The tombstone an erased account's phone becomes: never a number, unique per account. */
export const erasedPhone = (userId: number) => `${ERASED_PHONE_PREFIX}${userId}`;

type Batch = [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];

/** What an erased value in an audit row's details becomes. */
const ERASED = "[erased]";
const ERASED_PAIR = JSON.stringify([ERASED, ERASED]);
/** The personal fields an administrator's profile edit records (admin/user-detail.ts `updateProfile`). */
const EDITED_PERSONAL_FIELDS = ["name", "email", "humanRegion", "deliveryArea"] as const;

export async function eraseAccount(
  db: Db,
  env: Pick<Env, "CAPTURE_SESSION" | "PASSWORD_PEPPER">,
  userId: number,
  request: ErasureRequest,
): Promise<ErasureResult> {
  const user = await db.query.users.findFirst({ where: eq(users.id, userId) });
  if (!user) throw new ApiError("not_found", "No such user");
  if (user.erasedAt !== null) return { erased: true, alreadyErased: true };

  // The engine first: it stops, the platform's tokens are destroyed and the offer history it kept
  // is deleted. Nothing in D1 changes if it fails.
  try {
    await engineOf(env, userId).erase(userId);
  } catch {
    throw new ApiError("unavailable", "Couldn't stop the capture engine. Nothing was deleted; try again in a minute");
  }

  const now = Date.now();
  const phone = user.phone;
  // The same number may hold an account in the other app: rows keyed by the number alone stay for it.
  const other = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.phone, phone), ne(users.id, userId)))
    .get();
  const numberIsOurs = !other;
  const hash = await phoneHash(env.PASSWORD_PEPPER, phone);

  const action: AuditAction = request.by === "admin" ? "admin.account_erased" : "account.erased";
  const jsonText = (value: string) => JSON.stringify(value);
  const scrub = (column: typeof auditLog.details, value: string | null) =>
    value ? sql`replace(${column}, ${jsonText(value)}, ${jsonText(ERASED)})` : sql`${column}`;

  // An opt-out outlives the account, by its keyed hash (before the flags and rows below are cleared).
  const keepOptOuts: BatchItem<"sqlite">[] = numberIsOurs
    ? [
        // Read inside the transaction: an opt-out recorded a moment ago is kept too.
        db
          .insert(optOutHashes)
          .select(
            db
              .select({ hash: sql<string>`${hash}`.as("hash"), channel: optOuts.channel, at: optOuts.at })
              .from(optOuts)
              .where(eq(optOuts.phone, phone)),
          )
          .onConflictDoNothing(),
        ...(["sms", "whatsapp"] as const).map((channel) =>
          db
            .insert(optOutHashes)
            .select(
              db
                .select({ hash: sql<string>`${hash}`.as("hash"), channel: sql<typeof channel>`${channel}`.as("channel"), at: sql<number>`${now}`.as("at") })
                .from(users)
                .where(and(eq(users.id, userId), eq(channel === "sms" ? users.smsOptOut : users.whatsappOptOut, true))),
            )
            .onConflictDoNothing(),
        ),
      ]
    : [];

  const statements: BatchItem<"sqlite">[] = [
    ...keepOptOuts,
    // Sessions and sign-ins end.
    db.delete(refreshTokens).where(eq(refreshTokens.userId, userId)),
    db.delete(authChallenges).where(eq(authChallenges.userId, userId)),
    db.delete(verificationCodes).where(and(eq(verificationCodes.app, user.app), eq(verificationCodes.phone, phone))),
    // Windows keyed by the number (per phone, per phone and purpose, per account).
    db.delete(rateLimits).where(like(rateLimits.key, `%:${phone}%`)),
    // The driver product.
    db.delete(platformSignIns).where(eq(platformSignIns.userId, userId)),
    db.delete(platformAccounts).where(eq(platformAccounts.userId, userId)),
    db.delete(driverStationZones).where(eq(driverStationZones.userId, userId)),
    db.delete(driverFilters).where(eq(driverFilters.userId, userId)),
    // What a registrant typed and never confirmed (auth/pending-signup.ts).
    db.delete(pendingSignups).where(eq(pendingSignups.userId, userId)),
    db.delete(offers).where(eq(offers.userId, userId)),
    // Notifications: the devices, the choices, and what was sent (a queued one is never sent).
    db.delete(driverNotifications).where(eq(driverNotifications.userId, userId)),
    db.delete(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)),
    db.delete(notificationChannels).where(eq(notificationChannels.userId, userId)),
    // Invitations: the numbers the account gave us, and others' invitations of its number.
    db.delete(invitations).where(eq(invitations.inviterId, userId)),
    db.delete(leads).where(eq(leads.userId, userId)),
    // Messages: unsent ones are not sent, failed ones not retried, then the number and name go.
    ...eraseMessagesStatements(db, { userId, phone: numberIsOurs ? phone : null }, now),
    // The audit trail keeps what was done, not who the person was.
    db
      .update(auditLog)
      .set({ details: sql`${scrub(auditLog.details, phone)}` })
      .where(and(or(eq(auditLog.target, userTarget(userId)), eq(auditLog.actorId, userId)), like(auditLog.details, `%${phone}%`))),
    ...[user.name, user.email]
      .filter((value): value is string => !!value)
      .map((value) =>
        db
          .update(auditLog)
          .set({ details: scrub(auditLog.details, value) })
          .where(or(eq(auditLog.target, userTarget(userId)), eq(auditLog.actorId, userId))),
      ),
    // Earlier values an administrator changed (admin.user_updated keeps each field as [before, after]).
    db
      .update(auditLog)
      .set({
        details: sql`json_replace(${auditLog.details}, ${sql.join(
          EDITED_PERSONAL_FIELDS.flatMap((field) => [sql`${`$.changed.${field}`}`, sql`json(${ERASED_PAIR})`]),
          sql`, `,
        )})`,
      })
      .where(and(eq(auditLog.target, userTarget(userId)), eq(auditLog.action, "admin.user_updated"))),
    // The client address of each sign-in and reset.
    db
      .update(auditLog)
      .set({ details: sql`json_replace(${auditLog.details}, '$.address', ${ERASED})` })
      .where(and(or(eq(auditLog.target, userTarget(userId)), eq(auditLog.actorId, userId)), sql`json_type(${auditLog.details}, '$.address') IS NOT NULL`)),
    db
      .update(resellers)
      .set({
        message: null,
        status: sql`CASE WHEN ${resellers.status} IN ('applied', 'approved') THEN 'revoked' ELSE ${resellers.status} END`,
        updatedAt: now,
      })
      .where(eq(resellers.userId, userId)),
    db.update(referralCodes).set({ owner: "erased" }).where(eq(referralCodes.ownerUserId, userId)),
    db.update(leads).set({ ownerId: null }).where(eq(leads.ownerId, userId)),
    // The account row: an anchor for the payments and service time that stay, with nothing personal.
    db
      .update(users)
      .set({
        phone: erasedPhone(userId),
        phoneVerified: false,
        name: "",
        email: null,
        passwordHash: null,
        isAdmin: false,
        roleName: null,
        roleProperties: null,
        expirationAt: null,
        goodStanding: false,
        humanRegion: null,
        deliveryArea: null,
        accountConnected: false,
        setupComplete: false,
        status: "stop",
        referralCode: null,
        // Lower case: sign-up codes are matched upper-cased, so no link can ever name this one.
        inviteCode: sql`'erased-' || ${users.id}`,
        invitedBy: null,
        stripeCustomerId: null,
        mfaSecret: null,
        mfaMethod: "none",
        lastSignInAt: null,
        mustChangePassword: false,
        smsOptOut: false,
        whatsappOptOut: false,
        erasedAt: now,
      })
      .where(and(eq(users.id, userId), isNull(users.erasedAt))),
    auditInsert(
      db,
      {
        actorId: request.actorId,
        action,
        target: userTarget(userId),
        details: request.by === "admin" ? { reference: request.reference, app: user.app } : { app: user.app },
      },
      now,
    ),
  ];

  if (numberIsOurs) {
    statements.push(
      db.delete(optOuts).where(eq(optOuts.phone, phone)),
      db
        .update(consentEvents)
        .set({ phone: `hash:${hash}`, userId: null })
        .where(or(eq(consentEvents.phone, phone), eq(consentEvents.userId, userId))),
      db.delete(invitations).where(eq(invitations.phone, phone)),
      db.delete(leads).where(eq(leads.phone, phone)),
      db.delete(campaignExclusions).where(eq(campaignExclusions.phone, phone)),
      db.delete(consentConfirmations).where(eq(consentConfirmations.phone, phone)),
      db.delete(outbox).where(eq(outbox.to, phone)),
      // A typed list still waiting to be sent no longer names the number.
      db
        .update(campaigns)
        .set({
          audience: sql`json_set(${campaigns.audience}, '$.phones', (SELECT json_group_array(value) FROM json_each(${campaigns.audience}, '$.phones') WHERE value <> ${phone}))`,
        })
        .where(and(eq(campaigns.source, "list"), sql`EXISTS (SELECT 1 FROM json_each(${campaigns.audience}, '$.phones') WHERE value = ${phone})`)),
    );
  } else {
    statements.push(db.update(consentEvents).set({ userId: null }).where(eq(consentEvents.userId, userId)));
  }

  await db.batch(statements as Batch);
  return { erased: true, alreadyErased: false };
}
