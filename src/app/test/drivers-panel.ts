/** The drivers panel's tests: its API (57 drivers the server pages and searches), a send's answer, and the way to a review. */
import { act, screen } from "@testing-library/react";
import type userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, vi } from "vitest";
import type { DriverRow } from "../../shared/audience";
import { toast } from "../components/ui/Toast";
import { setLanguage } from "../i18n";
import type { Call, Route } from "./admin-harness";

export const TOTAL = 57;

function driver(i: number): DriverRow {
  return {
    id: i,
    name: `Driver ${i}`,
    phone: `+1305555${String(1000 + i)}`,
    referral: i % 2 ? "MIAMI10" : null,
    region: "Miami",
    deliveryArea: null,
    goodStanding: i % 3 !== 0,
    accountConnected: true,
    setupComplete: i % 4 !== 0,
    expirationAt: i === 1 ? null : Date.UTC(2026, 5, 9, 12),
    status: i % 2 ? "start" : "stop",
    stripeExpressId: i === 2 ? "acct_2" : null,
  };
}

export function audience(call: Call) {
  const page = Number(call.url.searchParams.get("page") ?? 1);
  const pageSize = Number(call.url.searchParams.get("pageSize") ?? 20);
  const search = call.url.searchParams.get("search");
  const all = Array.from({ length: TOTAL }, (_, i) => driver(i + 1)).filter((d) => !search || d.name.toLowerCase().includes(search.toLowerCase()));
  return { body: { total: all.length, page, pageSize, rows: all.slice((page - 1) * pageSize, page * pageSize) } };
}

export const baseRoutes: Route[] = [
  {
    path: "/api/admin/settings",
    reply: () => ({ body: { ownerName: "Olivia Owner", smsProvider: "outbox", whatsappProvider: "outbox", sendRatePerSecond: 10 } }),
  },
  { path: "/api/admin/regions", reply: () => ({ body: { Items: ["Miami", "Orlando", "Tampa"] } }) },
  { path: "/api/flex/v1/admin/referrals", reply: () => ({ body: { Items: [{ referralCode: "MIAMI10" }, { referralCode: "FLEXPRO" }] } }) },
  {
    path: "/api/flex/v1/admin/sendWhatsapp",
    reply: () => ({
      body: {
        Items: [
          {
            id: "t1",
            name: "welcome_back",
            language: "en_US",
            category: "UTILITY",
            components: [
              { type: "HEADER", text: "Welcome back" },
              { type: "BODY", text: "Your blocks are waiting." },
            ],
          },
        ],
      },
    }),
  },
  { path: "/api/admin/audience", reply: audience },
  { path: "/api/admin/audience/review", reply: () => ({ body: summaryOf(TOTAL) }) },
];

/** The review's account of the rules: by default nobody is left out and nobody waits. */
export function summaryOf(total: number, over: Record<string, unknown> = {}) {
  return {
    total,
    excluded: { opted_out: 0, no_consent: 0, frequency_cap: 0, whatsapp_marketing_us: 0 },
    sendNow: total,
    deferred: { count: 0, first: null, last: null },
    refusal: null,
    ...over,
  };
}

export function sentRoute(
  reply: Route["reply"] = () => ({ status: 201, body: { campaign: { id: 42, total: 55 }, message: "Message sent successfully to 55 users." } }),
): Route {
  return { method: "POST", path: "/api/admin/campaigns", reply };
}

/** Each test starts in English, and leaves no stub, mock or toast behind. */
export function resetEachTest() {
  beforeEach(async () => {
    await setLanguage("en");
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    act(() => toast.clear());
  });
}

export const messageBox = () => screen.getByRole("textbox", { name: "Message" });

export async function writeAndReview(user: ReturnType<typeof userEvent.setup>, text = "Hello drivers", purpose = "Service notice") {
  await user.click(screen.getByRole("radio", { name: purpose }));
  await user.type(messageBox(), text);
  await user.click(screen.getByRole("button", { name: "Review" }));
  await screen.findByText(/This message will be sent to \d+ Flex users/);
}
