import { Hono } from "hono";
import { contactSchema } from "../../shared/contact";
import { clientAddress, enforceRateLimits, limitFor } from "../auth/rate-limit";
import type { AppEnv } from "../context";
import { leads } from "../db/schema";
import { validate } from "../validate";

/**
 * The public contact form (docs/public-site.md): each message becomes a lead the admins follow up.
 * Limited per client address and per phone; a filled honeypot is answered like a success and
 * dropped, so a bot learns nothing.
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
  await c.var.db.insert(leads).values({
    app: body.app,
    phone: body.phoneNumber,
    name: body.name,
    email: body.email ?? null,
    source: "contact",
    message: body.message,
    language: body.language,
  });
  return c.json({ received: true }, 201);
});
