import { type Context, Hono } from "hono";
import { z } from "zod";
import { driverAudienceSchema } from "../../shared/audience";
import { CAMPAIGN_PURPOSES } from "../../shared/marketing";
import { assertMayListByReferral, hasBillingDetails, visibleRow } from "../admin/billing-fields";
import { invitationsAfter, referralCodesAfter } from "../admin/legacy-lists";
import { requireAdmin, requireRoleProperty, requireUser } from "../auth/middleware";
import { toUserItem, withOldFieldNamesOnly } from "../auth/user-item";
import type { AppEnv } from "../context";
import { driverRowsAfter, type UserRow } from "../messaging/audience";
import { createCampaign } from "../messaging/campaign-commands";
import { type CampaignRequest, templateParametersSchema, toCampaignInput } from "../messaging/campaign-request";
import { templatesAfter } from "../messaging/templates";
import { validate } from "../validate";

/**
 * The old product's user item as its all-users tables listed it: the user item (the one mapper
 * of a user row, src/worker/auth/user-item.ts) under the old field names, without the fields the old tables never had, and
 * without the billing fields (referral, stripeExpressId) unless the caller has billingDetails.
 */
function legacyUser(row: UserRow, now: number, billing: boolean) {
  const { app: _app, language: _language, phoneNumberVerified: _verified, mfaMethod: _mfa, inviteCode: _invite, ...item } = toUserItem(row, now);
  return visibleRow(withOldFieldNamesOnly(item), billing);
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
    /** The placeholders' values (header and body text parameters), passed on to the send. */
    components: templateParametersSchema.optional(),
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

/**
 * DynamoDB's paging, as the old client read it (docs/api.md, the old product's calls): `Limit`
 * (1–100, default 100) and `ExclusiveStartKey` (the `LastEvaluatedKey` of the page before, as JSON)
 * in; `Items`, `Count` and, while more remain, `LastEvaluatedKey` out. Without a key the answer is
 * the first page; never more than `Limit` rows.
 */
const MAX_LEGACY_LIMIT = 100;
function continuationSchema<Key extends z.ZodType>(key: Key) {
  return z.object({
    Limit: z.coerce.number().int().min(1).max(MAX_LEGACY_LIMIT).default(MAX_LEGACY_LIMIT),
    ExclusiveStartKey: z
      .string()
      .max(2000)
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.addIssue({ code: "custom", message: "Give the LastEvaluatedKey of the page before, as JSON" });
          return z.NEVER;
        }
      })
      .pipe(key)
      .optional(),
  });
}

/** The answer of a continued call: the page's items and, when more follow, the key to ask from. */
function continued<T, K>(items: T[], more: boolean, keyOf: (last: T) => K) {
  return { Items: items, Count: items.length, ...(more && items.length > 0 ? { LastEvaluatedKey: keyOf(items[items.length - 1]!) } : {}) };
}

const userKey = z.strictObject({ id: z.number().int().positive() });
const invitationKey = z.strictObject({ id: z.number().int().positive(), dateInvitedTimestamp: z.number().int() });
const referralKey = z.strictObject({ referralCode: z.string().min(1).max(200) });
const templateKey = z.strictObject({ name: z.string().min(1).max(512), language: z.string().min(1).max(20) });

function allUsersTable(app: "flex" | "spark") {
  return new Hono<AppEnv>().get("/", requireUser, requireAdmin, validate("query", driverAudienceSchema.and(continuationSchema(userKey))), async (c) => {
    // The same audience filters as the review, every user of the app included, in id order.
    const { Limit, ExclusiveStartKey, page: _page, pageSize: _pageSize, ...filters } = c.req.valid("query");
    // Referral codes are billing data: filtering, sorting or searching by them needs billingDetails.
    assertMayListByReferral(c.var.user, filters);
    const billing = hasBillingDetails(c.var.user);
    const now = Date.now();
    const { rows, more } = await driverRowsAfter(c.var.db, { ...filters, app }, ExclusiveStartKey?.id ?? null, Limit, {
      includeAdmins: true,
      now,
      searchReferral: billing,
    });
    return c.json(
      continued(
        rows.map((row) => legacyUser(row, now, billing)),
        more,
        (item) => ({ id: item.id }),
      ),
    );
  });
}

/** The old product's admin calls (docs/product.md, the old calls), kept with their payloads: /api/flex/v1/admin/*, /api/spark/v1/admin/*. */
export const legacyAdminRoutes = new Hono<AppEnv>()
  .route("/flex/v1/all-users-table", allUsersTable("flex"))
  .route("/spark/v1/admin/all-users-table", allUsersTable("spark"))
  .get("/flex/v1/admin/invitations", requireUser, requireAdmin, validate("query", continuationSchema(invitationKey)), async (c) => {
    const { Limit, ExclusiveStartKey: after } = c.req.valid("query");
    const { rows, more } = await invitationsAfter(c.var.db, after, Limit);
    return c.json(
      continued(
        rows.map(({ id: _id, ...item }) => item),
        more,
        () => ({ id: rows.at(-1)!.id, dateInvitedTimestamp: rows.at(-1)!.dateInvitedTimestamp }),
      ),
    );
  })
  .get(
    "/flex/v1/admin/referrals",
    requireUser,
    requireAdmin,
    requireRoleProperty("billingDetails"),
    validate("query", continuationSchema(referralKey)),
    async (c) => {
      const { Limit, ExclusiveStartKey: after } = c.req.valid("query");
      const { rows, more } = await referralCodesAfter(c.var.db, after, Limit);
      return c.json(continued(rows, more, (last) => ({ referralCode: last.referralCode })));
    },
  )
  .get(
    "/flex/v1/admin/sendWhatsapp",
    requireUser,
    requireAdmin,
    requireRoleProperty("billingDetails"),
    validate("query", continuationSchema(templateKey)),
    async (c) => {
      const { Limit, ExclusiveStartKey: after } = c.req.valid("query");
      const { rows, more } = await templatesAfter(c.env, c.var.log, after ?? null, Limit);
      return c.json(continued(rows, more, (last) => ({ name: last.name, language: last.language })));
    },
  )
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
        template: { name: body.msgTemplate.name, language: body.msgTemplate.language, components: body.msgTemplate.components },
        purpose: body.purpose,
        language: body.language,
      }),
    );
  });
