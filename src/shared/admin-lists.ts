import { z } from "zod";
import { isoDay, isTimeZone } from "./audience";
import { pagingFields } from "./paging-query";

/**
 * Queries and rows of the console's other lists (docs/admin.md): invitations, leads, the audit
 * log. Dates are calendar days in the admin's zone, both ends included.
 */
const triState = z.enum(["all", "yes", "no"]).default("all");
const days = {
  from: isoDay.optional(),
  to: isoDay.optional(),
  timeZone: z.string().max(64, { abort: true }).refine(isTimeZone, "Unknown time zone").default("UTC"),
};
// Typed loosely so it reads any list's parsed query (its own filters are generic in datedList).
const inOrder = (q: { from?: unknown; to?: unknown }) => typeof q.from !== "string" || typeof q.to !== "string" || q.from <= q.to;

/** A list's query: its own filters, then a range of days (in order) in the admin's zone, and paging. */
const datedList = <Filters extends z.ZodRawShape>(filters: Filters) =>
  z.object({ ...filters, ...days, ...pagingFields }).refine(inOrder, { message: "The start date is after the end date", path: ["to"] });

export const invitationListSchema = datedList({
  app: z.enum(["all", "flex", "spark"]).default("all"),
  /** Only the invitations one driver sent (their user page). */
  inviter: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  registered: triState,
  paid: triState,
  freeWeek: triState,
  search: z.string().max(100).optional(),
});
export type InvitationListQuery = z.infer<typeof invitationListSchema>;

export type InvitationListRow = {
  id: number;
  app: "flex" | "spark";
  invitedAt: number;
  inviterId: number;
  inviterName: string;
  phone: string;
  /** The invitee's account, when the number registered in the same app. */
  inviteeId: number | null;
  inviteeName: string | null;
  paid: boolean;
  freeWeek: boolean;
};

/** Where a lead stands: a contact-form message, or a driver who stopped on the way to paying. */
export const LEAD_STAGES = ["contact", "unconfirmed", "unconnected", "unpaid", "paid"] as const;
export type LeadStage = (typeof LEAD_STAGES)[number];
export const LEAD_STATUSES = ["new", "contacted", "converted", "lost"] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export const leadListSchema = datedList({
  stage: z.enum(["all", ...LEAD_STAGES]).default("all"),
  status: z.enum(["all", ...LEAD_STATUSES]).default("all"),
  /** "me" (the caller), "none" (unassigned) or an administrator's id. */
  owner: z.union([z.enum(["all", "me", "none"]), z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER)]).default("all"),
  search: z.string().max(100).optional(),
});
export type LeadListQuery = z.infer<typeof leadListSchema>;

export type LeadRow = {
  id: number;
  app: "flex" | "spark";
  phone: string;
  name: string | null;
  email: string | null;
  source: string;
  message: string | null;
  userId: number | null;
  stage: LeadStage;
  status: LeadStatus;
  ownerId: number | null;
  ownerName: string | null;
  notes: string | null;
  createdAt: number;
  updatedAt: number | null;
};

export const leadPatchSchema = z
  .object({
    status: z.enum(LEAD_STATUSES).optional(),
    ownerId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    notes: z.string().trim().max(2000).nullable().optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, "Nothing to change");
export type LeadPatch = z.infer<typeof leadPatchSchema>;

export const auditListSchema = datedList({
  actor: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  action: z
    .string()
    .max(60)
    .regex(/^[a-z_.]+$/, "Letters, dots and underscores")
    .optional(),
  target: z
    .string()
    .max(60)
    .regex(/^[a-z_]+:\d+$/, "Like user:42")
    .optional(),
});
export type AuditListQuery = z.infer<typeof auditListSchema>;
