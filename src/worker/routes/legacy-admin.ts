import { type Context, Hono } from "hono";
import { z } from "zod";
import { driverAudienceSchema } from "../../shared/audience";
import { formatDDMMYY } from "../../shared/dates";
import { CAMPAIGN_PURPOSES } from "../../shared/marketing";
import { pageOffset } from "../../shared/paging";
import { requireAdmin, requireRoleProperty, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { assertMayFilterByReferral, type DriverRecord, driverPage } from "../messaging/audience";
import { type CampaignRequest, createCampaign, toCampaignInput } from "../messaging/campaigns";
import { templatePage } from "../messaging/templates";
import { validate } from "../validate";
import { pagingSchema } from "./admin";

/** The old product's user item (spec §3 "User"), as its all-users tables listed them. */
function legacyUser(r: DriverRecord) {
  const properties = r.role_properties ? (JSON.parse(r.role_properties) as { billingDetails?: boolean }) : {};
  return {
    id: r.id,
    name: r.name,
    phoneNumber: r.phone,
    flexEmail: r.email,
    goodStanding: r.good_standing === 1,
    expirationDateTimestamp: r.expiration_at,
    expirationDate: formatDDMMYY(r.expiration_at),
    createDateTimestamp: r.created_at,
    humanRegion: r.human_region,
    driverOptions: { deliveryArea: r.delivery_area },
    proxyInstalled: r.account_connected === 1,
    setupComplete: r.setup_complete === 1,
    isAdmin: r.is_admin === 1,
    referral: r.referral_code,
    status: r.status,
    stripeExpressId: r.stripe_express_id,
    role: r.role_name ? { name: r.role_name, properties: { billingDetails: properties.billingDetails === true } } : null,
  };
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
    assertMayFilterByReferral(c.var.user, c.req.valid("query").referral);
    const page = await driverPage(c.env.DB, { ...c.req.valid("query"), app }, { includeAdmins: true });
    return c.json({ Items: page.rows.map(legacyUser), total: page.total, page: page.page, pageSize: page.pageSize });
  });
}

/** The old product's admin calls (spec §7), kept with their payloads: /api/flex/v1/admin/*, /api/spark/v1/admin/*. */
export const legacyAdminRoutes = new Hono<AppEnv>()
  .route("/flex/v1/all-users-table", allUsersTable("flex"))
  .route("/spark/v1/admin/all-users-table", allUsersTable("spark"))
  .get("/flex/v1/admin/invitations", requireUser, requireAdmin, validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const [count, rows] = await c.env.DB.batch([
      c.env.DB.prepare("SELECT count(*) AS n FROM invitations"),
      c.env.DB.prepare("SELECT phone, invited_at, free_week FROM invitations ORDER BY invited_at DESC, id DESC LIMIT ? OFFSET ?").bind(
        pageSize,
        pageOffset(page, pageSize),
      ),
    ]);
    const items = (rows!.results as { phone: string; invited_at: number; free_week: number }[]).map((r) => ({
      phoneNumber: r.phone,
      dateInvitedTimestamp: r.invited_at,
      freeWeek: r.free_week === 1,
    }));
    return c.json({ Items: items, total: (count!.results[0] as { n: number }).n, page, pageSize });
  })
  .get("/flex/v1/admin/referrals", requireUser, requireAdmin, requireRoleProperty("billingDetails"), validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const [count, rows] = await c.env.DB.batch([
      c.env.DB.prepare("SELECT count(*) AS n FROM referral_codes"),
      c.env.DB.prepare("SELECT code FROM referral_codes ORDER BY code LIMIT ? OFFSET ?").bind(pageSize, pageOffset(page, pageSize)),
    ]);
    return c.json({
      Items: (rows!.results as { code: string }[]).map((r) => ({ referralCode: r.code })),
      total: (count!.results[0] as { n: number }).n,
      page,
      pageSize,
    });
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
