import { type Context, Hono } from "hono";
import { z } from "zod";
import { appSchema, codeSchema, emailSchema, phoneSchema } from "../../shared/auth";
import { driverFiltersSchema } from "../../shared/driver-filters";
import { insightsQuerySchema, whatIfRequestSchema } from "../../shared/insights-requests";
import { requireUser, requireVerified } from "../auth/middleware";
import { clientAddress } from "../auth/rate-limit";
import type { AppEnv } from "../context";
import { calendarOf, othersCalendar } from "../driver/calendar";
import { answerCode, cancelAttempt, checkApproval, connectWithPassword, disconnect, openFlexSignIn, pasteFlexLanding } from "../driver/connecting";
import { connectionStatus } from "../driver/connection-status";
import { offersPage, offersQuerySchema, readFilters } from "../driver/dashboard";
import { captchaSolved, engineView, switchEngine } from "../driver/engine-view";
import { saveFilters } from "../driver/filter-settings";
import { insightsReport, whatIf } from "../driver/insights";
import { listedStations, setStationZone } from "../driver/listed-stations";
import { checkInWonBlock, forfeitWonBlock } from "../driver/won-blocks";
import { ApiError } from "../errors";
import { issueLiveTicket, openLiveSocket } from "../platform/live-client";
import { isChoosableZone } from "../platform/station-catalogue";
import { validate } from "../validate";
import { driverNotificationRoutes } from "./driver-notifications";

/** Attempt ids are 18 random bytes in base64url (platform/connection.ts). */
const attemptParam = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{24}$/, "Unknown sign-in") });
const offerParam = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
const stationParam = z.object({ id: z.string().min(1).max(200) });
const landingBody = z.object({ attemptId: attemptParam.shape.id, landingUrl: z.string().min(1, "required").max(4096) });
/** A week: the date (YYYY-MM-DD) of any day in it; the calendar shows Monday to Sunday around it. */
const weekQuery = z.object({
  week: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "Use YYYY-MM-DD")
    .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), "Not a date"),
});

/** Who calls, for the connection's services: the driver, and the address a new attempt is limited by. */
const caller = (c: Context<AppEnv>) => ({ db: c.var.db, env: c.env, user: c.var.user, address: clientAddress(c.req.header("CF-Connecting-IP")) });

/**
 * The driver product (docs/engine.md): platform connection, filters, the capture engine's switch
 * and status, offers, blocks (forfeit, "I've arrived") and the calendar. Signed in with a
 * confirmed phone; every call acts on the caller's own data, except another driver's calendar.
 * Every call that reaches the platform is rate limited per driver first (connecting also per
 * address), and the stations list is cached (docs/engine.md, "Limits"). The live dashboard's socket
 * (`/live`) is opened with a ticket, not an ID token, so it comes before the sign-in check: a
 * browser's WebSocket sends no Authorization header, and an ID token never goes in an address.
 */
export const driverRoutes = new Hono<AppEnv>()
  // The live dashboard's socket (platform/live-dashboard.ts): the ticket of POST /live-ticket, spent by the driver's object.
  .get("/live", validate("query", z.object({ ticket: z.string().max(200).optional() })), async (c) => {
    if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") throw new ApiError("upgrade_required", "Open this address as a WebSocket");
    const opened = await openLiveSocket(c.env, c.req.raw, c.req.valid("query").ticket ?? "");
    if (!opened.ok) throw new ApiError("unauthorized", "Ask for a new ticket", { details: { reason: opened.reason } });
    return new Response(null, { status: 101, webSocket: opened.webSocket });
  })
  .use(requireUser, requireVerified)

  // ---- Connection (driver/connecting.ts: who connects how, and the limits) ----
  .get("/connection", async (c) => c.json(await connectionStatus(c.var.db, c.var.user)))
  // Flex: the platform's own sign-in page for a new attempt, then the landing address pasted back.
  .post("/connection/sign-in", async (c) => c.json(await openFlexSignIn(caller(c)), 201))
  .post("/connection/landing", validate("json", landingBody), async (c) => {
    const { attemptId, landingUrl } = c.req.valid("json");
    return c.json(await pasteFlexLanding(caller(c), attemptId, landingUrl));
  })
  .post("/connection", validate("json", z.object({ email: emailSchema, password: z.string().min(1, "required").max(256) })), async (c) => {
    const { email, password } = c.req.valid("json");
    const step = await connectWithPassword(caller(c), email, password);
    return c.json(step, step.status === "connected" ? 200 : 202);
  })
  .post("/connection/code", validate("json", z.object({ attemptId: attemptParam.shape.id, code: codeSchema })), async (c) => {
    const { attemptId, code } = c.req.valid("json");
    return c.json(await answerCode(caller(c), attemptId, code));
  })
  .post("/connection/approval", validate("json", z.object({ attemptId: attemptParam.shape.id })), async (c) =>
    c.json(await checkApproval(caller(c), c.req.valid("json").attemptId)),
  )
  .delete("/connection/attempts/:id", validate("param", attemptParam), async (c) => {
    await cancelAttempt(caller(c), c.req.valid("param").id);
    return c.json({ cancelled: true });
  })
  .delete("/connection", async (c) => {
    await disconnect(caller(c));
    return c.json({ connected: false });
  })

  // ---- Stations and filters ----
  .get("/stations", async (c) => c.json(await listedStations(c.var.db, c.env, c.var.user)))
  // A driver's own zone for a station (theirs alone; the shared catalogue is unchanged), and back to the default.
  .put(
    "/stations/:id/time-zone",
    validate("param", stationParam),
    validate("json", z.object({ timeZone: z.string().max(64).refine(isChoosableZone, "unknown_zone") })),
    async (c) => c.json(await setStationZone(c.var.db, c.env, c.var.user, c.req.valid("param").id, c.req.valid("json").timeZone)),
  )
  .delete("/stations/:id/time-zone", validate("param", stationParam), async (c) =>
    c.json(await setStationZone(c.var.db, c.env, c.var.user, c.req.valid("param").id, null)),
  )
  .get("/filters", async (c) => c.json({ filters: await readFilters(c.var.db, c.var.user.id) }))
  .put("/filters", validate("json", driverFiltersSchema), async (c) => {
    const filters = c.req.valid("json");
    await saveFilters(c.var.db, c.env, c.var.user, filters);
    return c.json({ filters, setupComplete: true });
  })

  // ---- The engine ----
  .get("/engine", async (c) => c.json(await engineView(c.env, c.var.user)))
  .post("/engine", validate("json", z.object({ on: z.boolean() })), async (c) =>
    c.json({ engine: await switchEngine(c.env, c.var.user.id, c.req.valid("json").on) }),
  )
  // The driver solved the platform's captcha on its side: the next matching offer gets one accept try.
  .post("/engine/captcha-solved", async (c) => c.json({ engine: await captchaSolved(c.env, c.var.user.id) }))
  // A single-use ticket, for a minute at most, to open the live dashboard's socket for this session.
  .post("/live-ticket", async (c) => c.json(await issueLiveTicket(c.env, c.var.user.id, { sessionId: c.var.sessionId, expiresAt: c.var.tokenExpiresAt }), 201))

  // ---- Offers and blocks ----
  .get("/offers", validate("query", offersQuerySchema), async (c) => c.json(await offersPage(c.env, c.var.user.id, c.req.valid("query"))))
  .post("/offers/:id/arrive", validate("param", offerParam), async (c) => c.json(await checkInWonBlock(c.var.db, c.env, c.var.user, c.req.valid("param").id)))
  .post("/offers/:id/forfeit", validate("param", offerParam), async (c) => {
    const done = await forfeitWonBlock(c.var.db, c.env, c.var.user, c.req.valid("param").id);
    // During the platform's lockout the forfeit waits for its end (202): the engine sends it then.
    return "queued" in done ? c.json(done, 202) : c.json(done);
  })

  // ---- Insights (src/worker/platform/history-insights.ts, worked out in the driver's engine object) ----
  .get("/insights", validate("query", insightsQuerySchema), async (c) => c.json(await insightsReport(c.env, c.var.user.id, c.req.valid("query").days)))
  .post("/insights/what-if", validate("json", whatIfRequestSchema), async (c) =>
    c.json(await whatIf(c.var.db, c.env, { driverId: c.var.user.id, askedBy: c.var.user.id }, c.req.valid("json"))),
  )

  // ---- Notifications: the channel per event, this browser's push subscription (routes/driver-notifications.ts) ----
  .route("/", driverNotificationRoutes)

  // ---- Calendar ----
  .get("/calendar", validate("query", weekQuery), async (c) => c.json(await calendarOf(c.var.db, c.env, c.var.user, c.req.valid("query").week)))
  .get(
    "/calendar/:phoneNumber",
    validate("param", z.object({ phoneNumber: phoneSchema })),
    validate("query", weekQuery.extend({ app: appSchema.optional() })),
    async (c) => {
      const { week, app } = c.req.valid("query");
      // Another person's calendar (an administrator, or the driver's reseller) is audited before anything is read.
      return c.json(await othersCalendar(c.var.db, c.env, c.var.user, { phone: c.req.valid("param").phoneNumber, app: app ?? c.var.user.app, week }));
    },
  );
