import { and, asc, desc, eq, gt, ne, sql } from "drizzle-orm";
import { restoreErasedOptOuts } from "../account/phone-hash";
import type { SessionUser } from "../auth/middleware";
import { recordConsent } from "../compliance/consent";
import type { Db } from "../db/client";
import { invitations, payments, referralCodes, users } from "../db/schema";
import { ApiError } from "../errors";
import { resumeCapture } from "../platform/capture";
import { createSmsProvider } from "../providers/sms/provider";
import type { BillingContext } from "./context";
import { billingMessages, sendCourtesySms, smsOptedOut } from "./notify";
import { DAY_MS, serviceTimeStatements } from "./service-time";

/** The free week (docs/payments.md): what an inviter earns once per friend, on the friend's first payment. */
export const FREE_WEEK_DAYS = 7;
/** Invitations one driver may text in any 24 hours. */
export const INVITATIONS_PER_DAY = 20;

export type InvitationState = "invited" | "registered" | "paid" | "free_week";

/** A friend's account: the same app and phone as the invitation. */
const friendOf = sql`(SELECT ${users.id} FROM ${users} WHERE ${users.app} = ${invitations.app} AND ${users.phone} = ${invitations.phone})`;
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
 */
export async function resolveSignUpCode(db: Db, app: "flex" | "spark", code: string): Promise<{ referralCode: string } | { invitedBy: number } | null> {
  const referral = await db.select({ code: referralCodes.code }).from(referralCodes).where(sql`upper(${referralCodes.code}) = upper(${code})`).get();
  if (referral) return { referralCode: referral.code };
  const inviter = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.inviteCode, code.toUpperCase()), eq(users.app, app)))
    .get();
  return inviter ? { invitedBy: inviter.id } : null;
}

/** A friend who signed up through an invite link they were not texted still counts as invited by its owner. */
export async function recordLinkInvitation(db: Db, input: { inviterId: number; app: "flex" | "spark"; phone: string; now: number }) {
  await db
    .insert(invitations)
    .values({ inviterId: input.inviterId, app: input.app, phone: input.phone, invitedAt: input.now, via: "link" })
    .onConflictDoNothing({ target: [invitations.inviterId, invitations.phone] });
}

/**
 * Invites a friend by SMS, in the inviter's language, with a sign-up link carrying the inviter's
 * invite code. Refused for the inviter's own number, an existing driver, a number that opted out,
 * one already invited, and past 20 invitations in 24 hours (counted in the same statement that
 * inserts, so parallel requests cannot pass the limit together). If the text cannot be sent the
 * invitation is taken back.
 */
export async function inviteFriend(ctx: BillingContext, inviter: SessionUser, phone: string, origin: string) {
  const { db } = ctx;
  if (phone === inviter.phone) throw new ApiError("unprocessable", "You cannot invite yourself", { details: { reason: "self" } });
  const existing = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.app, inviter.app), eq(users.phone, phone)))
    .get();
  if (existing) throw new ApiError("conflict", "This number already belongs to a driver", { details: { reason: "existing_driver" } });
  // An erased account's opt-out is only a keyed hash until the number comes back: it does now.
  await restoreErasedOptOuts(db, ctx.env.PASSWORD_PEPPER, [phone]);
  if (await smsOptedOut(db, phone)) throw new ApiError("unprocessable", "This number opted out of our texts", { details: { reason: "opted_out" } });

  const now = Date.now();
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

  const link = `${origin}/register?ref=${encodeURIComponent(inviter.inviteCode)}`;
  const outcome = await createSmsProvider(ctx.env).send({ to: phone, body: billingMessages.invite(inviter.language, inviter.name, link) });
  if (!outcome.ok) {
    ctx.log.warn("invitations.sms_failed", { errorCode: outcome.errorCode });
    await db.delete(invitations).where(eq(invitations.id, inserted.id));
    throw new ApiError("unavailable", "Couldn't send the invitation. Try again in a moment");
  }
  // The ledger says how we got the number: a friend gave it, a weaker basis that allows no marketing (docs/messaging-rules.md).
  await recordConsent(db, { phone, basis: "invitation", source: "invitation", text: null, language: inviter.language, actorId: inviter.id, at: now });
  return { id: inserted.id, phoneNumber: inserted.phone, invitedAt: inserted.invitedAt, state: "invited" as InvitationState };
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
    .select({ id: users.id, app: users.app, phone: users.phone, invitedBy: users.invitedBy })
    .from(users)
    .where(eq(users.id, input.inviteeId))
    .get();
  if (!invitee) return;
  const invitation = await db
    .select({ id: invitations.id, inviterId: invitations.inviterId })
    .from(invitations)
    .where(and(eq(invitations.app, invitee.app), eq(invitations.phone, invitee.phone), ne(invitations.inviterId, invitee.id)))
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
      guard: sql`EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.id} = ${input.paymentId} AND ${payments.userId} = ${invitee.id} AND ${payments.status} = 'successful')`,
    },
    now,
  );
  const [, , ledger] = await db.batch([
    ...time.statements,
    db
      .update(invitations)
      .set({ freeWeek: true, inviteeId: invitee.id, freeWeekAt: now })
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
