import { z } from "zod";
import { driverAudienceSchema, invitationAudienceSchema } from "../../shared/audience";
import { CAMPAIGN_PURPOSES, type CampaignPurpose, categoryOf, smsBodyFor } from "../../shared/marketing";
import { checkSmsPhone, normalizeUsPhone, PHONE_REFUSAL_MESSAGES, type PhoneCheck } from "../../shared/phone";
import { countSms, fitsOneSegment } from "../../shared/sms";
import { parametersOf, placeholderCount, type TemplateParameters, type TemplateRef } from "../../shared/templates";
import { describeIssue } from "../../shared/validation";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { ApiError } from "../errors";
import type { Channel } from "./exclusions";
import type { RecipientSource } from "./recipients";
import { findTemplate } from "./templates";

/**
 * A send request, understood and checked: its shape (campaignRequestSchema), its meaning
 * (toCampaignInput: the audience of its source, phone lists, message or template), and the rules
 * that need the author, the clock or the database (checkContent, checkSchedule).
 */

/** An SMS whose limit the owner lifted still stops somewhere: ten segments (Twilio's own advice). */
export const MAX_LIFTED_SEGMENTS = 10;
export const MAX_LIST_PHONES = 20_000;
export const MAX_EXCLUDED_PHONES = 50_000;
/** How far ahead a campaign may be scheduled. */
export const MAX_SCHEDULE_AHEAD_MS = 30 * 86_400_000;

/**
 * A template's placeholder values as Meta's send call takes them: header and body text parameters
 * (the type may be written in capitals, as the template list writes it). A component without
 * parameters (the old client sent back the template's own components, as the list gave them) has
 * nothing to fill in and is left out.
 */
export const templateParametersSchema = z
  .array(
    z.object({
      type: z.string().max(20),
      parameters: z
        .array(z.object({ type: z.literal("text", { message: "Only text parameters can be given" }), text: z.string().min(1).max(1024) }))
        .max(20)
        .optional(),
    }),
  )
  .max(20)
  .transform((components, ctx) => {
    const given: TemplateParameters = [];
    components.forEach((c, i) => {
      if (!c.parameters) return;
      const type = c.type.toLowerCase();
      if (type === "header" || type === "body") given.push({ type, parameters: c.parameters });
      else ctx.addIssue({ code: "custom", path: [i, "type"], message: "Only header and body parameters can be given" });
    });
    return given;
  });

/** POST /api/admin/campaigns (docs/api.md). Audience filters are checked per source below. */
export const campaignRequestSchema = z.object({
  idempotencyKey: z.string().trim().min(1).max(200),
  source: z.enum(["drivers", "invitations", "list"]),
  channel: z.enum(["sms", "whatsapp"]),
  app: z.enum(["flex", "spark"]).optional(),
  message: z.string().max(1600).optional(),
  template: z.object({ name: z.string().min(1).max(512), language: z.string().min(1).max(20), components: templateParametersSchema.optional() }).optional(),
  audience: z.record(z.string(), z.unknown()).optional(),
  excludedPhones: z.array(z.string().max(40)).max(MAX_EXCLUDED_PHONES).optional(),
  phones: z.array(z.string().max(40)).max(MAX_LIST_PHONES).optional(),
  liftLimit: z.boolean().optional(),
  /** Marketing, or the transactional kinds (service notice, payment notice, code): the panels ask; nothing defaults. */
  purpose: z.enum(CAMPAIGN_PURPOSES),
  /** The message's language; the marketing opt-out line is written in it. */
  language: z.enum(["en", "es"]).default("en"),
  /** Start at this instant (epoch ms) instead of at once; cancellable until then. */
  scheduledAt: z.number().int().positive().max(8_640_000_000_000).optional(),
});
export type CampaignRequest = z.infer<typeof campaignRequestSchema>;

/** What a campaign is, once the request is understood. */
export type CampaignInput = {
  idempotencyKey: string;
  app: "flex" | "spark";
  channel: Channel;
  message: string | null;
  template: TemplateRef | null;
  recipients: RecipientSource;
  excludedPhones: string[];
  liftLimit: boolean;
  purpose: CampaignPurpose;
  category: "marketing" | "transactional";
  language: "en" | "es";
  scheduledAt: number | null;
};

type Issue = { path: string; message: string; value?: string; reason?: string };

/** Any +1-shaped number: deselected review rows are phones already in the database, whatever their area code. */
function anyUsPhone(value: string): PhoneCheck {
  const e164 = normalizeUsPhone(value);
  return e164 ? { ok: true, e164 } : { ok: false, reason: "format" };
}

/**
 * Phones as typed → E.164, de-duplicated; every bad one is named with the reason, so the admin can
 * fix the list. Recipients must be numbers we may text (src/shared/phone.ts `checkSmsPhone`).
 */
export function normalizePhones(values: string[], path: string, check: (value: string) => PhoneCheck = checkSmsPhone): { phones: string[]; issues: Issue[] } {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  values.forEach((value, i) => {
    const checked = check(value);
    if (!checked.ok) issues.push({ path: `${path}.${i}`, message: PHONE_REFUSAL_MESSAGES[checked.reason], value, reason: checked.reason });
    else seen.add(checked.e164);
  });
  return { phones: [...seen], issues };
}

function validationError(issues: Issue[]): ApiError {
  const first = issues[0]!;
  const message = issues.every((i) => i.value !== undefined)
    ? `${issues.length} phone number${issues.length === 1 ? " is" : "s are"} not valid: ${issues
        .slice(0, 5)
        .map((i) => i.value)
        .join(", ")}${issues.length > 5 ? " …" : ""}`
    : `${first.path}: ${first.message}`;
  return new ApiError("validation_failed", message, { details: issues });
}

/** The request's shape is valid; now its meaning: the audience of its source, phone lists, message or template. */
export function toCampaignInput(req: CampaignRequest): CampaignInput {
  const issues: Issue[] = [];
  let recipients: RecipientSource | undefined;
  const app = req.app ?? "flex";
  if (req.source === "list") {
    if (!req.phones || req.phones.length === 0) issues.push({ path: "phones", message: "Give at least one phone number" });
    else {
      const { phones, issues: bad } = normalizePhones(req.phones, "phones");
      issues.push(...bad);
      recipients = { source: "list", phones, app };
    }
  } else {
    const schema = req.source === "drivers" ? driverAudienceSchema : invitationAudienceSchema;
    const parsed = schema.safeParse({ ...(req.audience ?? {}), ...(req.source === "drivers" && req.app && !req.audience?.app ? { app: req.app } : {}) });
    if (!parsed.success) issues.push(...parsed.error.issues.map((i) => describeIssue(i, ["audience"])));
    else {
      // Paging is the review table's business, not the campaign's.
      const { page: _page, pageSize: _pageSize, ...filters } = parsed.data;
      recipients =
        req.source === "drivers"
          ? { source: "drivers", filters: filters as Extract<RecipientSource, { source: "drivers" }>["filters"] }
          : { source: "invitations", filters: filters as Extract<RecipientSource, { source: "invitations" }>["filters"] };
    }
  }
  const excluded = normalizePhones(req.excludedPhones ?? [], "excludedPhones", anyUsPhone);
  issues.push(...excluded.issues);
  if (req.channel === "sms" && !req.message?.trim()) issues.push({ path: "message", message: "Write the message" });
  if (req.channel === "whatsapp" && !req.template) issues.push({ path: "template", message: "Choose a template" });
  if (issues.length > 0 || !recipients) throw validationError(issues);
  const resolvedApp = recipients.source === "drivers" ? recipients.filters.app : app;
  const language = req.language ?? "en";
  return {
    idempotencyKey: req.idempotencyKey,
    app: resolvedApp,
    channel: req.channel,
    // A marketing SMS goes with its opt-out line; what is stored is exactly what is sent.
    message: req.channel === "sms" ? smsBodyFor(req.message!, req.purpose, language).body : null,
    template: req.channel === "whatsapp" ? req.template! : null,
    recipients,
    excludedPhones: excluded.phones,
    liftLimit: req.liftLimit ?? false,
    purpose: req.purpose,
    category: categoryOf(req.purpose),
    language,
    scheduledAt: req.scheduledAt ?? null,
  };
}

/**
 * The rules that need the author or the database: the one-segment limit (the owner's to lift),
 * the template (approved, and only for admins with billingDetails, who alone may list templates:
 * a template name someone else guessed or was told is refused as well), referral filters (the
 * referral list is billing data too).
 */
export async function checkContent(db: Db, author: SessionUser, input: CampaignInput) {
  if (input.liftLimit && author.roleName !== "owner")
    throw new ApiError("forbidden", "Only the owner may lift the character limit", { details: { reason: "lift_limit_owner_only" } });
  if (input.channel === "whatsapp" && !author.roleProperties?.billingDetails) {
    throw new ApiError("forbidden", "Requires the billingDetails permission", { details: { reason: "billing_details", permission: "billingDetails" } });
  }
  if (input.recipients.source === "drivers" && (input.recipients.filters.referral?.length ?? 0) > 0 && !author.roleProperties?.billingDetails) {
    throw new ApiError("forbidden", "Requires the billingDetails permission", { details: { reason: "billing_details", permission: "billingDetails" } });
  }
  if (input.channel === "sms") {
    const count = countSms(input.message!);
    if (!input.liftLimit && !fitsOneSegment(input.message!)) {
      throw new ApiError("unprocessable", `The message needs ${count.messages} SMS segments; the limit is one`, {
        details: { ...count, reason: "sms_over_one_segment" },
      });
    }
    if (count.messages > MAX_LIFTED_SEGMENTS) {
      throw new ApiError("unprocessable", `The message needs ${count.messages} SMS segments; at most ${MAX_LIFTED_SEGMENTS} can be sent`, {
        details: { ...count, max: MAX_LIFTED_SEGMENTS, reason: "sms_over_max_segments" },
      });
    }
  } else {
    const template = await findTemplate(db, input.template!);
    if (!template) {
      throw new ApiError("unprocessable", `There is no approved WhatsApp template ${input.template!.name} (${input.template!.language})`, {
        details: { reason: "template_not_approved", name: input.template!.name, language: input.template!.language },
      });
    }
    // Every placeholder of the template gets its value, and no value is left without a placeholder.
    for (const part of ["header", "body"] as const) {
      const expected = placeholderCount(template.components.find((c) => c.type === part.toUpperCase())?.text);
      const given = parametersOf(input.template!.components, part).length;
      if (given !== expected) {
        throw new ApiError(
          "unprocessable",
          `${template.name} has ${expected} ${part} placeholder${expected === 1 ? "" : "s"}; ${given} value${given === 1 ? " was" : "s were"} given`,
          {
            details: { field: "template.components", part, expected, given, reason: "template_parameters" },
          },
        );
      }
    }
    // The provider's category decides: a marketing template is a marketing message whatever the panel says.
    if (template.category === "MARKETING" && input.category !== "marketing") {
      throw new ApiError("unprocessable", `${template.name} is a marketing template: classify the campaign as marketing`, {
        details: { field: "purpose", templateCategory: template.category, reason: "marketing_template", name: template.name },
      });
    }
  }
}

/** A scheduled start must lie ahead, and not too far. */
export function checkSchedule(input: CampaignInput, now: number) {
  if (input.scheduledAt === null) return;
  if (input.scheduledAt <= now)
    throw new ApiError("unprocessable", "The scheduled time has passed", { details: { field: "scheduledAt", reason: "scheduled_in_past" } });
  if (input.scheduledAt > now + MAX_SCHEDULE_AHEAD_MS) {
    throw new ApiError("unprocessable", "A campaign can be scheduled at most 30 days ahead", {
      details: { field: "scheduledAt", reason: "scheduled_too_far" },
    });
  }
}
