import type { z } from "zod";
import { CONTACT_FORM_CONSENT } from "../../shared/consent-texts";
import type { contactSchema } from "../../shared/contact";
import { enforceCodeSendLimits, type IdentityDeps, sendSmsInBackground } from "../auth/code-delivery";
import { enforceRateLimits, limitFor, RateLimited } from "../auth/rate-limit";
import { claimConsentConfirmation, consentConfirmationDue, consentConfirmationText, consentStatement, type Language } from "../compliance/consent";
import { consentEvents, leads } from "../db/schema";

/**
 * The one text asking a number to confirm a tick made for it on the contact form. It is a text
 * sent on someone's request, so it is charged like a code text: the same per-number and
 * per-address limits and the one budget of requested texts (`enforceCodeSendLimits` →
 * `chargeRequestedText`), outside the reserve kept for confirmed accounts' sign-in. Refused by a limit, or not due (the number confirmed
 * already, opted out, or was asked within the last 90 days), nothing is sent and the tick stays
 * unconfirmed: the form still answers as received, so it says nothing about the number.
 */
async function askToConfirmContactConsent(deps: IdentityDeps, input: { phone: string; consentEventId: number; language: Language }): Promise<void> {
  if (!(await consentConfirmationDue(deps.db, input.phone, deps.now))) return;
  try {
    await enforceCodeSendLimits(deps, input.phone, "consent-confirmation", { send: true, mayUseReserve: false });
  } catch (err) {
    if (!(err instanceof RateLimited)) throw err;
    deps.log.warn("consent.confirmation_refused", { keys: err.keys });
    return;
  }
  if (!(await claimConsentConfirmation(deps.db, { ...input, now: deps.now }))) return;
  sendSmsInBackground(deps, input.phone, consentConfirmationText(input.language), "consent.confirmation");
}

/**
 * A message of the public contact form (docs/public-site.md) becomes a lead the admins follow up.
 * Limited per client address and per phone; a filled honeypot is dropped (the form answers as
 * received all the same, so a bot learns nothing). A ticked consent box is written to the consent
 * ledger with the lead, in one batch, with the exact wording shown, as 'unconfirmed': nobody proved
 * the number, so it allows no marketing until the number replies YES to the one text that asks
 * (docs/messaging-rules.md); unticked, nothing is.
 */
export async function receiveContactMessage(deps: IdentityDeps, body: z.output<typeof contactSchema>): Promise<void> {
  if (body.website?.trim()) {
    deps.log.info("contact honeypot filled; dropped");
    return;
  }
  const { db } = deps;
  await enforceRateLimits(db, [limitFor("contactPerAddress", deps.address), limitFor("contactPerPhone", body.phoneNumber)], deps.now);
  const at = deps.now;
  const lead = db.insert(leads).values({
    app: body.app,
    phone: body.phoneNumber,
    name: body.name,
    email: body.email ?? null,
    source: "contact",
    message: body.message,
    language: body.language,
    createdAt: at,
  });
  if (body.marketingConsent) {
    const consent = consentStatement(db, {
      phone: body.phoneNumber,
      basis: "unconfirmed",
      source: "contact_form",
      text: CONTACT_FORM_CONSENT,
      language: body.language,
      at,
    }).returning({ id: consentEvents.id });
    const [, [tick]] = await db.batch([lead, consent]);
    await askToConfirmContactConsent(deps, { phone: body.phoneNumber, consentEventId: tick!.id, language: body.language });
  } else {
    await lead;
  }
}
