import { Hono } from "hono";
import { contactSchema } from "../../shared/contact";
import { receiveContactMessage } from "../admin/contact-form";
import { identityDeps } from "../auth/identity-deps";
import type { AppEnv } from "../context";
import { validate } from "../validate";

/**
 * The public contact form (docs/public-site.md): each message becomes a lead the admins follow up
 * (src/worker/admin/contact-form.ts: the limits, the honeypot, the consent tick). Every message,
 * kept or dropped, is answered as received.
 */
export const contactRoutes = new Hono<AppEnv>().post("/", validate("json", contactSchema), async (c) => {
  await receiveContactMessage(identityDeps(c), c.req.valid("json"));
  return c.json({ received: true }, 201);
});
