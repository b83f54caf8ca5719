import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { api, setTokenSource, unwrap } from "../lib/api-client";
import { SESSION_STORAGE_KEY } from "../lib/session-tokens";
import { EARLY_READ_MAX_AGE_MS, startEarlyReads, takeEarlyRead } from "./early-reads";

/** An unsigned JWT whose claims say it expires at `exp` (seconds): only its claims are read here. */
const jwt = (exp: number, sub = "7") => `h.${btoa(JSON.stringify({ sub, exp })).replace(/=+$/, "")}.s`;
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

function store(idToken: string) {
  localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ idToken, refreshToken: "r" }));
}

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  localStorage.clear();
  let n = 0;
  fetchMock = vi.fn(async () => new Response(JSON.stringify({ answer: ++n }), { headers: { "Content-Type": "application/json" } }));
  vi.stubGlobal("fetch", fetchMock);
});
afterEach(() => {
  // Whatever a test left started is handed out (and so forgotten) before the next one.
  takeEarlyRead("/api/flex/v1/user", null);
  setTokenSource(async () => null);
  localStorage.clear();
  vi.unstubAllGlobals();
});

describe("early reads", () => {
  it("start each GET at once with the stored ID token", () => {
    const token = jwt(inAnHour());
    store(token);
    startEarlyReads(["/api/flex/v1/user"]);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [path, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(path).toBe("/api/flex/v1/user");
    expect(new Headers(init.headers).get("Authorization")).toBe(`Bearer ${token}`);
  });

  it("start nothing without a stored session, or with one that has expired (the session refreshes it first)", () => {
    startEarlyReads(["/api/flex/v1/user"]);
    store(jwt(Math.floor(Date.now() / 1000) + 10));
    startEarlyReads(["/api/flex/v1/user"]);
    store("not a jwt");
    startEarlyReads(["/api/flex/v1/user"]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("answer the typed client's first call to the same address with the same token, and only that one", async () => {
    const token = jwt(inAnHour());
    store(token);
    startEarlyReads(["/api/flex/v1/user"]);
    setTokenSource(async () => token);
    expect(await unwrap(api.flex.v1.user.$get())).toEqual({ answer: 1 });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    // The next call (the dashboard's next poll) asks the server.
    expect(await unwrap(api.flex.v1.user.$get())).toEqual({ answer: 2 });
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it("are not used for another session, nor once they are old", async () => {
    store(jwt(inAnHour()));
    startEarlyReads(["/api/flex/v1/user"]);
    const other = jwt(inAnHour(), "8");
    setTokenSource(async () => other);
    await unwrap(api.flex.v1.user.$get());
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(new Headers((fetchMock.mock.calls[1] as [string, RequestInit])[1].headers).get("Authorization")).toBe(`Bearer ${other}`);

    const token = jwt(inAnHour());
    store(token);
    const startedAt = Date.now();
    startEarlyReads(["/api/flex/v1/user"], startedAt);
    expect(takeEarlyRead("/api/flex/v1/user", token, startedAt + EARLY_READ_MAX_AGE_MS + 1)).toBeNull();
  });

  it("take over the reads index.html's inline script started with the same token, and start only the others", async () => {
    const token = jwt(inAnHour());
    store(token);
    const inline = Promise.resolve(new Response(JSON.stringify({ answer: "inline" }), { headers: { "Content-Type": "application/json" } }));
    window.blockpilotEarlyReads = { idToken: token, startedAt: Date.now(), answers: { "/api/flex/v1/user": inline } };
    startEarlyReads(["/api/flex/v1/user", "/api/driver/engine"]);
    expect(fetchMock.mock.calls.map(([path]) => path)).toEqual(["/api/driver/engine"]);
    expect(window.blockpilotEarlyReads).toBeUndefined();
    setTokenSource(async () => token);
    expect(await unwrap(api.flex.v1.user.$get())).toEqual({ answer: "inline" });
    takeEarlyRead("/api/driver/engine", null);
  });

  it("do not take over the inline script's reads made with another token", () => {
    store(jwt(inAnHour()));
    const inline = Promise.resolve(new Response("{}"));
    window.blockpilotEarlyReads = { idToken: jwt(inAnHour(), "8"), startedAt: Date.now(), answers: { "/api/flex/v1/user": inline } };
    startEarlyReads(["/api/flex/v1/user"]);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("answer with the failure of the request they started, as the client words it", async () => {
    const token = jwt(inAnHour());
    store(token);
    fetchMock.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    startEarlyReads(["/api/flex/v1/user"]);
    setTokenSource(async () => token);
    await expect(unwrap(api.flex.v1.user.$get())).rejects.toMatchObject({ status: 0, code: "network_error" });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});
