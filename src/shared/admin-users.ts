import { z } from "zod";
import { isoDay, isTimeZone } from "./audience";
import type { MessageStatus } from "./campaigns";
import { pagingFields } from "./paging-query";

/**
 * The users page's query (docs/admin.md, users): the review table's search and filters, plus
 * system on/off, role and reseller, sorting and paging. Dates are calendar days in the admin's
 * zone, both ends included. The CSV export takes the same filters without paging.
 */
const triState = z.enum(["all", "yes", "no"]).default("all");
const list = (max: number) =>
  z
    .union([z.string().max(100), z.array(z.string().max(100)).max(max)])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]).filter((s) => s.length > 0));

export const USER_SORTS = ["name", "phone", "createdAt", "expirationAt", "region", "referral", "status"] as const;
export const USER_ROLES = ["all", "drivers", "admins", "owner"] as const;

const filters = {
  app: z.enum(["flex", "spark"]).default("flex"),
  search: z.string().max(100).optional(),
  region: list(200),
  referral: list(100),
  goodStanding: triState,
  accountConnected: triState,
  setupComplete: triState,
  /** The driver's system: on (start) or off (stop). */
  system: z.enum(["all", "on", "off"]).default("all"),
  // Drivers by default: the page is about them, and their indexes answer every sort quickly.
  role: z.enum(USER_ROLES).default("drivers"),
  /** Resellers: approved members of the reseller programme. */
  reseller: triState,
  createdFrom: isoDay.optional(),
  createdTo: isoDay.optional(),
  expiresFrom: isoDay.optional(),
  expiresTo: isoDay.optional(),
  timeZone: z.string().max(64, { abort: true }).refine(isTimeZone, "Unknown time zone").default("UTC"),
  sort: z.enum(USER_SORTS).default("createdAt"),
  dir: z.enum(["asc", "desc"]).default("desc"),
};

const ordered = <T extends z.ZodType<{ createdFrom?: string; createdTo?: string; expiresFrom?: string; expiresTo?: string }>>(schema: T) =>
  schema
    .refine((f) => !f.createdFrom || !f.createdTo || f.createdFrom <= f.createdTo, { message: "The start date is after the end date", path: ["createdTo"] })
    .refine((f) => !f.expiresFrom || !f.expiresTo || f.expiresFrom <= f.expiresTo, { message: "The start date is after the end date", path: ["expiresTo"] });

export const userFiltersSchema = ordered(z.object(filters));
export type UserFilters = z.infer<typeof userFiltersSchema>;

export const userListSchema = ordered(
  z.object({
    ...filters,
    ...pagingFields,
  }),
);
export type UserListQuery = z.infer<typeof userListSchema>;

/** A row of the users table. Times in epoch ms. */
export type UserListRow = {
  id: number;
  app: "flex" | "spark";
  name: string;
  phone: string;
  email: string | null;
  region: string | null;
  /** Billing data: only for administrators with billingDetails (left out otherwise). */
  referral?: string | null;
  phoneVerified: boolean;
  goodStanding: boolean;
  accountConnected: boolean;
  setupComplete: boolean;
  status: "start" | "stop";
  expirationAt: number | null;
  createdAt: number;
  lastSignInAt: number | null;
  isAdmin: boolean;
  roleName: string | null;
  reseller: boolean;
};

/** GET /api/admin/users/:id: what the user detail page shows at the top and in its profile. */
export type UserDetail = UserListRow & {
  language: "en" | "es";
  humanRegion: string | null;
  deliveryArea: string | null;
  inviteCode: string;
  roleBillingDetails: boolean;
  mfaMethod: "none" | "sms" | "totp";
  /** Billing data: only for administrators with billingDetails (left out otherwise). */
  stripeExpressId?: string | null;
  /** Their place in the reseller programme, if they applied; the code and rate only for administrators with billingDetails. */
  resellerState: { status: "applied" | "approved" | "rejected" | "revoked"; referralCode?: string | null; commissionPercent?: number } | null;
  /** Per channel: opted out, and when and how if the opt-out table knows (a STOP reply, or an admin). */
  optOuts: Record<"sms" | "whatsapp", { optedOut: boolean; keyword: string | null; at: number | null }>;
  liveSessions: number;
};

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((s) => (s === "" ? null : s))
    .nullable()
    .optional();

/** PATCH /api/admin/users/:id: profile fields; what is left out stays as it is. */
export const userProfilePatchSchema = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    email: z
      .union([
        z.literal("").transform(() => null),
        z.null(),
        z
          .string()
          .trim()
          .max(254)
          .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "Not an email address"),
      ])
      .optional(),
    language: z.enum(["en", "es"]).optional(),
    /** The Flex region or the Spark delivery area, by the account's app. */
    region: optionalText(100),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, "Nothing to change");
export type UserProfilePatch = z.infer<typeof userProfilePatchSchema>;

/** PUT /api/admin/users/:id/role (owner only). */
export const userRoleSchema = z
  .object({
    isAdmin: z.boolean(),
    roleName: z
      .string()
      .trim()
      .min(1)
      .max(40)
      .regex(/^[\w .-]+$/, "Letters, digits, spaces, dots, dashes")
      .optional(),
    billingDetails: z.boolean().default(false),
  })
  .strict()
  .refine((r) => r.isAdmin || (r.roleName === undefined && !r.billingDetails), { message: "A role applies to administrators only", path: ["roleName"] });

/** PUT /api/admin/users/:id/opt-outs: the channels this person must not be messaged on. */
export const userOptOutsSchema = z.object({ sms: z.boolean(), whatsapp: z.boolean() }).strict();

/** A sign-in that can still refresh (a refresh-token family). */
export type SessionRow = { id: string; startedAt: number; lastUsedAt: number; expiresAt: number; totp: boolean };

/** A message this user received, from the campaign ledger. */
export type UserMessageRow = {
  id: number;
  campaignId: number;
  channel: "sms" | "whatsapp";
  text: string | null;
  template: string | null;
  status: MessageStatus;
  errorCode: string | null;
  at: number;
};

/** An audit entry, with its actor's name when the actor is an account. */
export type AuditRow = {
  id: number;
  at: number;
  actorId: number | null;
  actorName: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
};
