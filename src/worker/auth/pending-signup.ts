import { eq } from "drizzle-orm";
import { confirmRegistrationConsentStatement, dropRegistrationConsentStatement } from "../compliance/consent";
import { auditInsert, userTarget } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import { pendingSignups, users } from "../db/schema";
import type { User } from "./sign-in-flow";
import type { SignUpClaims } from "./sign-up-claims";

/**
 * What a registrant typed stays theirs only once they prove the phone with the password they
 * registered with (docs/security.md, "Proving a phone ends what came before"). Until then the
 * claims it gives others — a reseller's referral code, an inviter's link — wait in
 * `pending_signups`, and the marketing tick is an 'unconfirmed' consent row that allows nothing.
 * The name and email stay on the account (administrators follow unconfirmed sign-ups up by them)
 * but go with the rest when someone else proves the phone.
 */

export type PendingSignup = { referralCode: string | null; invitedBy: number | null };

/** The statement that holds a registration's claims, for the registration's own batch. */
export function holdSignupStatement(db: Db, userId: number, pending: PendingSignup, now: number) {
  return db.insert(pendingSignups).values({ userId, referralCode: pending.referralCode, invitedBy: pending.invitedBy, createdAt: now });
}

/**
 * The registrant proved the phone (confirm with the registration password): the referral code and
 * inviter take effect, the link invitation is written, the marketing tick is confirmed. Answers the
 * account as it now is.
 */
export async function applyPendingSignup(db: Db, claims: SignUpClaims, user: User, now: number): Promise<User> {
  const pending = await db.select().from(pendingSignups).where(eq(pendingSignups.userId, user.id)).get();
  if (!pending) return user;
  // The link invited them when they registered through it: dated then, not at the confirmation, so
  // the friend counts as registered at or after the invitation (friendOf).
  const invitedAt = Math.min(user.createdAt, pending.createdAt);
  const invitation =
    pending.invitedBy === null ? [] : [claims.invitedThroughLink(db, { inviterId: pending.invitedBy, app: user.app, phone: user.phone, invitedAt })];
  await db.batch([
    db.update(users).set({ referralCode: pending.referralCode, invitedBy: pending.invitedBy }).where(eq(users.id, user.id)),
    ...invitation,
    confirmRegistrationConsentStatement(db, user.id, now),
    db.delete(pendingSignups).where(eq(pendingSignups.userId, user.id)),
  ]);
  return { ...user, referralCode: pending.referralCode, invitedBy: pending.invitedBy };
}

/**
 * Someone proved the phone without the registration password (confirm without it, an SMS sign-in,
 * a reset): whatever the registrant typed is dropped — the referral code, the inviter, the name,
 * the email and the marketing tick — in one batch with its audit row. A no-op for an account with
 * nothing pending (confirmed already, or made by an administrator). Answers the account as it now is.
 */
export async function dropPendingSignup(db: Db, user: User, now: number, via: "confirm" | "sms_sign_in" | "reset"): Promise<User> {
  const pending = await db.select().from(pendingSignups).where(eq(pendingSignups.userId, user.id)).get();
  if (!pending) return user;
  await db.batch([
    db.update(users).set({ name: "", email: null, referralCode: null, invitedBy: null }).where(eq(users.id, user.id)),
    dropRegistrationConsentStatement(db, user.id),
    db.delete(pendingSignups).where(eq(pendingSignups.userId, user.id)),
    auditInsert(
      db,
      {
        actorId: user.id,
        action: "auth.signup_dropped",
        target: userTarget(user.id),
        details: { via, referralCode: pending.referralCode, invitedBy: pending.invitedBy },
      },
      now,
    ),
  ]);
  return { ...user, name: "", email: null, referralCode: null, invitedBy: null };
}
