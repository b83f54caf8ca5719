import { z } from "zod";
import { appSchema, phoneSchema } from "./auth";

/** Where Pay was pressed: the driver's own /payment page, or a reseller paying a client's plan. */
export const checkoutReturnPaths = ["/payment", "/flex/reseller"] as const;

export const checkoutSchema = z.object({
  planId: z.number().int().positive(),
  /** A fresh random key per Pay intent: a double click or a retried request gets the same checkout. */
  idempotencyKey: z.string().min(8).max(100),
  /** A reseller paying a client's plan. */
  forUserId: z.number().int().positive().optional(),
  returnPath: z.enum(checkoutReturnPaths).default("/payment"),
  /** The page's query string, kept on the way back from the checkout (the post-sign-in routing carries it). */
  returnQuery: z.string().max(500).default(""),
});
/** @public (the billing screens send it) */
export type CheckoutInput = z.input<typeof checkoutSchema>;

export const inviteSchema = z.object({ phoneNumber: phoneSchema });

/** Applying means accepting the reseller terms (commission on client payments, payouts through Stripe). */
export const resellerApplySchema = z.object({ acceptTerms: z.literal(true), message: z.string().trim().max(500).optional() });

/** Stripe charges at least 50 cents in USD; a plan's days are whole days. */
export const planFields = {
  app: appSchema,
  name: z.string().trim().min(1).max(60),
  days: z.number().int().min(1).max(365),
  priceCents: z.number().int().min(50).max(1_000_000),
  active: z.boolean(),
  sortOrder: z.number().int().min(0).max(1000),
};
export const planCreateSchema = z.object({ ...planFields, active: planFields.active.default(true), sortOrder: planFields.sortOrder.default(0) });
export const planUpdateSchema = z
  .object({ name: planFields.name, days: planFields.days, priceCents: planFields.priceCents, active: planFields.active, sortOrder: planFields.sortOrder })
  .partial()
  .refine((body) => Object.values(body).some((v) => v !== undefined), "Change at least one field");

export const refundSchema = z.object({ amountCents: z.number().int().positive().max(1_000_000).optional() });

export const serviceTimeAdjustmentSchema = z.object({
  days: z
    .number()
    .int()
    .min(-365)
    .max(365)
    .refine((d) => d !== 0, "Give a number of days other than 0"),
  reason: z.string().trim().min(3).max(300),
});

export const resellerApprovalSchema = z.object({
  referralCode: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9]{4,20}$/, "4 to 20 letters or digits")
    .optional(),
  commissionPercent: z.number().min(0).max(100).optional(),
});

/** The local checkout's card form: what Stripe's own page asks. */
export const localCardSchema = z.object({
  number: z.string().trim().min(12).max(23),
  expiry: z
    .string()
    .trim()
    .regex(/^(0[1-9]|1[0-2]) ?\/ ?(\d{2})$/, "MM / YY"),
  cvc: z
    .string()
    .trim()
    .regex(/^\d{3,4}$/, "3 or 4 digits"),
  name: z.string().trim().max(100).optional(),
});

/** The new expiration a plan would give: from the later of now and the current expiration. @public (payments and plan cards use it) */
export function expirationAfter(currentExpiration: number | null, days: number, now: number): number {
  return Math.max(now, currentExpiration ?? now) + days * 86_400_000;
}

/** @public (the billing screens use it) */
export function formatCents(cents: number, locale = "en-US"): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency: "USD" }).format(cents / 100);
}
