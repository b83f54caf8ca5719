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
    email: user.email,
    goodStanding: isInGoodStanding(user, now),
    expirationDateTimestamp: user.expirationAt,
    expirationDate: formatDDMMYY(user.expirationAt),
    createDateTimestamp: user.createdAt,
    humanRegion: user.humanRegion,
    driverOptions: { deliveryArea: user.deliveryArea },
    accountConnected: user.accountConnected,
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

/** The old product's names of two fields, `flexEmail` and `proxyInstalled`, as its calls promised them. */
type OldFieldNames = { flexEmail: string | null; proxyInstalled: boolean };

/** A user item as the old calls answer it (GET /api/flex/v1/user): every field, and the two under their old names as well. */
export function withOldFieldNames<Item extends Pick<UserItem, "email" | "accountConnected">>(item: Item): Item & OldFieldNames {
  return { ...item, flexEmail: item.email, proxyInstalled: item.accountConnected };
}

/** A user item under the old names only (the old all-users tables, which never had the new ones). */
export function withOldFieldNamesOnly<Item extends Pick<UserItem, "email" | "accountConnected">>(
  item: Item,
): Omit<Item, "email" | "accountConnected"> & OldFieldNames {
  const { email, accountConnected, ...rest } = item;
  return { ...rest, flexEmail: email, proxyInstalled: accountConnected };
}
