/**
 * The live dashboard's socket (live-dashboard.ts, docs/engine.md "The live dashboard"): the ticket
 * (single use, short-lived, the driver's own; the upgrade header required), a decision of the
 * running engine reaching an open socket as the offers page's own row, and the object closing the
 * socket on sign-out (this session, or every session), on erasure and at the session's expiry.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { startRefreshFamily } from "../auth/refresh-tokens";
import { signIdToken } from "../auth/tokens";
import { connectedDriver } from "../test/connected-driver";
import { engineStarter, HOUR } from "../test/engine-fixtures";
import { api, createUser, db, json, PASSWORD, seedUser, signInAs } from "../test/fixtures";
import { captureSessionOf } from "./capture";
import { LIVE_CLOSE } from "./live-dashboard";

const start = engineStarter();

/** A fresh session of the user: its ID token, refresh token and session id, as a sign-in makes them. */
async function sessionOf(user: { id: number; phone: string }) {
  const { token: refreshToken, family } = await startRefreshFamily(db, user.id, { passedTotp: false });
  const idToken = await signIdToken(env, {
    sub: String(user.id),
    sid: family,
    phone_number: user.phone,
    phone_number_verified: true,
    app: "flex",
    is_admin: false,
  });
  return { idToken, refreshToken, sessionId: family };
}

const ticketFor = async (idToken: string) => {
  const res = await api("/api/driver/live-ticket", { method: "POST", token: idToken });
  expect(res.status).toBe(201);
  return json<{ ticket: string; expiresAt: number }>(res);
};

const upgrade = (ticket: string) => api(`/api/driver/live?ticket=${encodeURIComponent(ticket)}`, { headers: { Upgrade: "websocket" } });

type Message =
  | { type: "offer"; offer: Record<string, unknown> & { id: number; status: string }; counts: Record<string, number> }
  | { type: "engine"; engine: Record<string, unknown> };

/** Opens a socket with the ticket and keeps what it hears. */
async function openSocket(ticket: string) {
  const res = await upgrade(ticket);
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const heard: Message[] = [];
  let closed: { code: number; reason: string } | null = null;
  ws.addEventListener("message", (e) => {
    heard.push(JSON.parse(e.data as string) as Message);
  });
  ws.addEventListener("close", (e) => {
    closed = { code: e.code, reason: e.reason };
  });
  ws.accept();
  return {
    ws,
    heard,
    closed: () => closed,
    waitForClose: () =>
      vi.waitFor(
        () => {
          if (!closed) throw new Error("still open");
          return closed;
        },
        { timeout: 5000, interval: 25 },
      ),
  };
}

const refusal = async (res: Response) => ({ status: res.status, body: await json(res) });

describe("the ticket", () => {
  it("is short-lived and opens one socket once: used again it is refused, and the socket hears the engine's view first", async () => {
    const user = await createUser();
    const { idToken } = await sessionOf(user);
    const before = Date.now();
    const { ticket, expiresAt } = await ticketFor(idToken);
    expect(expiresAt).toBeGreaterThan(before);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(ticket).toMatch(new RegExp(`^${user.id}\\.[A-Za-z0-9_-]{43}$`));

    const socket = await openSocket(ticket);
    await vi.waitFor(() => expect(socket.heard.length).toBeGreaterThan(0));
    const view = await json(await api("/api/driver/engine", { token: idToken }));
    expect(socket.heard[0]).toEqual({ type: "engine", engine: { ...view, now: expect.any(Number) } });

    const again = await refusal(await upgrade(ticket));
    expect(again).toMatchObject({ status: 401, body: { error: { code: "unauthorized", details: { reason: "ticket_used" } } } });
    socket.ws.close(1000);
  });

  it("is refused once expired, for another driver, malformed, and without the upgrade header (426)", async () => {
    const user = await createUser();
    const other = await createUser();
    const { idToken, sessionId } = await sessionOf(user);

    // A ticket whose session ends in 100 ms ends with it.
    const short = await captureSessionOf(env, user.id).liveTicket(user.id, { sessionId, expiresAt: Date.now() + 100 });
    await new Promise((r) => setTimeout(r, 200));
    expect(await refusal(await upgrade(short.ticket))).toMatchObject({ status: 401, body: { error: { details: { reason: "ticket_expired" } } } });

    // Another driver's object has no such ticket: the secret of one driver's ticket opens nothing of another's.
    const { ticket } = await ticketFor(idToken);
    const secret = ticket.split(".")[1]!;
    expect(await refusal(await upgrade(`${other.id}.${secret}`))).toMatchObject({ status: 401, body: { error: { details: { reason: "ticket_unknown" } } } });
    expect(await refusal(await upgrade("not-a-ticket"))).toMatchObject({ status: 401, body: { error: { details: { reason: "ticket_unknown" } } } });
    expect(await refusal(await upgrade(""))).toMatchObject({ status: 401 });

    const plain = await api(`/api/driver/live?ticket=${encodeURIComponent(ticket)}`);
    expect(await refusal(plain)).toMatchObject({ status: 426, body: { error: { code: "upgrade_required" } } });
    // The refused attempts spent nothing: the ticket still opens its socket.
    const socket = await openSocket(ticket);
    socket.ws.close(1000);
  });

  it("is given only to a signed-in caller", async () => {
    expect((await api("/api/driver/live-ticket", { method: "POST" })).status).toBe(401);
  });
});

describe("what the socket hears", () => {
  it("a block the engine wins arrives as the offers page's own row, with the counts, and the engine's change as its view", async () => {
    const d = await connectedDriver();
    const { idToken } = await sessionOf(d.user);
    const socket = await openSocket((await ticketFor(idToken)).ticket);
    await vi.waitFor(() =>
      expect(socket.heard).toEqual([{ type: "engine", engine: expect.objectContaining({ engine: { state: "stopped", reason: "driver" } }) }]),
    );

    await start(d.user.id);
    await vi.waitFor(() => expect(socket.heard.at(-1)).toMatchObject({ type: "engine", engine: { engine: { state: "searching" } } }));
    const startsAt = Math.floor((Date.now() + 5 * HOUR) / 1000) * 1000;
    await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt, endsAt: startsAt + 2 * HOUR, payCents: 7000 }]);
    const won = await vi.waitFor(
      () => {
        const m = socket.heard.find((m) => m.type === "offer" && m.offer.status === "won");
        if (m?.type !== "offer") throw new Error("no won offer yet");
        return m;
      },
      { timeout: 5000, interval: 25 },
    );
    const page = await json(await api("/api/driver/offers", { token: idToken }));
    const row = page.rows.find((r: { id: number }) => r.id === won.offer.id);
    // The row may have got its block id since (forfeitable), in a later message of its own.
    const latest = socket.heard.filter((m) => m.type === "offer" && m.offer.id === row.id).at(-1) as Extract<Message, { type: "offer" }>;
    expect(latest.offer).toEqual(row);
    expect(won.counts).toEqual({ won: 1, disliked: 0, gone: 0 });
    // Polls alone (the poll's time moves) send no engine message.
    const engineMessages = socket.heard.filter((m) => m.type === "engine").length;
    await new Promise((r) => setTimeout(r, 700));
    expect(socket.heard.filter((m) => m.type === "engine").length).toBe(engineMessages);
    socket.ws.close(1000);
  });
});

describe("when the object closes it", () => {
  it("on sign-out: that session's sockets close, another session's stay open; a sign-out everywhere closes them all", async () => {
    const user = await createUser();
    const one = await sessionOf(user);
    const two = await sessionOf(user);
    const first = await openSocket((await ticketFor(one.idToken)).ticket);
    const second = await openSocket((await ticketFor(two.idToken)).ticket);
    const unused = await ticketFor(one.idToken);

    expect((await api("/api/auth/sign-out", { method: "POST", json: { refreshToken: one.refreshToken } })).status).toBe(200);
    expect(await first.waitForClose()).toEqual({ code: LIVE_CLOSE.session_ended, reason: "session_ended" });
    // A ticket the ended session held opens nothing either.
    expect((await upgrade(unused.ticket)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    expect(second.closed()).toBeNull();

    expect((await api("/api/auth/sign-out", { method: "POST", token: two.idToken, json: { refreshToken: two.refreshToken, global: true } })).status).toBe(200);
    expect(await second.waitForClose()).toEqual({ code: LIVE_CLOSE.session_ended, reason: "session_ended" });
  });

  it("on a password change: every other session's sockets close, the caller's stays open", async () => {
    const user = await seedUser();
    const mine = await sessionOf(user);
    const other = await sessionOf(user);
    const own = await openSocket((await ticketFor(mine.idToken)).ticket);
    const theirs = await openSocket((await ticketFor(other.idToken)).ticket);
    const res = await api("/api/auth/change-password", {
      method: "POST",
      token: mine.idToken,
      json: { currentPassword: PASSWORD, newPassword: "Fresh#Start9" },
    });
    expect(res.status).toBe(200);
    expect(await theirs.waitForClose()).toEqual({ code: LIVE_CLOSE.session_ended, reason: "session_ended" });
    await new Promise((r) => setTimeout(r, 100));
    expect(own.closed()).toBeNull();
    own.ws.close(1000);
  });

  it("when an administrator signs the user out everywhere", async () => {
    const user = await createUser();
    const { idToken } = await sessionOf(user);
    const socket = await openSocket((await ticketFor(idToken)).ticket);
    const support = await signInAs("support");
    const res = await api(`/api/admin/users/${user.id}/sign-out`, { method: "POST", token: support.token, json: { reason: "Lost phone" } });
    expect(res.status).toBe(200);
    expect(await socket.waitForClose()).toEqual({ code: LIVE_CLOSE.session_ended, reason: "session_ended" });
  });

  it("when the owner resets the user's authenticator, which ends every session", async () => {
    const user = await seedUser({ password: null, totpSecret: "JBSWY3DPEHPK3PXP" });
    const { idToken } = await sessionOf(user);
    const socket = await openSocket((await ticketFor(idToken)).ticket);
    const owner = await signInAs("owner");
    const res = await api(`/api/admin/users/${user.id}/reset-totp`, { method: "POST", token: owner.token, json: { reason: "New phone" } });
    expect(res.status).toBe(200);
    expect(await socket.waitForClose()).toEqual({ code: LIVE_CLOSE.session_ended, reason: "session_ended" });
  });

  it("on erasure", async () => {
    const user = await createUser();
    const { idToken } = await sessionOf(user);
    const socket = await openSocket((await ticketFor(idToken)).ticket);
    await captureSessionOf(env, user.id).erase(user.id);
    expect(await socket.waitForClose()).toEqual({ code: LIVE_CLOSE.erased, reason: "erased" });
  });

  it("at the session's expiry, by the alarm, with no engine running", async () => {
    const user = await createUser();
    const { sessionId } = await sessionOf(user);
    const { ticket } = await captureSessionOf(env, user.id).liveTicket(user.id, { sessionId, expiresAt: Date.now() + 600 });
    const socket = await openSocket(ticket);
    expect(socket.closed()).toBeNull();
    expect(await socket.waitForClose()).toEqual({ code: LIVE_CLOSE.expired, reason: "expired" });
  });
});
