import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";

/**
 * The claims a registrant can type that belong to another area: a reseller's referral code or a
 * driver's invite code (billing, src/worker/billing/invitations.ts). Identity holds them unproven
 * (./pending-signup.ts) and asks the owner through this interface, so identity never imports
 * billing: the route hands billing's implementation in.
 */
export type SignUpClaims = {
  /** The code typed at registration: whose referral code or invite code it is, or null. */
  resolveCode(db: Db, app: "flex" | "spark", code: string): Promise<{ referralCode: string } | { invitedBy: number } | null>;
  /** The registrant proved the phone: what records that an invite link's owner invited them, for the same batch. */
  invitedThroughLink(db: Db, input: { inviterId: number; app: "flex" | "spark"; phone: string; invitedAt: number }): BatchItem<"sqlite">;
};
