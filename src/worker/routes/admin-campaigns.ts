import { Hono } from "hono";
import { z } from "zod";
import { MESSAGE_STATUSES } from "../../shared/campaigns";
import { hasBillingDetails, visibleCampaign } from "../admin/billing-fields";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { csvHeaders } from "../cross-cutting/csv";
import { idParam, pagingSchema } from "../cross-cutting/paging";
import { ApiError } from "../errors";
import { cancelCampaign, createCampaign, retryFailed } from "../messaging/campaign-commands";
import { getCampaign, listCampaigns } from "../messaging/campaign-reads";
import { campaignRequestSchema, toCampaignInput } from "../messaging/campaign-request";
import { exportLedger, ledgerPage } from "../messaging/ledger-reads";
import { leaseMs } from "../messaging/waits";
import { validate } from "../validate";

/**
 * The messaging console's campaigns: /api/admin/campaigns (docs/api.md). Administrators only; a
 * campaign's WhatsApp template is named only to those with billingDetails (visibleCampaign).
 */
export const adminCampaignRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin)
  .post("/", validate("json", campaignRequestSchema), async (c) => {
    const result = await createCampaign(c.env, c.var.log, c.var.user, toCampaignInput(c.req.valid("json")));
    return c.json(
      { campaign: visibleCampaign(result.campaign, hasBillingDetails(c.var.user)), message: result.message, outcome: result.outcome },
      result.created ? 201 : 200,
    );
  })
  .get("/", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const list = await listCampaigns(c.var.db, page, pageSize, leaseMs(c.env));
    return c.json({ ...list, rows: list.rows.map((row) => visibleCampaign(row, hasBillingDetails(c.var.user))) });
  })
  .get("/:id", validate("param", idParam), async (c) => {
    const campaign = await getCampaign(c.var.db, c.req.valid("param").id, leaseMs(c.env));
    if (!campaign) throw new ApiError("not_found", "No such campaign");
    return c.json({ campaign: visibleCampaign(campaign, hasBillingDetails(c.var.user)) });
  })
  .get("/:id/messages", validate("param", idParam), validate("query", pagingSchema.extend({ status: z.enum(MESSAGE_STATUSES).optional() })), async (c) => {
    const { id } = c.req.valid("param");
    const { status, page, pageSize } = c.req.valid("query");
    return c.json(await ledgerPage(c.var.db, id, status, page, pageSize));
  })
  // A scheduled (or still queued) campaign can be cancelled until it starts.
  .post("/:id/cancel", validate("param", idParam), async (c) =>
    c.json({ campaign: visibleCampaign(await cancelCampaign(c.var.db, c.var.user, c.req.valid("param").id, leaseMs(c.env)), hasBillingDetails(c.var.user)) }),
  )
  .post("/:id/retry-failed", validate("param", idParam), async (c) => {
    const result = await retryFailed(c.env, c.var.log, c.var.user, c.req.valid("param").id);
    return c.json(
      { campaign: visibleCampaign(result.campaign, hasBillingDetails(c.var.user)), message: result.message, outcome: result.outcome },
      result.created ? 201 : 200,
    );
  })
  // The campaign's ledger (phones, names, outcomes) as CSV; exporting people's details is itself audited.
  .get("/:id/export.csv", validate("param", idParam), async (c) => {
    const { id } = c.req.valid("param");
    return c.body(await exportLedger(c.var.db, c.var.user, id), 200, csvHeaders(`campaign-${id}.csv`));
  });
