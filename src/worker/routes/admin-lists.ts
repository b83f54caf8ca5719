import { Hono } from "hono";
import { auditListSchema, invitationListSchema, leadListSchema, leadPatchSchema } from "../../shared/admin-lists";
import { auditActions, auditPage } from "../admin/audit-log";
import { hasBillingDetails } from "../admin/billing-fields";
import { invitationListPage } from "../admin/invitations";
import { leadPage, updateLead } from "../admin/leads";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { idParam } from "../cross-cutting/paging";
import { validate } from "../validate";

/** The console's lists: invitations (/api/admin/invitations), leads (/leads) and the audit log (/audit); docs/api.md. Every administrator. */
export const adminInvitationRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin)
  // The search reads referral codes only for administrators with billingDetails.
  .get("/", validate("query", invitationListSchema), async (c) =>
    c.json(await invitationListPage(c.var.db, c.req.valid("query"), hasBillingDetails(c.var.user))),
  );

export const adminLeadRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin)
  .get("/", validate("query", leadListSchema), async (c) => c.json(await leadPage(c.var.db, c.req.valid("query"), c.var.user.id)))
  .patch("/:id", validate("param", idParam), validate("json", leadPatchSchema), async (c) =>
    c.json({ lead: await updateLead(c.var.db, c.var.user, c.req.valid("param").id, c.req.valid("json")) }),
  );

export const adminAuditRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin)
  // Billing actions' details (codes, rates, amounts) only for administrators with billingDetails.
  .get("/", validate("query", auditListSchema), async (c) => c.json(await auditPage(c.var.db, c.req.valid("query"), hasBillingDetails(c.var.user))))
  .get("/actions", async (c) => c.json({ actions: await auditActions(c.var.db) }));
