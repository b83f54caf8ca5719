import { env } from "cloudflare:test";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  auditLog,
  authChallenges,
  campaignMessages,
  campaigns,
  driverNotifications,
  invitations,
  leads,
  offers,
  outbox,
  platformSignIns,
  rateLimits,
  refreshTokens,
  verificationCodes,
} from "./db/schema";
import { expiredMessages } from "./messaging/message-ledger";
import { deleteExpiredRows, RETENTION } from "./retention";
import { createUser, db, uniquePhone, uniqueTag } from "./test/fixtures";

const DAY = 86_400_000;

describe("retention (deleteExpiredRows, a scheduled job)", () => {
  it("deletes each kind of row past its time and keeps the fresh ones", async () => {
    const now = Date.now();
    const user = await createUser();
    const admin = await createUser({ isAdmin: true, roleName: "owner" });
    const phone = uniquePhone();
    const tag = uniqueTag("hk");

    // Codes, challenges, windows, refresh tokens, platform sign-ins: by their own expiry.
    const [oldCode, freshCode] = await db
      .insert(verificationCodes)
      .values([
        { app: "flex", phone, purpose: "confirm", codeHash: "a", expiresAt: now - RETENTION.verificationCodes - 1 },
        { app: "flex", phone, purpose: "confirm", codeHash: "b", expiresAt: now - 1 },
      ])
      .returning();
    await db.insert(authChallenges).values([
      { id: `${tag}-old`, userId: user.id, challenge: "SMS_MFA", expiresAt: now - 1 },
      { id: `${tag}-new`, userId: user.id, challenge: "SMS_MFA", expiresAt: now + 60_000 },
    ]);
    await db.insert(rateLimits).values([
      { key: `${tag}:old`, count: 1, resetAt: now - 1 },
      { key: `${tag}:new`, count: 1, resetAt: now + 60_000 },
    ]);
    await db.insert(refreshTokens).values([
      { tokenHash: `${tag}-old`, family: tag, userId: user.id, expiresAt: now - 1 },
      { tokenHash: `${tag}-new`, family: tag, userId: user.id, expiresAt: now + 60_000 },
    ]);
    await db.insert(platformSignIns).values([
      { id: `${tag}-old`, userId: user.id, email: "a@example.com", kind: "code", sealedSession: "s", expiresAt: now - 1 },
      { id: `${tag}-new`, userId: user.id, email: "a@example.com", kind: "code", sealedSession: "s", expiresAt: now + 60_000 },
    ]);

    // Won blocks after 400 days (offers not won live in the driver's history, which prunes its own).
    const offer = (ageMs: number) => ({
      userId: user.id,
      app: "flex" as const,
      platformOfferId: uniqueTag("o"),
      stationId: "S",
      stationName: "S",
      timeZone: "America/New_York",
      payCents: 1,
      startsAt: now - ageMs,
      endsAt: now - ageMs + 1,
      seenAt: now - ageMs,
      createdAt: now - ageMs,
    });
    const offerRows = await db
      .insert(offers)
      .values([offer(RETENTION.offersWon - DAY), offer(RETENTION.offersWon + DAY)])
      .returning({ id: offers.id });

    // Campaign messages after two years; leads after a year since their last change.
    const campaign = await db
      .insert(campaigns)
      .values({ app: "flex", channel: "sms", source: "list", audience: {}, authorId: admin.id, idempotencyKey: tag })
      .returning()
      .get();
    const messageRows = await db
      .insert(campaignMessages)
      .values([
        { campaignId: campaign.id, phone: uniquePhone(), status: "delivered", updatedAt: now - RETENTION.campaignMessages - DAY },
        { campaignId: campaign.id, phone: uniquePhone(), status: "delivered", updatedAt: now - RETENTION.campaignMessages + DAY },
      ])
      .returning({ id: campaignMessages.id });
    const leadRows = await db
      .insert(leads)
      .values([
        { app: "flex", phone: uniquePhone(), source: "contact", createdAt: now - RETENTION.leads - DAY },
        { app: "flex", phone: uniquePhone(), source: "contact", createdAt: now - RETENTION.leads - DAY, updatedAt: now - DAY },
        { app: "flex", phone: uniquePhone(), source: "contact", createdAt: now - DAY },
      ])
      .returning({ id: leads.id });

    // Invitations: unanswered ones after a year; one that earned a free week, or whose number registered, stays.
    const registered = await createUser();
    const invitationRows = await db
      .insert(invitations)
      .values([
        { inviterId: user.id, app: "flex", phone: uniquePhone(), invitedAt: now - RETENTION.unansweredInvitations - DAY },
        { inviterId: user.id, app: "flex", phone: uniquePhone(), invitedAt: now - RETENTION.unansweredInvitations - DAY, freeWeek: true },
        { inviterId: user.id, app: "flex", phone: registered.phone, invitedAt: now - RETENTION.unansweredInvitations - DAY },
        { inviterId: user.id, app: "flex", phone: uniquePhone(), invitedAt: now - DAY },
      ])
      .returning({ id: invitations.id });

    const auditRows = await db
      .insert(auditLog)
      .values([
        { actorId: admin.id, action: "admin.user_updated", target: tag, at: now - RETENTION.auditLog - DAY },
        { actorId: admin.id, action: "admin.user_updated", target: tag, at: now - DAY },
      ])
      .returning({ id: auditLog.id });
    const outboxRows = await db
      .insert(outbox)
      .values([
        { channel: "sms", to: phone, body: "old", providerId: `${tag}-old`, createdAt: now - RETENTION.outbox - DAY },
        { channel: "sms", to: phone, body: "new", providerId: `${tag}-new`, createdAt: now - DAY },
      ])
      .returning({ id: outbox.id });

    await deleteExpiredRows(env, now, [expiredMessages]);

    const ids = async <T extends { id: number }>(rows: T[]) => rows.map((r) => r.id);
    expect(
      (
        await db
          .select({ id: verificationCodes.id })
          .from(verificationCodes)
          .where(inArray(verificationCodes.id, [oldCode!.id, freshCode!.id]))
      ).map((r) => r.id),
    ).toEqual([freshCode!.id]);
    expect((await db.select({ id: authChallenges.id }).from(authChallenges).where(eq(authChallenges.userId, user.id))).map((r) => r.id)).toEqual([
      `${tag}-new`,
    ]);
    expect(
      (
        await db
          .select({ key: rateLimits.key })
          .from(rateLimits)
          .where(inArray(rateLimits.key, [`${tag}:old`, `${tag}:new`]))
      ).map((r) => r.key),
    ).toEqual([`${tag}:new`]);
    expect((await db.select({ t: refreshTokens.tokenHash }).from(refreshTokens).where(eq(refreshTokens.family, tag))).map((r) => r.t)).toEqual([`${tag}-new`]);
    expect((await db.select({ id: platformSignIns.id }).from(platformSignIns).where(eq(platformSignIns.userId, user.id))).map((r) => r.id)).toEqual([
      `${tag}-new`,
    ]);
    const o = await ids(offerRows);
    expect((await db.select({ id: offers.id }).from(offers).where(inArray(offers.id, o))).map((r) => r.id)).toEqual([o[0]]);
    const m = await ids(messageRows);
    expect((await db.select({ id: campaignMessages.id }).from(campaignMessages).where(inArray(campaignMessages.id, m))).map((r) => r.id)).toEqual([m[1]]);
    const l = await ids(leadRows);
    expect((await db.select({ id: leads.id }).from(leads).where(inArray(leads.id, l))).map((r) => r.id)).toEqual([l[1], l[2]]);
    const i = await ids(invitationRows);
    expect((await db.select({ id: invitations.id }).from(invitations).where(inArray(invitations.id, i))).map((r) => r.id)).toEqual([i[1], i[2], i[3]]);
    const a = await ids(auditRows);
    expect((await db.select({ id: auditLog.id }).from(auditLog).where(inArray(auditLog.id, a))).map((r) => r.id)).toEqual([a[1]]);
    const b = await ids(outboxRows);
    expect((await db.select({ id: outbox.id }).from(outbox).where(inArray(outbox.id, b))).map((r) => r.id)).toEqual([b[1]]);
  });

  it("deletes a driver's notifications 30 days after their last change", async () => {
    const now = Date.now();
    const user = await createUser();
    const tag = uniqueTag("dn");
    const row = (name: string, updatedAt: number) => ({
      userId: user.id,
      event: "blockWon" as const,
      channel: "sms" as const,
      key: `${tag}:${name}`,
      body: "x",
      status: "sent" as const,
      updatedAt,
    });
    await db
      .insert(driverNotifications)
      .values([row("old", now - RETENTION.driverNotifications - 1), row("fresh", now - RETENTION.driverNotifications + 60_000)]);
    await deleteExpiredRows(env, now, [expiredMessages]);
    const left = await db.select({ key: driverNotifications.key }).from(driverNotifications).where(eq(driverNotifications.userId, user.id));
    expect(left).toEqual([{ key: `${tag}:fresh` }]);
  });
});
