import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { isProduction, loadConfig } from "./config";
import type { AppEnv } from "./context";
import { dbMiddleware } from "./db/client";
import { ApiError, type ErrorCode, errorResponse } from "./errors";
import { createLogger } from "./log";
import { openApiDocument } from "./openapi";
import { accountRoutes, adminAccountRoutes } from "./routes/account";
import { adminAudienceRoutes } from "./routes/admin-audiences";
import { adminBillingRoutes } from "./routes/admin-billing";
import { adminCampaignRoutes } from "./routes/admin-campaigns";
import { adminDashboardRoutes } from "./routes/admin-dashboard";
import { adminAuditRoutes, adminInvitationRoutes, adminLeadRoutes } from "./routes/admin-lists";
import { adminSettingsRoutes } from "./routes/admin-settings";
import { adminUserRoutes } from "./routes/admin-users";
import { authRoutes } from "./routes/auth";
import { contactRoutes } from "./routes/contact";
import { driverRoutes } from "./routes/driver";
import { invitationRoutes } from "./routes/invitations";
import { legacyAdminRoutes } from "./routes/legacy-admin";
import { localStripeRoutes } from "./routes/local-stripe";
import { outboxRoutes } from "./routes/outbox";
import { paymentRoutes } from "./routes/payments";
import { planRoutes } from "./routes/plans";
import { resellerRoutes } from "./routes/reseller";
import { statusRoutes } from "./routes/status";
import { userRoutes } from "./routes/user";
import { webhookRoutes } from "./routes/webhooks";

/** A request this slow is logged whatever its status. */
const SLOW_REQUEST_MS = 1000;

const codeForStatus: Record<number, ErrorCode> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  422: "unprocessable",
  429: "rate_limited",
};

/**
 * The API. Production gets the app without development routes; everywhere else the embedded
 * providers' outbox can be read too (/api/admin/outbox), so production cannot serve it even by mistake.
 */
function createApp(options: { developmentRoutes: boolean }) {
  const app = new Hono<AppEnv>()
    .basePath("/api")
    .use(requestId())
    .use(async (c, next) => {
      const log = createLogger({ requestId: c.var.requestId });
      c.set("log", log);
      const started = Date.now();
      await next();
      // Only the requests worth a look get a line of ours: the platform's invocation logs
      // (wrangler.toml [observability]) already record every request's method, path, status and
      // time. A line per request cost half the throughput of a route that does nothing else
      // (bench/README.md, "bench:load").
      const ms = Date.now() - started;
      if (c.res.status >= 500 || ms >= SLOW_REQUEST_MS) log.warn("request", { method: c.req.method, path: c.req.path, status: c.res.status, ms });
    })
    .use(
      secureHeaders({
        contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
        strictTransportSecurity: "max-age=63072000; includeSubDomains",
      }),
    )
    .use(
      bodyLimit({
        maxSize: 1024 * 1024,
        onError: () => {
          throw new ApiError("payload_too_large", "Request body is too large");
        },
      }),
    )
    // Nothing is served on a configuration that fails src/worker/config.ts (the log says why).
    .use(async (c, next) => {
      const config = loadConfig(c.env);
      if (!config.ok) throw new ApiError("unavailable", "The service is not available. Try again later");
      c.set("config", config.config);
      await next();
    })
    .use(dbMiddleware)
    .route("/status", statusRoutes)
    .route("/auth", authRoutes)
    .route("/contact", contactRoutes)
    .route("/flex/v1/user", userRoutes)
    .route("/account", accountRoutes)
    .route("/driver", driverRoutes)
    .route("/plans", planRoutes)
    .route("/payments", paymentRoutes)
    .route("/invitations", invitationRoutes)
    .route("/reseller", resellerRoutes)
    // The embedded checkout's pages: 404 unless PAYMENTS_PROVIDER is "local", which production refuses.
    .route("/local-stripe", localStripeRoutes)
    // Before adminUserRoutes, whose middleware would otherwise run a second time for the erasure.
    .route("/admin/users", adminAccountRoutes)
    .route("/admin/users", adminUserRoutes)
    .route("/admin/dashboard", adminDashboardRoutes)
    .route("/admin/invitations", adminInvitationRoutes)
    .route("/admin/leads", adminLeadRoutes)
    .route("/admin/audit", adminAuditRoutes)
    .route("/admin/billing", adminBillingRoutes)
    .route("/admin/campaigns", adminCampaignRoutes)
    .route("/admin/settings", adminSettingsRoutes)
    // At /admin itself, after the groups above: its guard also answers the /admin paths no group lists.
    .route("/admin", adminAudienceRoutes)
    .route("/", legacyAdminRoutes)
    .route("/webhooks", webhookRoutes);
  if (options.developmentRoutes) app.route("/admin/outbox", outboxRoutes);

  // The generated API reference, for developers: nothing in production exposes the route map.
  if (options.developmentRoutes) {
    app.get("/openapi.json", async (c) => {
      if (isProduction(c.env)) throw new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}`);
      return c.json(await openApiDocument(app, c.env.APP_VERSION));
    });
  }

  app.notFound((c) => errorResponse(c, new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}`)));

  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    if (err instanceof HTTPException) {
      // Hono raises these for malformed bodies (bad JSON, wrong content type) among others.
      const code = codeForStatus[err.status] ?? "bad_request";
      return errorResponse(c, new ApiError(code, err.status === 400 ? "Malformed request body" : err.message || code));
    }
    (c.var.log ?? createLogger()).error("unhandled", { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    return errorResponse(c, new ApiError("internal", "An unexpected error occurred. Please try again later"));
  });
  return app;
}

export const app = createApp({ developmentRoutes: true });
export const productionApp = createApp({ developmentRoutes: false });

/** The app an environment gets: production never has the development routes. */
export function appFor(env: Pick<Env, "ENVIRONMENT">) {
  return isProduction(env) ? productionApp : app;
}

export type AppType = ReturnType<typeof createApp>;
