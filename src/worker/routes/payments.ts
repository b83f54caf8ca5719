import { Hono } from "hono";
import { checkoutSchema } from "../../shared/billing";
import { requireUser, requireVerified } from "../auth/middleware";
import { cancelOwnCheckout, checkoutFor, ownPayment } from "../billing/driver-payments";
import { paymentPage } from "../billing/payment-lists";
import { billingContext } from "../billing/run-context";
import { ledgerPage } from "../billing/service-time";
import { appUrl } from "../config";
import type { AppEnv } from "../context";
import { idParam, pagingSchema } from "../cross-cutting/paging";
import { validate } from "../validate";

/** The driver's payments: /api/payments (docs/payments.md). */
export const paymentRoutes = new Hono<AppEnv>()
  .use(requireUser, requireVerified)

  // Pay: a plan for oneself, or (an approved reseller) for one of their clients. Answers the checkout URL to go to.
  .post("/checkout", validate("json", checkoutSchema), async (c) => {
    // Return links from APP_ORIGIN: a request's Host header is the caller's to choose.
    const checkout = await checkoutFor(billingContext(c), c.var.user, c.req.valid("json"), appUrl(c.var.config, ""));
    return c.json(checkout, 201);
  })

  // The driver's own payments (days of service, refunds), newest first, with totals.
  .get("/", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await paymentPage(c.var.db, { page, pageSize, userId: c.var.user.id }));
  })

  // Every change to the driver's service time, newest first.
  .get("/service-time", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await ledgerPage(c.var.db, c.var.user.id, page, pageSize));
  })

  // One payment, for the driver it is for or whoever paid it; its state comes from our row, never the return URL.
  .get("/:id{[0-9]+}", validate("param", idParam), async (c) => {
    return c.json({ payment: await ownPayment(c.var.db, c.var.user.id, c.req.valid("param").id) });
  })

  // Back from the checkout without paying: the session is ended and the payment marked failed.
  .post("/:id{[0-9]+}/cancel", validate("param", idParam), async (c) =>
    c.json({ payment: await cancelOwnCheckout(billingContext(c), c.var.user.id, c.req.valid("param").id) }),
  );
