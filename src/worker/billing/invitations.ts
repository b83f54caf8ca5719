import { and, asc, desc, eq, gt, inArray, lte, ne, sql } from "drizzle-orm";
import { enforceRateLimits, limitFor } from "../auth/rate-limit";
import type { SignUpClaims } from "../auth/sign-up-claims";
import { chargeRequestedText } from "../auth/sms-budget";
import { recordConsent } from "../compliance/consent";
import { restoreErasedOptOuts } from "../compliance/erased-opt-outs";
import { appUrl, type Config } from "../config";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { invitations, payments, referralCodes, serviceTimeLedger, users } from "../db/schema";
import { ApiError } from "../errors";
import { resumeCapture } from "../platform/capture";
import { createSmsProvider } from "../providers/sms/provider";
import type { BillingContext } from "./context";
import { billingMessages, inviterFirstName, sendCourtesySms, smsOptedOut } from "./notify";
import { DAY_MS, serviceTimeStatements } from "./service-time";

/** The free week (docs/payments.md): what an inviter earns once per friend, on the friend's first payment. */
export const FREE_WEEK_DAYS = 7;
/** Invitations one driver may text in any 24 hours. */
export const INVITATIONS_PER_DAY = 20;

export type InvitationState = "invited" | "registered" | "paid" | "free_week";

/**
 * A friend's account: the same app and phone as the invitation, made when or after it was (a
 * link's invitation is recorded with the account). A number that was a driver's already when
 * invited stays `invited`: the inviter learns nothing from the list that the answer did not tell.
 */
const friendOf = sql`(SELECT ${users.id} FROM ${users} WHERE ${users.app} = ${invitations.app} AND ${users.phone} = ${invitations.phone} AND ${users.createdAt} >= ${invitations.invitedAt})`;
// Nested so its columns stay qualified: drizzle strips table names from a single-table select's own fields.
const friendPaid = sql`EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.userId} = ${friendOf} AND ${payments.status} IN ('successful', 'refunded'))`;
const stateOf = sql<InvitationState>`CASE
  WHEN ${invitations.freeWeek} = 1 THEN 'free_week'
  WHEN ${friendPaid} THEN 'paid'
  WHEN ${friendOf} IS NOT NULL THEN 'registered'
  ELSE 'invited' END`;

/**
 * What a sign-up code means: a reseller's referral code (the driver becomes their client), or a
 * driver's own invite code from an invite link (the driver was invited by them). Case-insensitive.
 * Both belong to one app: a code of the other app means nothing here (a reseller registering his
 * own second account in the other app with his code would earn commission on himself).
 */
async function resolveSignUpCode(db: Db, app: "flex" | "spark", code: string): Promise<{ referralCode: string } | { invitedBy: number } | null> {
  const referral = await db
    .select({ code: referralCodes.code })
    .from(referralCodes)
    .where(and(sql`upper(${referralCodes.code}) = upper(${code})`, eq(referralCodes.app, app)))
    .get();
  if (referral) return { referralCode: referral.code };
  const inviter = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.inviteCode, code.toUpperCase()), eq(users.app, app)))
    .get();
  return inviter ? { invitedBy: inviter.id } : null;
}

/**
 * A friend who signed up through an invite link they were not texted still counts as invited by its
 * owner, once they prove the phone with their registration password (src/worker/auth/pending-signup.ts):
 * the statement, for that confirmation's batch.
 */
function linkInvitationStatement(db: Db, input: { inviterId: number; app: "flex" | "spark"; phone: string; invitedAt: number }) {
  return db
    .insert(invitations)
    .values({ inviterId: input.inviterId, app: input.app, phone: input.phone, invitedAt: input.invitedAt, via: "link" })
    .onConflictDoNothing({ target: [invitations.inviterId, invitations.phone] });
}

/** Billing's answers to identity about the codes a registrant types (src/worker/auth/sign-up-claims.ts). */
export const signUpClaims: SignUpClaims = { resolveCode: resolveSignUpCode, invitedThroughLink: linkInvitationStatement };

/**
 * Invites a friend by SMS, in the inviter's language, with a sign-up link (from APP_ORIGIN) carrying
 * the inviter's invite code. The answer must not tell who is a driver or who opted out, so:
 * - the limits come first, before anything is looked up about the number: 30 requests an hour per
 *   client address, and 20 invitations per driver in any 24 hours (counted in the statement that
 *   inserts, so parallel requests cannot pass it together);
 * - every number then gets the same invitation row and the same answer (201, `invited`), but only a
 *   number that is neither a driver of the app nor opted out (STOP) is texted. The others do the
 *   same reads and budget writes (`chargeRequestedText`, texted or not) and nothing is sent;
 * - the text goes after the answer (its latency would tell), in fixed words with the inviter's
 *   first name only (`inviterFirstName`); if it fails, the invitation is taken back so it can be
 *   sent again.
 * Refused only for the inviter's own number and one they already invited: both about their own data.
 */
export async function inviteFriend(
  ctx: BillingContext,
  config: Pick<Config, "APP_ORIGIN" | "CODE_SMS_HOURLY_BUDGET">,
  inviter: SessionUser,
  phone: string,
  address: string,
) {
  const { db } = ctx;
  if (phone === inviter.phone) throw new ApiError("unprocessable", "You cannot invite yourself", { details: { reason: "self" } });
  const now = Date.now();
  await enforceRateLimits(db, [limitFor("invitePerAddress", address)], now);

  const windowStart = now - DAY_MS;
  const sentToday = sql`(SELECT count(*) FROM ${invitations} WHERE ${invitations.inviterId} = ${inviter.id} AND ${invitations.via} = 'sms' AND ${invitations.invitedAt} > ${windowStart})`;
  const inserted = await db
    .insert(invitations)
    .select(
      db
        .select({
          id: sql<number>`NULL`.as("id"),
          inviterId: users.id,
          app: users.app,
          phone: sql<string>`${phone}`.as("phone"),
          invitedAt: sql<number>`${now}`.as("invited_at"),
          freeWeek: sql<boolean>`0`.as("free_week"),
          via: sql<"sms">`'sms'`.as("via"),
          inviteeId: sql<number | null>`NULL`.as("invitee_id"),
          freeWeekAt: sql<number | null>`NULL`.as("free_week_at"),
          freeWeekPaymentId: sql<number | null>`NULL`.as("free_week_payment_id"),
        })
        .from(users)
        .where(and(eq(users.id, inviter.id), sql`${sentToday} < ${INVITATIONS_PER_DAY}`)),
    )
    .onConflictDoNothing({ target: [invitations.inviterId, invitations.phone] })
    .returning()
    .get();
  if (!inserted) {
    const already = await db
      .select({ id: invitations.id })
      .from(invitations)
      .where(and(eq(invitations.inviterId, inviter.id), eq(invitations.phone, phone)))
      .get();
    if (already) throw new ApiError("conflict", "You already invited this number", { details: { reason: "already_invited" } });
    const oldest = await db
      .select({ at: invitations.invitedAt })
      .from(invitations)
      .where(and(eq(invitations.inviterId, inviter.id), eq(invitations.via, "sms"), gt(invitations.invitedAt, windowStart)))
      .orderBy(asc(invitations.invitedAt))
      .limit(1)
      .get();
    throw new ApiError("rate_limited", `You can invite ${INVITATIONS_PER_DAY} friends a day`, {
      retryAfterSeconds: oldest ? (oldest.at + DAY_MS - now) / 1000 : 60,
      details: { reason: "daily_limit", limit: INVITATIONS_PER_DAY },
    });
  }

  // Only now, within the limits, what the number is; whatever it is, the answer below is the same.
  // An erased account's opt-out is only a keyed hash until the number comes back: it does now.
  await restoreErasedOptOuts(db, ctx.env.PASSWORD_PEPPER, [phone]);
  const [driver, optedOut] = await Promise.all([
    db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.app, inviter.app), eq(users.phone, phone)))
      .get(),
    smsOptedOut(db, phone),
  ]);
  const texted = !driver && !optedOut;
  try {
    await chargeRequestedText({ db, config, log: ctx.log, now }, { purpose: "invitation", texted, mayUseReserve: false });
  } catch (err) {
    await db.delete(invitations).where(eq(invitations.id, inserted.id));
    throw err;
  }
  if (texted) {
    const link = appUrl(config, `/register?ref=${encodeURIComponent(inviter.inviteCode)}`);
    ctx.waitUntil(
      textInvitation(ctx, { id: inserted.id, phone, now }, inviter, billingMessages.invite(inviter.language, inviterFirstName(inviter.name), link)),
    );
  }
  return { id: inserted.id, phoneNumber: inserted.phone, invitedAt: inserted.invitedAt, state: "invited" as InvitationState };
}

/** Sends an invitation after the answer; a failed send takes the invitation back (and logs), so the driver may send it again. */
async function textInvitation(ctx: BillingContext, invitation: { id: number; phone: string; now: number }, inviter: SessionUser, body: string) {
  const { db } = ctx;
  try {
    const outcome = await createSmsProvider(ctx.env).send({ to: invitation.phone, body });
    if (!outcome.ok) {
      ctx.log.warn("invitations.sms_failed", { errorCode: outcome.errorCode });
      await db.delete(invitations).where(eq(invitations.id, invitation.id));
      return;
    }
    // The ledger says how we got the number: a friend gave it, a weaker basis that allows no marketing (docs/messaging-rules.md).
    await recordConsent(db, {
      phone: invitation.phone,
      basis: "invitation",
      source: "invitation",
      text: null,
      language: inviter.language,
      actorId: inviter.id,
      at: invitation.now,
    });
  } catch (err) {
    ctx.log.error("invitations.sms_failed", { error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * The free week: when an invited friend's payment succeeds, their inviter gains 7 days, once per
 * friend (the ledger key `free_week:invitee:<id>`), whatever redeliveries or concurrent events
 * happen. The inviter is the one whose link the friend registered with, if they had invited them,
 * else the first who invited the number.
 */
export async function grantFreeWeek(ctx: BillingContext, input: { inviteeId: number; paymentId: number }) {
  const { db } = ctx;
  const invitee = await db
    .select({ id: users.id, app: users.app, phone: users.phone, invitedBy: users.invitedBy, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.id, input.inviteeId))
    .get();
  if (!invitee) return;
  const invitation = await db
    .select({ id: invitations.id, inviterId: invitations.inviterId })
    .from(invitations)
    // Only invitations made before the friend's account: inviting someone already a driver earns nothing.
    .where(
      and(
        eq(invitations.app, invitee.app),
        eq(invitations.phone, invitee.phone),
        ne(invitations.inviterId, invitee.id),
        lte(invitations.invitedAt, invitee.createdAt),
      ),
    )
    .orderBy(desc(sql`${invitations.inviterId} = ${invitee.invitedBy ?? 0}`), asc(invitations.invitedAt), asc(invitations.id))
    .limit(1)
    .get();
  if (!invitation) return;

  const now = Date.now();
  const time = serviceTimeStatements(
    db,
    {
      userId: invitation.inviterId,
      deltaMs: FREE_WEEK_DAYS * DAY_MS,
      kind: "free_week",
      sourceKey: `free_week:invitee:${invitee.id}`,
      invitationId: invitation.id,
      reason: "An invited friend's first payment",
      // A disputed payment earns nothing, even while it is still "successful".
      guard: sql`EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.id} = ${input.paymentId} AND ${payments.userId} = ${invitee.id} AND ${payments.status} = 'successful' AND ${payments.disputeId} IS NULL)`,
    },
    now,
  );
  const [, , ledger] = await db.batch([
    ...time.statements,
    db
      .update(invitations)
      .set({ freeWeek: true, inviteeId: invitee.id, freeWeekAt: now, freeWeekPaymentId: input.paymentId })
      .where(and(eq(invitations.id, invitation.id), time.appliedHere)),
  ]);
  const result = time.resultOf(ledger);
  if (!result.applied) return;
  ctx.log.info("invitations.free_week", { inviterId: invitation.inviterId, inviteeId: invitee.id });
  ctx.waitUntil(resumeCapture(ctx.env, invitation.inviterId));
  const inviter = await db.select({ phone: users.phone, language: users.language }).from(users).where(eq(users.id, invitation.inviterId)).get();
  if (inviter)
    await sendCourtesySms(ctx, inviter.phone, billingMessages.freeWeek(inviter.language, result.entry?.expirationAfter ?? null), "invitations.free_week_sms");
}

/**
 * The friend's payment that earned a free week was refunded in full or disputed: the week is taken
 * back from the inviter (ledger kind `free_week_reversed`, key `free_week_reversed:invitee:<id>`,
 * once: the days the grant added, never below now) and the invitation no longer counts as a free
 * week, in one transaction. A free week earned by another of the friend's payments stays. The
 * week is not earned again by a later payment of the same friend (its key is spent).
 */
export async function takeBackFreeWeek(ctx: BillingContext, input: { inviteeId: number; paymentId: number; cause: "refund" | "dispute" }) {
  const { db } = ctx;
  const granted = await db
    .select({ userId: serviceTimeLedger.userId, deltaMs: serviceTimeLedger.deltaMs, invitationId: serviceTimeLedger.invitationId })
    .from(serviceTimeLedger)
    .where(eq(serviceTimeLedger.sourceKey, `free_week:invitee:${input.inviteeId}`))
    .get();
  if (!granted || granted.deltaMs <= 0) return;
  const invitation = granted.invitationId
    ? await db.select({ id: invitations.id, paymentId: invitations.freeWeekPaymentId }).from(invitations).where(eq(invitations.id, granted.invitationId)).get()
    : undefined;
  // Weeks granted before the qualifying payment was kept: the friend's first payment that settled paid.
  const qualifying =
    invitation?.paymentId ??
    (
      await db
        .select({ id: payments.id })
        .from(payments)
        .where(and(eq(payments.userId, input.inviteeId), inArray(payments.status, ["successful", "refunded"])))
        .orderBy(asc(payments.settledAt), asc(payments.id))
        .limit(1)
        .get()
    )?.id;
  if (qualifying !== input.paymentId) return;

  const now = Date.now();
  const time = serviceTimeStatements(
    db,
    {
      userId: granted.userId,
      deltaMs: -granted.deltaMs,
      kind: "free_week_reversed",
      sourceKey: `free_week_reversed:invitee:${input.inviteeId}`,
      invitationId: granted.invitationId,
      reason: input.cause === "dispute" ? "The invited friend's payment was disputed" : "The invited friend's payment was refunded",
    },
    now,
  );
  const [, , ledger] = await db.batch([
    ...time.statements,
    ...(invitation
      ? [
          db
            .update(invitations)
            .set({ freeWeek: false })
            .where(and(eq(invitations.id, invitation.id), time.appliedHere)),
        ]
      : []),
  ]);
  const result = time.resultOf(ledger);
  if (!result.applied) return;
  ctx.log.info("invitations.free_week_reversed", { inviterId: granted.userId, inviteeId: input.inviteeId, cause: input.cause });
  // The inviter's engine reads the shorter expiry at once (and stops if it has passed).
  ctx.waitUntil(resumeCapture(ctx.env, granted.userId));
}

/** A driver's invitations, newest first, each with its state; and how many of each state they have. */
export async function invitationPage(db: Db, inviterId: number, page: number, pageSize: number) {
  const now = Date.now();
  const [summary, rows, today] = await db.batch([
    db
      .select({ state: stateOf.as("state"), n: sql<number>`count(*)`.as("n") })
      .from(invitations)
      .where(eq(invitations.inviterId, inviterId))
      .groupBy(sql`1`),
    db
      .select({ id: invitations.id, phoneNumber: invitations.phone, invitedAt: invitations.invitedAt, via: invitations.via, state: stateOf.as("state") })
      .from(invitations)
      .where(eq(invitations.inviterId, inviterId))
      .orderBy(desc(invitations.invitedAt), desc(invitations.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ n: sql<number>`count(*)` })
      .from(invitations)
      .where(and(eq(invitations.inviterId, inviterId), eq(invitations.via, "sms"), gt(invitations.invitedAt, now - DAY_MS))),
  ]);
  const counts: Record<InvitationState, number> = { invited: 0, registered: 0, paid: 0, free_week: 0 };
  for (const r of summary) counts[r.state] = r.n;
  const total = counts.invited + counts.registered + counts.paid + counts.free_week;
  return {
    total,
    page,
    pageSize,
    rows,
    summary: { ...counts, freeWeeksEarned: counts.free_week, remainingToday: Math.max(0, INVITATIONS_PER_DAY - (today[0]?.n ?? 0)) },
  };
}
