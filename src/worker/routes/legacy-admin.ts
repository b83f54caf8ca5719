import { asc, count, desc } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { driverAudienceSchema } from "../../shared/audience";
import { CAMPAIGN_PURPOSES } from "../../shared/marketing";
import { pageOffset } from "../../shared/paging";
import { assertMayListByReferral, hasBillingDetails, visibleRow } from "../admin/billing-fields";
import { requireAdmin, requireRoleProperty, requireUser } from "../auth/middleware";
import { toUserItem } from "../auth/user-item";
import type { AppEnv } from "../context";
import { invitations, referralCodes } from "../db/schema";
import { driverPage, type UserRow } from "../messaging/audience";
import { type CampaignRequest, createCampaign, toCampaignInput } from "../messaging/campaigns";
import { templatePage } from "../messaging/templates";
import { validate } from "../validate";
import { pagingSchema } from "./admin";

/**
 * The old product's user item as its all-users tables listed it: the user item (the one mapper
 * of a user row, src/worker/auth/user-item.ts) without the fields the old tables never had, and
 * without the billing fields (referral, stripeExpressId) unless the caller has billingDetails.
 */
function legacyUser(row: UserRow, now: number, billing: boolean) {
  const { app: _app, language: _language, phoneNumberVerified: _verified, mfaMethod: _mfa, inviteCode: _invite, ...item } = toUserItem(row, now);
  return visibleRow(item, billing);
}

const numbersSchema = z
  .array(z.object({ number: z.union([z.string().max(40), z.number().int().nonnegative()]).transform(String) }))
  .min(1, "Give at least one number")
  .max(20_000);
/**
 * The old calls did not classify their messages; unclassified means marketing (the stricter reading:
 * consent, quiet hours, the opt-out line), and a client that knows better says so with `purpose`.
 */
const classification = { purpose: z.enum(CAMPAIGN_PURPOSES).default("marketing"), language: z.enum(["en", "es"]).default("en") };
const sendSmsSchema = z.object({ numbers: numbersSchema, message: z.string().max(1600), liftLimit: z.boolean().optional(), ...classification });
const sendWhatsappSchema = z.object({
  ...classification,
  numbers: numbersSchema,
  msgTemplate: z.object({
    name: z.string().min(1).max(512),
    // The old client sent the language as the template list gave it: a code, or Meta's { code } object.
    language: z.union([z.string().min(1).max(20), z.object({ code: z.string().min(1).max(20) }).transform((l) => l.code)]),
    components: z.array(z.unknown()).max(20).optional(),
  }),
});

/** The old calls carried no idempotency key; a client that sends the standard header gets replay safety too. */
/**
 * The old send calls are phone-list campaigns on the campaign service. Their bodies were validated
 * by the stricter schemas above, so the request is built, not parsed again; an old client without
 * an Idempotency-Key gets a fresh campaign per call, as before.
 */
async function sendToList(
  c: Context<AppEnv>,
  numbers: { number: string }[],
  content: Pick<CampaignRequest, "channel" | "message" | "template" | "liftLimit" | "purpose" | "language">,
) {
  const request: CampaignRequest = {
    idempotencyKey: idempotencyKey(c.req.header("Idempotency-Key")),
    source: "list",
    app: "flex",
    phones: numbers.map((n) => n.number),
    ...content,
  };
  const result = await createCampaign(c.env, c.var.log, c.var.user, toCampaignInput(request));
  return { message: result.message, campaignId: result.campaign.id };
}

const idempotencyKey = (header: string | undefined) => header?.trim().slice(0, 200) || `legacy:${crypto.randomUUID()}`;

function allUsersTable(app: "flex" | "spark") {
  return new Hono<AppEnv>().get("/", requireUser, requireAdmin, validate("query", driverAudienceSchema), async (c) => {
    // The same audience query as the review, every user of the app included, one page at a time.
    // Referral codes are billing data: filtering, sorting or searching by them needs billingDetails.
    assertMayListByReferral(c.var.user, c.req.valid("query"));
    const billing = hasBillingDetails(c.var.user);
    const now = Date.now();
    const page = await driverPage(c.var.db, { ...c.req.valid("query"), app }, { includeAdmins: true, now, searchReferral: billing });
    return c.json({ Items: page.rows.map((row) => legacyUser(row, now, billing)), total: page.total, page: page.page, pageSize: page.pageSize });
  });
}

/** The old product's admin calls (docs/product.md, the old calls), kept with their payloads: /api/flex/v1/admin/*, /api/spark/v1/admin/*. */
export const legacyAdminRoutes = new Hono<AppEnv>()
  .route("/flex/v1/all-users-table", allUsersTable("flex"))
  .route("/spark/v1/admin/all-users-table", allUsersTable("spark"))
  .get("/flex/v1/admin/invitations", requireUser, requireAdmin, validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const db = c.var.db;
    const [counted, rows] = await db.batch([
      db.select({ n: count() }).from(invitations),
      db
        .select({ phoneNumber: invitations.phone, dateInvitedTimestamp: invitations.invitedAt, freeWeek: invitations.freeWeek })
        .from(invitations)
        .orderBy(desc(invitations.invitedAt), desc(invitations.id))
        .limit(pageSize)
        .offset(pageOffset(page, pageSize)),
    ]);
    return c.json({ Items: rows, total: counted[0]?.n ?? 0, page, pageSize });
  })
  .get("/flex/v1/admin/referrals", requireUser, requireAdmin, requireRoleProperty("billingDetails"), validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const db = c.var.db;
    const [counted, rows] = await db.batch([
      db.select({ n: count() }).from(referralCodes),
      db.select({ referralCode: referralCodes.code }).from(referralCodes).orderBy(asc(referralCodes.code)).limit(pageSize).offset(pageOffset(page, pageSize)),
    ]);
    return c.json({ Items: rows, total: counted[0]?.n ?? 0, page, pageSize });
  })
  .get("/flex/v1/admin/sendWhatsapp", requireUser, requireAdmin, requireRoleProperty("billingDetails"), validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const templates = await templatePage(c.env, c.var.log, page, pageSize);
    return c.json({ Items: templates.rows, total: templates.total, page, pageSize });
  })
  .post("/flex/v1/admin/sendsms", requireUser, requireAdmin, validate("json", sendSmsSchema), async (c) => {
    const body = c.req.valid("json");
    return c.json(
      await sendToList(c, body.numbers, { channel: "sms", message: body.message, liftLimit: body.liftLimit, purpose: body.purpose, language: body.language }),
    );
  })
  .post("/flex/v1/admin/sendWhatsapp", requireUser, requireAdmin, validate("json", sendWhatsappSchema), async (c) => {
    const body = c.req.valid("json");
    return c.json(
      await sendToList(c, body.numbers, {
        channel: "whatsapp",
        template: { name: body.msgTemplate.name, language: body.msgTemplate.language },
        purpose: body.purpose,
        language: body.language,
      }),
    );
  });
