import { Hono } from "hono";
import { z } from "zod";
import { appSchema, codeSchema, emailSchema, phoneSchema } from "../../shared/auth";
import { driverFiltersSchema } from "../../shared/driver-filters";
import { insightsQuerySchema, whatIfRequestSchema } from "../../shared/insights-requests";
import { requireUser, requireVerified } from "../auth/middleware";
import { clientAddress, enforceCallerLimits, limitFor } from "../auth/rate-limit";
import type { AppEnv, SessionUser } from "../context";
import { CALENDAR_LIMIT, calendarAnswer, calendarDriver, weekRange } from "../driver/calendar";
import { connectionStatus } from "../driver/connection-status";
import { offersPage, offersQuerySchema, readFilters } from "../driver/dashboard";
import { engineView, switchEngine } from "../driver/engine-view";
import { saveFilters } from "../driver/filter-settings";
import { cachedStationsAnswer, listedStation, listedStationsAnswer, setStationZone } from "../driver/listed-stations";
import { ApiError } from "../errors";
import {
  answerConnectionCode,
  cancelConnection,
  checkConnectionApproval,
  finishFlexSignIn,
  startConnection,
  startFlexSignIn,
  unwrap,
} from "../platform/connection";
import { engineOf } from "../platform/engine-client";
import { NOT_SCHEDULED_YET, type PlatformResult } from "../platform/engine-status";
import { historyOf } from "../platform/history-client";
import { isChoosableZone } from "../platform/station-catalogue";
import { validate } from "../validate";

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

/** Won, but the platform's schedule does not list the block yet: its id (what a forfeit or check-in names) is unknown. A 409. */
function notScheduledYet<T>(result: PlatformResult<T>): PlatformResult<T> {
  if (!result.ok && result.message === NOT_SCHEDULED_YET)
    throw new ApiError("conflict", "The platform has not scheduled this block yet: try again in a minute", { details: { reason: NOT_SCHEDULED_YET } });
  return result;
}

type Db = AppEnv["Variables"]["db"];

function deps(c: { var: { db: Db; user: SessionUser }; env: Env }) {
  return { db: c.var.db, env: c.env, userId: c.var.user.id, app: c.var.user.app, now: Date.now() };
}

/** A driver's calendar for a week: their windows, their stations, and the blocks they won (from their own history). */
async function calendarOf(db: Db, env: Pick<Env, "CAPTURE_SESSION">, driver: Pick<SessionUser, "id" | "app" | "name" | "phone">, week: string) {
  const range = weekRange(week);
  // Blocks are placed on their station-local day, which may be a day off the UTC one: read a day either side.
  const [filters, won] = await Promise.all([
    readFilters(db, driver.id),
    historyOf(env, driver.id).blocksStarting(driver.id, range.from - 86_400_000, range.to + 86_400_000, CALENDAR_LIMIT),
  ]);
  return calendarAnswer(db, driver, range, filters, won);
}

/**
 * The driver product (docs/engine.md): platform connection, filters, the capture engine's switch
 * and status, offers, blocks (forfeit, "I've arrived") and the calendar. Signed in with a
 * confirmed phone; every call acts on the caller's own data, except another driver's calendar.
 * Every call that reaches the platform is rate limited per driver first (connecting also per
 * address), and the stations list is cached (docs/engine.md, "Limits").
 */
export const driverRoutes = new Hono<AppEnv>()
  .use(requireUser, requireVerified)

  // ---- Connection ----
  .get("/connection", async (c) => c.json(await connectionStatus(c.var.db, c.var.user)))
  // Flex: the platform's own sign-in page for a new attempt, then the landing address pasted back.
  .post("/connection/sign-in", async (c) => {
    const user = c.var.user;
    if (user.app !== "flex") throw new ApiError("conflict", "Spark accounts connect with their email and password", { details: { reason: "not_flex" } });
    await enforceCallerLimits(c.var.db, [
      limitFor("platformConnectPerUser", String(user.id)),
      limitFor("platformConnectPerAddress", clientAddress(c.req.header("CF-Connecting-IP"))),
    ]);
    return c.json(await startFlexSignIn(deps(c), user.language === "es" ? "es" : "en"), 201);
  })
  .post("/connection/landing", validate("json", landingBody), async (c) => {
    const user = c.var.user;
    if (user.app !== "flex") throw new ApiError("conflict", "Spark accounts connect with their email and password", { details: { reason: "not_flex" } });
    await enforceCallerLimits(c.var.db, [limitFor("platformCodePerUser", String(user.id))]);
    const { attemptId, landingUrl } = c.req.valid("json");
    return c.json(await finishFlexSignIn(deps(c), attemptId, landingUrl));
  })
  .post("/connection", validate("json", z.object({ email: emailSchema, password: z.string().min(1, "required").max(256) })), async (c) => {
    // Open before payment (docs/product.md: connecting comes before paying), so these limits and the
    // confirmed phone (requireVerified) are what keep an unpaid account from testing credentials.
    // Flex has no email-and-password sign-in: its drivers sign in on the platform's page.
    if (c.var.user.app === "flex")
      throw new ApiError("conflict", "Flex accounts connect through the platform's sign-in page", { details: { reason: "not_spark" } });
    await enforceCallerLimits(c.var.db, [
      limitFor("platformConnectPerUser", String(c.var.user.id)),
      limitFor("platformConnectPerAddress", clientAddress(c.req.header("CF-Connecting-IP"))),
    ]);
    const { email, password } = c.req.valid("json");
    const step = await startConnection(deps(c), email, password);
    return c.json(step, step.status === "connected" ? 200 : 202);
  })
  .post("/connection/code", validate("json", z.object({ attemptId: attemptParam.shape.id, code: codeSchema })), async (c) => {
    await enforceCallerLimits(c.var.db, [limitFor("platformCodePerUser", String(c.var.user.id))]);
    const { attemptId, code } = c.req.valid("json");
    return c.json(await answerConnectionCode(deps(c), attemptId, code));
  })
  .post("/connection/approval", validate("json", z.object({ attemptId: attemptParam.shape.id })), async (c) => {
    await enforceCallerLimits(c.var.db, [limitFor("platformApprovalPerUser", String(c.var.user.id))]);
    return c.json(await checkConnectionApproval(deps(c), c.req.valid("json").attemptId));
  })
  .delete("/connection/attempts/:id", validate("param", attemptParam), async (c) => {
    await cancelConnection(deps(c), c.req.valid("param").id);
    return c.json({ cancelled: true });
  })
  .delete("/connection", async (c) => {
    await engineOf(c.env, c.var.user.id).disconnect(c.var.user.id);
    return c.json({ connected: false });
  })

  // ---- Stations and filters ----
  .get("/stations", async (c) => {
    const user = c.var.user;
    const cached = await cachedStationsAnswer(c.var.db, user);
    if (cached) return c.json(cached);
    await enforceCallerLimits(c.var.db, [limitFor("platformStationsPerUser", String(user.id))]);
    const list = unwrap(await engineOf(c.env, user.id).stations(user.id));
    return c.json(await listedStationsAnswer(c.var.db, user, list));
  })
  // A driver's own zone for a station (theirs alone; the shared catalogue is unchanged), and back to the default.
  .put(
    "/stations/:id/time-zone",
    validate("param", stationParam),
    validate("json", z.object({ timeZone: z.string().max(64).refine(isChoosableZone, "unknown_zone") })),
    async (c) => {
      const user = c.var.user;
      const { id } = c.req.valid("param");
      await setStationZone(c.var.db, user, id, c.req.valid("json").timeZone);
      await engineOf(c.env, user.id).reload(user.id);
      return c.json({ station: await listedStation(c.var.db, user, id) });
    },
  )
  .delete("/stations/:id/time-zone", validate("param", stationParam), async (c) => {
    const user = c.var.user;
    const { id } = c.req.valid("param");
    await setStationZone(c.var.db, user, id, null);
    await engineOf(c.env, user.id).reload(user.id);
    return c.json({ station: await listedStation(c.var.db, user, id) });
  })
  .get("/filters", async (c) => c.json({ filters: await readFilters(c.var.db, c.var.user.id) }))
  .put("/filters", validate("json", driverFiltersSchema), async (c) => {
    const filters = c.req.valid("json");
    const user = c.var.user;
    // Every station must be one the platform listed for this driver's app, with a zone this driver's filters can be read in.
    await saveFilters(c.var.db, user, filters);
    await engineOf(c.env, user.id).reload(user.id);
    return c.json({ filters, setupComplete: true });
  })

  // ---- The engine ----
  .get("/engine", async (c) => c.json(await engineView(c.env, c.var.user)))
  .post("/engine", validate("json", z.object({ on: z.boolean() })), async (c) =>
    c.json({ engine: await switchEngine(c.env, c.var.user.id, c.req.valid("json").on) }),
  )
  // The driver solved the platform's captcha on its side: the next matching offer gets one accept try.
  .post("/engine/captcha-solved", async (c) => {
    const engine = await engineOf(c.env, c.var.user.id).captchaSolved(c.var.user.id);
    if (!engine) throw new ApiError("conflict", "Accepting is not waiting for a captcha", { details: { reason: "no_captcha" } });
    return c.json({ engine });
  })

  // ---- Offers and blocks ----
  .get("/offers", validate("query", offersQuerySchema), async (c) => c.json(await offersPage(c.env, c.var.user.id, c.req.valid("query"))))
  .post("/offers/:id/arrive", validate("param", offerParam), async (c) => {
    const user = c.var.user;
    const session = engineOf(c.env, user.id);
    const block = await historyOf(c.env, user.id).offer(user.id, c.req.valid("param").id);
    if (block?.status !== "won" || block.forfeitedAt) throw new ApiError("not_found", "No such block");
    // No platform shows a public check-in call: it is modelled where configured, and not offered elsewhere.
    if (c.env.PLATFORM_CHECK_IN !== "modelled")
      throw new ApiError("conflict", "I've arrived is not available", { details: { reason: "check_in_unavailable" } });
    // docs/product.md: "I've arrived" only works while the system is on.
    if (user.status !== "start") throw new ApiError("conflict", "Turn on the system to use I've arrived", { details: { reason: "system_off" } });
    await enforceCallerLimits(c.var.db, [limitFor("platformBlockActionPerUser", String(user.id))]);
    return c.json(unwrap(notScheduledYet(await session.checkInBlock(user.id, block.id))));
  })
  .post("/offers/:id/forfeit", validate("param", offerParam), async (c) => {
    const user = c.var.user;
    const session = engineOf(c.env, user.id);
    const block = await historyOf(c.env, user.id).offer(user.id, c.req.valid("param").id);
    if (block?.status !== "won") throw new ApiError("not_found", "No such block");
    if (block.forfeitedAt) return c.json({ id: block.id, forfeitedAt: block.forfeitedAt });
    await enforceCallerLimits(c.var.db, [limitFor("platformBlockActionPerUser", String(user.id))]);
    const done = unwrap(notScheduledYet(await session.forfeitBlock(user.id, block.id)));
    // During the platform's lockout the forfeit waits for its end (202): the engine sends it then.
    return "queued" in done ? c.json(done, 202) : c.json(done);
  })

  // ---- Insights (src/worker/platform/history-insights.ts, worked out in the driver's engine object) ----
  .get("/insights", validate("query", insightsQuerySchema), async (c) =>
    c.json(await historyOf(c.env, c.var.user.id).insights(c.var.user.id, c.req.valid("query").days)),
  )
  .post("/insights/what-if", validate("json", whatIfRequestSchema), async (c) => {
    await enforceCallerLimits(c.var.db, [limitFor("whatIfPerUser", String(c.var.user.id))]);
    return c.json(await historyOf(c.env, c.var.user.id).whatIf(c.var.user.id, c.req.valid("json")));
  })

  // ---- Calendar ----
  .get("/calendar", validate("query", weekQuery), async (c) => c.json(await calendarOf(c.var.db, c.env, c.var.user, c.req.valid("query").week)))
  .get(
    "/calendar/:phoneNumber",
    validate("param", z.object({ phoneNumber: phoneSchema })),
    validate("query", weekQuery.extend({ app: appSchema.optional() })),
    async (c) => {
      const caller = c.var.user;
      const { week, app } = c.req.valid("query");
      // Another person's calendar (an administrator, or the driver's reseller) is audited before anything is read.
      const driver = await calendarDriver(c.var.db, caller, { phone: c.req.valid("param").phoneNumber, app: app ?? caller.app, week });
      return c.json(await calendarOf(c.var.db, c.env, driver, week));
    },
  );
