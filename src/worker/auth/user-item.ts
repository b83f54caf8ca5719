import type { UserItem } from "../../shared/auth";
import { formatDDMMYY } from "../../shared/dates";
import type { users } from "../db/schema";

type UserRow = typeof users.$inferSelect;

/**
 * Good standing needs paid-up time left: the stored flag (set by payments) is not trusted past the
 * expiration instant, since nothing may have cleared it yet when a paid week runs out.
 */
export function isInGoodStanding(user: Pick<UserRow, "goodStanding" | "expirationAt">, now: number): boolean {
  return user.goodStanding && (user.expirationAt === null || user.expirationAt > now);
}

/** The user as the old product's user call answered it, plus what the SPA routes on. */
export function toUserItem(user: UserRow, now = Date.now()): UserItem {
  return {
    id: user.id,
    name: user.name,
    phoneNumber: user.phone,
    flexEmail: user.email,
    goodStanding: isInGoodStanding(user, now),
    expirationDateTimestamp: user.expirationAt,
    expirationDate: formatDDMMYY(user.expirationAt),
    createDateTimestamp: user.createdAt,
    humanRegion: user.humanRegion,
    driverOptions: { deliveryArea: user.deliveryArea },
    proxyInstalled: user.accountConnected,
    setupComplete: user.setupComplete,
    isAdmin: user.isAdmin,
    referral: user.referralCode,
    status: user.status,
    stripeExpressId: user.stripeExpressId,
    role: user.roleName ? { name: user.roleName, properties: { billingDetails: user.roleProperties?.billingDetails === true } } : null,
    app: user.app,
    language: user.language,
    phoneNumberVerified: user.phoneVerified,
    mfaMethod: user.mfaMethod,
    inviteCode: user.inviteCode,
  };
}
