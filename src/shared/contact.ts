import { appSchema, emailSchema, languageSchema, phoneSchema } from "./auth";
import { CONTACT_FORM_CONSENT } from "./consent-texts";
import { z } from "./zod";

/** The longest message the contact form takes. */
export const CONTACT_MESSAGE_MAX = 2000;

/**
 * POST /api/contact: a visitor's message to the team, filed as a lead. `website` is a honeypot:
 * the form hides it from people, so anything in it means a bot (answered like a success, kept
 * nowhere). `marketingConsent` is the form's optional, unticked box: present only when ticked, naming
 * the version of the wording it showed (src/shared/consent-texts.ts; docs/messaging-rules.md).
 */
export const contactSchema = z.object({
  name: z.string().trim().min(1, "Enter your name").max(100),
  phoneNumber: phoneSchema,
  email: z.union([z.literal("").transform(() => null), emailSchema]).optional(),
  message: z.string().trim().min(1, "Write your message").max(CONTACT_MESSAGE_MAX),
  app: appSchema.default("flex"),
  language: languageSchema.default("en"),
  website: z.string().max(500).optional(),
  marketingConsent: z.object({ version: z.literal(CONTACT_FORM_CONSENT.version) }).optional(),
});
