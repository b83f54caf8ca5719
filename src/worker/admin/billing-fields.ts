import { ApiError } from "../errors";
import { assertMayFilterByReferral } from "../messaging/audience";

/**
 * Billing data in the console's user lists and pages (docs/admin.md, "Frame and access"): referral
 * codes, commission rates and the Stripe ids are shown, filtered, sorted and searched on only for
 * administrators whose role has billingDetails. For the others the filter is refused and the
 * fields are left out of the answer (not sent empty), whatever screen or old call asks.
 */

type Caller = { roleProperties: { billingDetails?: boolean } | null };

export function hasBillingDetails(user: Caller): boolean {
  return user.roleProperties?.billingDetails === true;
}

/** A list filtered or sorted by referral code: 403 without billingDetails (the same refusal as the review's). */
export function assertMayListByReferral(user: Caller, query: { referral?: readonly string[]; sort?: string }): void {
  assertMayFilterByReferral(user, query.referral);
  if (query.sort === "referral" && !hasBillingDetails(user)) {
    throw new ApiError("forbidden", "Requires the billingDetails permission", { details: { reason: "billing_details", permission: "billingDetails" } });
  }
}

/** The fields of a user row that are billing data. */
const BILLING_FIELDS = ["referral", "stripeExpressId", "stripeCustomerId"] as const;
type BillingField = (typeof BILLING_FIELDS)[number];

/** A row whose billing fields may be absent. */
export type WithoutBilling<T> = Omit<T, BillingField> & Partial<Pick<T, BillingField & keyof T>>;

/** The row as the caller may see it: without its billing fields unless their role has billingDetails. */
export function visibleRow<T extends object>(row: T, billing: boolean): WithoutBilling<T> {
  if (billing) return row;
  const copy = { ...row } as Record<string, unknown>;
  for (const field of BILLING_FIELDS) delete copy[field];
  return copy as WithoutBilling<T>;
}

/**
 * An audit entry as the caller may read it: the details of billing actions (approvals with their
 * code and rate, refunds, service time), the referral filter of an export and a referral code
 * anywhere else in the details (a dropped sign-up's) are billing data.
 */
export function visibleAuditRow<T extends { action: string; details: Record<string, unknown> | null }>(row: T, billing: boolean): T {
  if (billing || !row.details) return row;
  if (row.action.startsWith("billing.")) return { ...row, details: null };
  const { referralCode: _code, ...details } = row.details;
  const filters = details.filters;
  if (filters && typeof filters === "object" && "referral" in filters) {
    const { referral: _referral, ...rest } = filters as Record<string, unknown>;
    return { ...row, details: { ...details, filters: rest } };
  }
  return "referralCode" in row.details ? { ...row, details } : row;
}

/** A campaign as the caller may read it: which WhatsApp template it sends is billing data (the template list is). */
export function visibleCampaign<T extends { template: unknown }>(campaign: T, billing: boolean): T {
  return billing || campaign.template === null ? campaign : { ...campaign, template: null };
}
