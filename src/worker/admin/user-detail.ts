import { and, count, desc, eq, gt, isNull, max, min, or, sql } from "drizzle-orm";
import type { AuditRow, SessionRow, UserDetail, UserMessageRow, UserProfilePatch } from "../../shared/admin-users";
import { type Page, pageOffset } from "../../shared/paging";
import { familyPassedTotp } from "../auth/refresh-tokens";
import { isInGoodStanding } from "../auth/user-item";
import type { SessionUser } from "../context";
import { auditInsert, recordAudit, userTarget } from "../cross-cutting/audit";
import { namedFields } from "../db/batch-fields";
import type { Db } from "../db/client";
import { auditLog, campaignMessages, campaigns, consentEvents, optOuts, refreshTokens, resellers, users } from "../db/schema";
import { ApiError } from "../errors";
import { visibleAuditRow, visibleCampaign } from "./billing-fields";

/**
 * The admin's user page (docs/admin.md): reads, and the changes an administrator may make. Every
 * change is written in one db.batch with its audit entry, so there is never one without the other.
 */

type UserRow = typeof users.$inferSelect;
type Paging = { page: number; pageSize: number };

export async function findUser(db: Db, id: number): Promise<UserRow> {
  const user = await db.select().from(users).where(eq(users.id, id)).get();
  if (!user) throw new ApiError("not_found", "No such user");
  return user;
}

/** The account behind a driver's dashboard: a driver (administrators have no engine); 404 for any other. */
export async function findDriver(db: Db, id: number): Promise<UserRow> {
  const driver = await findUser(db, id);
  if (driver.isAdmin) throw new ApiError("not_found", "No such driver");
  return driver;
}

/**
 * An administrator opens a driver's screens ("acting for", docs/admin.md): audited once per
 * opening, before anything of the driver's is shown; the reads and polling after it write nothing.
 */
export async function openActingFor(db: Db, actor: SessionUser, id: number, view: "dashboard" | "insights"): Promise<void> {
  const driver = await findDriver(db, id);
  await recordAudit(db, { actorId: actor.id, action: "driver.dashboard_viewed", target: userTarget(driver.id), details: { view, as: "admin" } });
}

const liveSession = (now: number) => and(isNull(refreshTokens.revokedAt), gt(refreshTokens.expiresAt, now));

/**
 * The user page's account. Without billingDetails (`billing` false) the billing fields are left
 * out: the referral code, the Connect account id, and the reseller's code and commission rate.
 */
export async function userDetail(db: Db, id: number, billing: boolean, now = Date.now()): Promise<UserDetail> {
  const [found, optOutRows, sessions, reseller] = await db.batch([
    db.select().from(users).where(eq(users.id, id)).limit(1),
    db
      .select()
      .from(optOuts)
      .where(eq(optOuts.phone, sql`(SELECT ${users.phone} FROM ${users} WHERE ${users.id} = ${id})`)),
    db
      .select({ n: sql<number>`count(DISTINCT ${refreshTokens.family})` })
      .from(refreshTokens)
      .where(and(eq(refreshTokens.userId, id), liveSession(now))),
    db
      .select({ status: resellers.status, referralCode: resellers.referralCode, commissionBps: resellers.commissionBps })
      .from(resellers)
      .where(eq(resellers.userId, id)),
  ]);
  const u = found[0];
  const r = reseller[0];
  if (!u) throw new ApiError("not_found", "No such user");
  const optOut = (channel: "sms" | "whatsapp", flag: boolean) => {
    const row = optOutRows.find((o) => o.channel === channel);
    return { optedOut: flag || row !== undefined, keyword: row?.keyword ?? null, at: row?.at ?? null };
  };
  const detail: UserDetail = {
    id: u.id,
    app: u.app,
    name: u.name,
    phone: u.phone,
    email: u.email,
    region: u.app === "flex" ? u.humanRegion : u.deliveryArea,
    humanRegion: u.humanRegion,
    deliveryArea: u.deliveryArea,
    referral: u.referralCode,
    phoneVerified: u.phoneVerified,
    goodStanding: isInGoodStanding(u, now),
    accountConnected: u.accountConnected,
    setupComplete: u.setupComplete,
    status: u.status,
    expirationAt: u.expirationAt,
    createdAt: u.createdAt,
    lastSignInAt: u.lastSignInAt,
    isAdmin: u.isAdmin,
    roleName: u.roleName,
    roleBillingDetails: u.roleProperties?.billingDetails === true,
    reseller: r?.status === "approved",
    resellerState: r ? { status: r.status, referralCode: r.referralCode, commissionPercent: r.commissionBps / 100 } : null,
    stripeExpressId: u.stripeExpressId,
    language: u.language,
    inviteCode: u.inviteCode,
    mfaMethod: u.mfaMethod,
    optOuts: { sms: optOut("sms", u.smsOptOut), whatsapp: optOut("whatsapp", u.whatsappOptOut) },
    liveSessions: sessions[0]?.n ?? 0,
  };
  if (billing) return detail;
  const { referral: _referral, stripeExpressId: _stripe, resellerState, ...rest } = detail;
  return { ...rest, resellerState: resellerState ? { status: resellerState.status } : null };
}

/**
 * An action whose target is an administrator's account (editing it, signing it out, its opt-outs,
 * its authenticator, its role, its service time) is the owner's alone: support must not act on the
 * owner, nor on another administrator.
 */
export function assertMayActOn(actor: SessionUser, target: Pick<UserRow, "isAdmin">): void {
  if (target.isAdmin && actor.roleName !== "owner") {
    throw new ApiError("forbidden", "Only the owner may act on an administrator's account", { details: { reason: "administrator_account" } });
  }
}

/** The account an action targets, once the actor may act on it. */
async function targetOf(db: Db, actor: SessionUser, id: number): Promise<UserRow> {
  const user = await findUser(db, id);
  assertMayActOn(actor, user);
  return user;
}

/** The fields a patch changes, as { field: [before, after] }; unchanged ones are left out. */
function changes(before: Record<string, unknown>, after: Record<string, unknown>) {
  const out: Record<string, [unknown, unknown]> = {};
  for (const [key, value] of Object.entries(after)) if (before[key] !== value) out[key] = [before[key], value];
  return out;
}

export async function updateProfile(db: Db, actor: SessionUser, id: number, patch: UserProfilePatch, now = Date.now()) {
  const user = await targetOf(db, actor, id);
  const regionColumn = user.app === "flex" ? "humanRegion" : "deliveryArea";
  const next: Partial<UserRow> = {};
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.email !== undefined) next.email = patch.email;
  if (patch.language !== undefined) next.language = patch.language;
  if (patch.region !== undefined) next[regionColumn] = patch.region;
  const changed = changes(user, next);
  if (Object.keys(changed).length === 0) return;
  await db.batch([
    db.update(users).set(next).where(eq(users.id, id)),
    auditInsert(db, { actorId: actor.id, action: "admin.user_updated", target: userTarget(id), details: { changed } }, now),
  ]);
}

/** Ends every session of the user at once: their ID tokens stop working on the next request. */
export async function signOutEverywhere(db: Db, actor: SessionUser, id: number, reason: string, now = Date.now()) {
  await targetOf(db, actor, id);
  const [revoked] = await db.batch([
    db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.userId, id), isNull(refreshTokens.revokedAt)))
      .returning({ family: refreshTokens.family }),
    auditInsert(db, { actorId: actor.id, action: "admin.user_signed_out", target: userTarget(id), details: { reason } }, now),
  ]);
  return { sessions: new Set(revoked.map((r) => r.family)).size };
}

/**
 * Forgets the user's authenticator (a lost phone): the next sign-in enrols a new one (administrators
 * must), and every session ends so nobody stays signed in on the strength of the old one.
 */
export async function resetTotp(db: Db, actor: SessionUser, id: number, reason: string, now = Date.now()) {
  const user = await targetOf(db, actor, id);
  if (user.mfaMethod !== "totp") throw new ApiError("conflict", "This account has no authenticator to reset");
  await db.batch([
    db.update(users).set({ mfaSecret: null, mfaMethod: "none" }).where(eq(users.id, id)),
    db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.userId, id), isNull(refreshTokens.revokedAt))),
    auditInsert(db, { actorId: actor.id, action: "admin.totp_reset", target: userTarget(id), details: { reason } }, now),
  ]);
}

export async function changeRole(
  db: Db,
  actor: SessionUser,
  id: number,
  role: { isAdmin: boolean; roleName?: string; billingDetails: boolean },
  now = Date.now(),
) {
  if (id === actor.id) throw new ApiError("conflict", "You cannot change your own role");
  const user = await targetOf(db, actor, id);
  const roleName = role.isAdmin ? (role.roleName ?? "admin") : null;
  const roleProperties = role.isAdmin ? { billingDetails: role.billingDetails } : null;
  const before = { isAdmin: user.isAdmin, roleName: user.roleName, billingDetails: user.roleProperties?.billingDetails === true };
  const after = { isAdmin: role.isAdmin, roleName, billingDetails: roleProperties?.billingDetails === true };
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  if (user.roleName === "owner" && roleName !== "owner") {
    const owners = await db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.isAdmin, true), eq(users.roleName, "owner")))
      .get();
    if ((owners?.n ?? 0) <= 1) throw new ApiError("conflict", "The last owner cannot stop being one");
  }
  // A new administrator signs in again, so the session they hold passed the TOTP admins need.
  const promoted = role.isAdmin && !user.isAdmin;
  await db.batch([
    db.update(users).set({ isAdmin: role.isAdmin, roleName, roleProperties }).where(eq(users.id, id)),
    ...(promoted
      ? [
          db
            .update(refreshTokens)
            .set({ revokedAt: now })
            .where(and(eq(refreshTokens.userId, id), isNull(refreshTokens.revokedAt))),
        ]
      : []),
    auditInsert(db, { actorId: actor.id, action: "admin.role_changed", target: userTarget(id), details: { before, after } }, now),
  ]);
}

/**
 * Opt-outs per channel: the account's flag and the opt-out list (which campaigns check by phone,
 * for numbers without an account too) move together, with "ADMIN" as the keyword of record.
 */
export async function setOptOuts(db: Db, actor: SessionUser, id: number, wanted: { sms: boolean; whatsapp: boolean }, now = Date.now()) {
  const user = await targetOf(db, actor, id);
  const before = { sms: user.smsOptOut, whatsapp: user.whatsappOptOut };
  if (before.sms === wanted.sms && before.whatsapp === wanted.whatsapp) return;
  const statements = (["sms", "whatsapp"] as const).map((channel) =>
    wanted[channel]
      ? db.insert(optOuts).values({ phone: user.phone, channel, keyword: "ADMIN", at: now }).onConflictDoNothing()
      : db.delete(optOuts).where(and(eq(optOuts.phone, user.phone), eq(optOuts.channel, channel))),
  );
  // The consent ledger (docs/messaging-rules.md) gets a row for each channel that changed: an
  // administrator's opt-out, or the removal of one (an opt-in on the person's behalf), with who did it.
  const changed = (["sms", "whatsapp"] as const).filter((channel) => before[channel] !== wanted[channel]);
  const ledger = changed.map((channel) =>
    db.insert(consentEvents).values({
      phone: user.phone,
      kind: wanted[channel] ? "opt_out" : "opt_in",
      channel,
      source: "admin",
      userId: user.id,
      actorId: actor.id,
      at: now,
    }),
  );
  await db.batch([
    db.update(users).set({ smsOptOut: wanted.sms, whatsappOptOut: wanted.whatsapp }).where(eq(users.phone, user.phone)),
    ...statements,
    ...ledger,
    auditInsert(db, { actorId: actor.id, action: "admin.opt_outs_changed", target: userTarget(id), details: { before, after: wanted } }, now),
  ]);
}

export async function userSessions(db: Db, id: number, { page, pageSize }: Paging, now = Date.now()): Promise<Page<SessionRow>> {
  await findUser(db, id);
  const where = and(eq(refreshTokens.userId, id), liveSession(now));
  const [total, rows] = await db.batch([
    db
      .select({ n: sql<number>`count(DISTINCT ${refreshTokens.family})` })
      .from(refreshTokens)
      .where(where),
    db
      .select({
        id: refreshTokens.family,
        startedAt: min(refreshTokens.createdAt),
        lastUsedAt: max(refreshTokens.createdAt),
        expiresAt: max(refreshTokens.expiresAt),
      })
      .from(refreshTokens)
      .where(eq(refreshTokens.userId, id))
      .groupBy(refreshTokens.family)
      .having(sql`sum(${refreshTokens.revokedAt} IS NULL AND ${refreshTokens.expiresAt} > ${now}) > 0`)
      .orderBy(desc(max(refreshTokens.createdAt)))
      .limit(pageSize)
      .offset(pageOffset(page, pageSize)),
  ]);
  return {
    total: total[0]?.n ?? 0,
    page,
    pageSize,
    rows: rows.map((r) => ({
      id: r.id.slice(-6),
      startedAt: r.startedAt ?? 0,
      lastUsedAt: r.lastUsedAt ?? 0,
      expiresAt: r.expiresAt ?? 0,
      totp: familyPassedTotp(r.id),
    })),
  };
}

/** The messages this user was sent by campaigns, newest first; the WhatsApp template's name only with `billing` (billing-fields.ts). */
export async function userMessages(db: Db, id: number, { page, pageSize }: Paging, billing: boolean): Promise<Page<UserMessageRow>> {
  await findUser(db, id);
  const [total, rows] = await db.batch([
    db.select({ n: count() }).from(campaignMessages).where(eq(campaignMessages.userId, id)),
    db
      .select(
        namedFields({
          id: campaignMessages.id,
          campaignId: campaignMessages.campaignId,
          channel: campaigns.channel,
          text: campaigns.message,
          template: sql<string | null>`json_extract(${campaigns.template}, '$.name')`,
          status: campaignMessages.status,
          errorCode: campaignMessages.errorCode,
          at: campaignMessages.updatedAt,
        }),
      )
      .from(campaignMessages)
      .innerJoin(campaigns, eq(campaigns.id, campaignMessages.campaignId))
      .where(eq(campaignMessages.userId, id))
      .orderBy(desc(campaignMessages.id))
      .limit(pageSize)
      .offset(pageOffset(page, pageSize)),
  ]);
  return { total: total[0]?.n ?? 0, page, pageSize, rows: rows.map((r) => visibleCampaign(r, billing)) };
}

/** An audit row with its actor's name (the actor may be gone: null). */
export const auditFields = namedFields({
  id: auditLog.id,
  at: auditLog.at,
  actorId: auditLog.actorId,
  actorName: sql<string | null>`${users.name}`,
  action: auditLog.action,
  target: auditLog.target,
  details: auditLog.details,
});

/** Audit entries about this user, and those they made themselves (an administrator's actions), newest first; billing details only with `billing`. */
export async function userAudit(db: Db, id: number, { page, pageSize }: Paging, billing: boolean): Promise<Page<AuditRow>> {
  await findUser(db, id);
  const where = or(eq(auditLog.target, userTarget(id)), eq(auditLog.actorId, id));
  const [total, rows] = await db.batch([
    db.select({ n: count() }).from(auditLog).where(where),
    db
      .select(auditFields)
      .from(auditLog)
      .leftJoin(users, eq(users.id, auditLog.actorId))
      .where(where)
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(pageSize)
      .offset(pageOffset(page, pageSize)),
  ]);
  return { total: total[0]?.n ?? 0, page, pageSize, rows: rows.map((r) => visibleAuditRow(r, billing)) };
}
