import { Hono } from "hono";
import { CONTACT_FORM_CONSENT } from "../../shared/consent-texts";
import { contactSchema } from "../../shared/contact";
import { clientAddress, enforceRateLimits, limitFor } from "../auth/rate-limit";
import { consentStatement } from "../compliance/consent";
import type { AppEnv } from "../context";
import { leads } from "../db/schema";
import { validate } from "../validate";

/**
 * The public contact form (docs/public-site.md): each message becomes a lead the admins follow up.
 * Limited per client address and per phone; a filled honeypot is answered like a success and
 * dropped, so a bot learns nothing. A ticked consent box is written to the consent ledger with the
 * lead, in one batch, with the exact wording shown (docs/messaging-rules.md); unticked, nothing is.
 */
export const contactRoutes = new Hono<AppEnv>().post("/", validate("json", contactSchema), async (c) => {
  const body = c.req.valid("json");
  if (body.website?.trim()) {
    c.var.log.info("contact honeypot filled; dropped");
    return c.json({ received: true }, 201);
  }
  await enforceRateLimits(c.var.db, [
    limitFor("contactPerAddress", clientAddress(c.req.header("CF-Connecting-IP"))),
    limitFor("contactPerPhone", body.phoneNumber),
  ]);
  const db = c.var.db;
  const at = Date.now();
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
      basis: "express",
      source: "contact_form",
      text: CONTACT_FORM_CONSENT,
      language: body.language,
      at,
    });
    await db.batch([lead, consent]);
  } else {
    await lead;
  }
  return c.json({ received: true }, 201);
});
