import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DriverRow } from "../../../../shared/audience";
import { toast } from "../../../components/ui/Toast";
import { setLanguage } from "../../../i18n";
import { type Call, mockApi, owner, type Route, renderScreen, stubConfirm, support, supportWithBilling } from "../../../test/admin-harness";
import { DriversPanel } from "./DriversPanel";

const TOTAL = 57;

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

function audience(call: Call) {
  const page = Number(call.url.searchParams.get("page") ?? 1);
  const pageSize = Number(call.url.searchParams.get("pageSize") ?? 20);
  const search = call.url.searchParams.get("search");
  const all = Array.from({ length: TOTAL }, (_, i) => driver(i + 1)).filter((d) => !search || d.name.toLowerCase().includes(search.toLowerCase()));
  return { body: { total: all.length, page, pageSize, rows: all.slice((page - 1) * pageSize, page * pageSize) } };
}

const baseRoutes: Route[] = [
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
function summaryOf(total: number, over: Record<string, unknown> = {}) {
  return {
    total,
    excluded: { opted_out: 0, no_consent: 0, frequency_cap: 0, whatsapp_marketing_us: 0 },
    sendNow: total,
    deferred: { count: 0, first: null, last: null },
    refusal: null,
    ...over,
  };
}

function sentRoute(
  reply: Route["reply"] = () => ({ status: 201, body: { campaign: { id: 42, total: 55 }, message: "Message sent successfully to 55 users." } }),
): Route {
  return { method: "POST", path: "/api/admin/campaigns", reply };
}

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  act(() => toast.clear());
});

const messageBox = () => screen.getByRole("textbox", { name: "Message" });

async function writeAndReview(user: ReturnType<typeof userEvent.setup>, text = "Hello drivers", purpose = "Service notice") {
  await user.click(screen.getByRole("radio", { name: purpose }));
  await user.type(messageBox(), text);
  await user.click(screen.getByRole("button", { name: "Review" }));
  await screen.findByText(/This message will be sent to \d+ Flex users/);
}

describe("panel 1 filters", () => {
  it("sends the chosen filters to the audience query", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    fireEvent.change(screen.getByLabelText("Creation date: start"), { target: { value: "2026-01-01" } });
    fireEvent.change(screen.getByLabelText("Creation date: end"), { target: { value: "2026-01-31" } });
    fireEvent.change(screen.getByLabelText("Expiration date: end"), { target: { value: "2026-12-31" } });
    const regions = await screen.findByRole("group", { name: "Amazon regions" });
    await user.click(within(regions).getByLabelText("Miami"));
    await user.click(within(regions).getByLabelText("Tampa"));
    const referrals = await screen.findByRole("group", { name: "Referral codes" });
    await user.click(within(referrals).getByLabelText("FLEXPRO"));
    await user.selectOptions(screen.getByLabelText("Good standing"), "yes");
    await user.selectOptions(screen.getByLabelText("Setup complete"), "no");
    await writeAndReview(user);

    const q = api.to("/api/admin/audience")[0]!.url.searchParams;
    expect(q.get("app")).toBe("flex");
    expect(q.get("startDate")).toBe("2026-01-01");
    expect(q.get("endDate")).toBe("2026-01-31");
    expect(q.get("endExpirationDate")).toBe("2026-12-31");
    expect(q.has("startExpirationDate")).toBe(false);
    expect(q.getAll("region")).toEqual(["Miami", "Tampa"]);
    expect(q.getAll("referral")).toEqual(["FLEXPRO"]);
    expect(q.get("goodStanding")).toBe("yes");
    expect(q.get("setupComplete")).toBe("no");
    expect(q.has("accountConnected")).toBe(false);
    expect(q.get("page")).toBe("1");
    expect(q.get("pageSize")).toBe("20");
    expect(q.get("tzOffsetMinutes")).toBe(String(new Date().getTimezoneOffset()));
    expect(q.get("timeZone")).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it("shows a count and Clear on the region multi-select, and only for Flex", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    const regions = await screen.findByRole("group", { name: "Amazon regions" });
    await user.click(within(regions).getByLabelText("Miami"));
    await user.click(within(regions).getByLabelText("Orlando"));
    expect(screen.getByText("2 selected")).toBeInTheDocument();
    await user.click(screen.getAllByRole("button", { name: "Clear" })[1]!);
    expect(within(regions).getByLabelText("Miami")).not.toBeChecked();
    await user.click(screen.getByLabelText("Spark users"));
    expect(screen.queryByRole("group", { name: "Amazon regions" })).not.toBeInTheDocument();
  });

  it("rejects a start date after the end date, as the server's schema does", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    fireEvent.change(screen.getByLabelText("Creation date: start"), { target: { value: "2026-02-01" } });
    fireEvent.change(screen.getByLabelText("Creation date: end"), { target: { value: "2026-01-01" } });
    await user.type(messageBox(), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(screen.getByText("The start date is after the end date.")).toBeInTheDocument();
    expect(api.to("/api/admin/audience")).toHaveLength(0);
    // Putting the range in order clears the error at once, before any new Review.
    fireEvent.change(screen.getByLabelText("Creation date: end"), { target: { value: "2026-03-01" } });
    await waitFor(() => expect(screen.queryByText("The start date is after the end date.")).not.toBeInTheDocument());
  });

  it("asks for a message before reviewing", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(screen.getByText("Write the message first.")).toBeInTheDocument();
    await user.type(messageBox(), "H");
    await waitFor(() => expect(screen.queryByText("Write the message first.")).not.toBeInTheDocument());
  });

  it("offers WhatsApp disabled, saying why, to an admin without billingDetails", async () => {
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: support });
    const whatsapp = screen.getByRole("radio", { name: "WhatsApp" });
    expect(whatsapp).toBeDisabled();
    expect(whatsapp).toHaveAccessibleDescription("WhatsApp templates need the billing details permission.");
  });

  it("offers WhatsApp to an admin with billingDetails", async () => {
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: owner });
    expect(screen.getByRole("radio", { name: "WhatsApp" })).toBeEnabled();
    expect(screen.queryByText("WhatsApp templates need the billing details permission.")).not.toBeInTheDocument();
  });
});

describe("referral select", () => {
  it("is hidden, and never requested, without billingDetails", async () => {
    const api = mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: support });
    await screen.findByRole("group", { name: "Amazon regions" });
    expect(screen.queryByRole("group", { name: "Referral codes" })).not.toBeInTheDocument();
    expect(api.to("/api/flex/v1/admin/referrals")).toHaveLength(0);
  });

  it("is hidden when the server answers 403", async () => {
    const api = mockApi([
      { path: "/api/flex/v1/admin/referrals", reply: () => ({ status: 403, body: { error: { code: "forbidden", message: "Forbidden" } } }) },
      ...baseRoutes,
    ]);
    renderScreen(<DriversPanel />, { user: supportWithBilling });
    await screen.findByRole("group", { name: "Amazon regions" });
    await waitFor(() => expect(api.to("/api/flex/v1/admin/referrals")).toHaveLength(1));
    expect(screen.queryByRole("group", { name: "Referral codes" })).not.toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("lists every referral code, however many pages the server splits them into", async () => {
    const api = mockApi([
      {
        path: "/api/flex/v1/admin/referrals",
        // DynamoDB's continuation (docs/api.md): up to Limit items, and the key to go on from while more remain.
        reply: (c) => {
          const limit = Number(c.url.searchParams.get("Limit"));
          const after = c.url.searchParams.get("ExclusiveStartKey");
          const codes = Array.from({ length: 150 }, (_, i) => ({ referralCode: `CODE${String(i).padStart(3, "0")}` }));
          const from = after ? codes.findIndex((x) => x.referralCode === (JSON.parse(after) as { referralCode: string }).referralCode) + 1 : 0;
          const Items = codes.slice(from, from + limit);
          const more = from + limit < codes.length;
          return { body: { Items, Count: Items.length, ...(more ? { LastEvaluatedKey: { referralCode: Items.at(-1)!.referralCode } } : {}) } };
        },
      },
      ...baseRoutes,
    ]);
    renderScreen(<DriversPanel />);
    const referrals = await screen.findByRole("group", { name: "Referral codes" });
    expect(within(referrals).getByLabelText("CODE149")).toBeInTheDocument();
    expect(api.to("/api/flex/v1/admin/referrals").map((c) => c.url.searchParams.get("ExclusiveStartKey"))).toEqual([null, '{"referralCode":"CODE099"}']);
  });

  it("is hidden when no referral codes exist", async () => {
    mockApi([{ path: "/api/flex/v1/admin/referrals", reply: () => ({ body: { Items: [] } }) }, ...baseRoutes]);
    renderScreen(<DriversPanel />);
    await screen.findByRole("group", { name: "Amazon regions" });
    expect(screen.queryByRole("group", { name: "Referral codes" })).not.toBeInTheDocument();
  });
});

describe("SMS text and its limit", () => {
  it("is labelled with the owner's name and only the owner may uncheck it", async () => {
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: support });
    const limit = screen.getByRole("checkbox", { name: "Limit characters" });
    expect(limit).toBeChecked();
    expect(limit).toBeDisabled();
    expect(await screen.findByText("only Olivia Owner can uncheck this")).toBeInTheDocument();
  });

  it("lets the owner uncheck it and write past one segment", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: owner });
    const limit = screen.getByRole("checkbox", { name: "Limit characters" });
    expect(limit).toBeEnabled();
    fireEvent.change(messageBox(), { target: { value: "a".repeat(160) } });
    await user.type(messageBox(), "b");
    expect(messageBox()).toHaveValue("a".repeat(160));
    expect(screen.getByText(/one SMS is the limit/)).toBeInTheDocument();
    await user.click(limit);
    await user.type(messageBox(), "b");
    expect(messageBox()).toHaveValue(`${"a".repeat(160)}b`);
    expect(screen.getByText("145 characters remaining · 2 SMS · GSM-7")).toBeInTheDocument();
  });

  it("counts GSM-7, the extension characters and € as 2, and an emoji as UTF-16", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    expect(screen.getByText("160 characters remaining · 1 SMS · GSM-7")).toBeInTheDocument();
    await user.type(messageBox(), "Pay 5€");
    expect(screen.getByText("153 characters remaining · 1 SMS · GSM-7 with extended characters")).toBeInTheDocument();
    await user.clear(messageBox());
    await user.type(messageBox(), "Hola 😀");
    // 5 + 2 code units for the emoji, out of 70.
    expect(screen.getByText("63 characters remaining · 1 SMS · Unicode (UTF-16): “😀” (U+1F600) is not in GSM-7")).toBeInTheDocument();
  });

  it("names the character that makes a Spanish marketing text UTF-16, and the opt-out line is not one", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByRole("radio", { name: "Marketing: offers, news, invitations to join" }));
    await user.selectOptions(screen.getByLabelText("Message language"), "es");
    await user.type(messageBox(), "Bloques hoy");
    // 11 + newline + "Responde STOP para darte de baja" (32) = 44 of 160: the line keeps the text GSM-7.
    expect(screen.getByText("116 characters remaining · 1 SMS · GSM-7")).toBeInTheDocument();
    await user.type(messageBox(), " más");
    expect(screen.getByText("22 characters remaining · 1 SMS · Unicode (UTF-16): “á” (U+00E1) is not in GSM-7")).toBeInTheDocument();
  });

  it("refuses an emoji that would push a GSM text past one segment", async () => {
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: support });
    fireEvent.change(messageBox(), { target: { value: "a".repeat(69) } });
    fireEvent.change(messageBox(), { target: { value: `${"a".repeat(69)}😀` } });
    expect(messageBox()).toHaveValue("a".repeat(69));
    fireEvent.change(messageBox(), { target: { value: `${"a".repeat(68)}😀` } });
    expect(messageBox()).toHaveValue(`${"a".repeat(68)}😀`);
    expect(screen.getByText("0 characters remaining · 1 SMS · Unicode (UTF-16): “😀” (U+1F600) is not in GSM-7")).toBeInTheDocument();
  });
});

describe("review and send", () => {
  it("counts N exactly after deselecting two rows and sends them as excludedPhones", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes, sentRoute()]);
    const confirm = stubConfirm(true);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    expect(screen.getByText(`This message will be sent to ${TOTAL} Flex users`)).toBeInTheDocument();
    expect(await screen.findByRole("checkbox", { name: "Select +13055551003" })).toBeChecked();
    await user.click(screen.getByRole("checkbox", { name: "Select +13055551003" }));
    await user.click(screen.getByRole("checkbox", { name: "Select +13055551005" }));
    expect(screen.getByText(`This message will be sent to ${TOTAL - 2} Flex users`)).toBeInTheDocument();
    // Toggling back and forth stays exact.
    await user.click(screen.getByRole("checkbox", { name: "Select +13055551005" }));
    await user.click(screen.getByRole("checkbox", { name: "Select +13055551005" }));
    expect(screen.getByText(`This message will be sent to ${TOTAL - 2} Flex users`)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(confirm.mock.calls[0]![0]).toContain(`Send this message to ${TOTAL - 2} people?`);
    expect(confirm.mock.calls[0]![0]).toContain(`${TOTAL - 2} drivers matching the filters, less those deselected`);
    // The filters, only those that narrow the audience.
    expect(confirm.mock.calls[0]![0]).toContain("FiltersApp: Flex");
    expect(confirm.mock.calls[0]![0]).not.toContain("Good standing");
    await waitFor(() => expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(1));
    const body = api.to("/api/admin/campaigns", "POST")[0]!.body as Record<string, unknown>;
    expect(body).toMatchObject({ source: "drivers", channel: "sms", message: "Hello drivers", excludedPhones: ["+13055551003", "+13055551005"] });
    expect(body.audience).toMatchObject({ app: "flex" });
    expect(body.idempotencyKey).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(body).not.toHaveProperty("liftLimit");
  });

  it("keeps the selection across pages and page sizes, and the paging is the server's", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    expect(await screen.findByText("Page 1 of 3")).toBeInTheDocument();
    expect(screen.getByText(`${TOTAL} results`)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Previous" })).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findByText("Page 2 of 3")).toBeInTheDocument();
    expect(await screen.findByRole("checkbox", { name: "Select +13055551021" })).toBeInTheDocument();
    await user.click(screen.getByRole("checkbox", { name: "Select +13055551021" }));
    await user.selectOptions(screen.getByLabelText("Rows per page"), "60");
    expect(await screen.findByText("Page 1 of 1")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Next" })).toBeDisabled();
    expect(screen.getByText(`This message will be sent to ${TOTAL - 1} Flex users`)).toBeInTheDocument();
    const pages = api.to("/api/admin/audience").map((c) => `${c.url.searchParams.get("page")}/${c.url.searchParams.get("pageSize")}`);
    expect(pages).toEqual(expect.arrayContaining(["1/20", "2/20", "1/60"]));
    expect(screen.getByRole("checkbox", { name: "Select +13055551021" })).not.toBeChecked();
  });

  it("searches on the server and keeps N as the whole audience", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await user.type(screen.getByRole("searchbox", { name: "Search user..." }), "Driver 5");
    await waitFor(() => expect(api.to("/api/admin/audience").some((c) => c.url.searchParams.get("search") === "Driver 5")).toBe(true));
    await waitFor(() => expect(screen.queryByRole("checkbox", { name: "Select +13055551001" })).not.toBeInTheDocument());
    expect(screen.getByRole("checkbox", { name: "Select +13055551005" })).toBeInTheDocument();
    // Driver 5 and Driver 50 … 57: the count is the search's, N stays the whole audience's.
    expect(screen.getByText("9 results")).toBeInTheDocument();
    expect(screen.getByText(`This message will be sent to ${TOTAL} Flex users`)).toBeInTheDocument();
  });

  it("shows the columns, checks and crosses, None, ON/OFF and the Stripe highlight", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    const table = await screen.findByRole("table");
    const headers = within(table)
      .getAllByRole("columnheader")
      .map((h) => h.textContent?.trim());
    expect(headers.slice(1)).toEqual([
      "Rules",
      "Nombre",
      "Teléfono",
      "Referral",
      "Region",
      "Good standing",
      "Account connected",
      "Filters complete",
      "Expiration date",
      "Status",
    ]);
    const first = within(table).getAllByRole("row")[1]!;
    expect(within(first).getByText("Driver 1")).toBeInTheDocument();
    expect(within(first).getByText("+1 (305) 555-1001")).toBeInTheDocument();
    expect(within(first).getByText("None")).toBeInTheDocument();
    expect(within(first).getByText("ON")).toBeInTheDocument();
    expect(within(first).getAllByTitle("Yes").length).toBeGreaterThan(0);
    expect(within(table).getAllByRole("row")[2]!).toHaveTextContent("OFF");
    expect(within(within(table).getAllByRole("row")[3]!).getAllByTitle("No").length).toBeGreaterThan(0);
    expect(within(table).getAllByRole("row")[2]!).toHaveTextContent("09/06/26");
    expect(screen.getByText("Driver 2").tagName).toBe("MARK");
    expect(screen.getByText("Driver 1").tagName).not.toBe("MARK");
    expect(screen.getByRole("textbox", { name: "Preview" })).toHaveValue("Hello drivers");
  });

  it("shows the delivery area column for Spark", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByLabelText("Spark users"));
    await user.type(messageBox(), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText(`This message will be sent to ${TOTAL} Spark users`)).toBeInTheDocument();
    expect(await screen.findByRole("columnheader", { name: /Delivery area/ })).toBeInTheDocument();
  });

  it("sorts on the server", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await user.click(await screen.findByRole("button", { name: /Nombre/ }));
    await waitFor(() =>
      expect(api.to("/api/admin/audience").some((c) => c.url.searchParams.get("sort") === "name" && c.url.searchParams.get("dir") === "asc")).toBe(true),
    );
    await user.click(screen.getByRole("button", { name: /Nombre/ }));
    await waitFor(() => expect(api.to("/api/admin/audience").some((c) => c.url.searchParams.get("dir") === "desc")).toBe(true));
    expect(screen.getByRole("columnheader", { name: /Nombre/ })).toHaveAttribute("aria-sort", "descending");
  });

  it("does nothing when the confirm is cancelled", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes, sentRoute()]);
    stubConfirm(false);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(0);
    expect(screen.queryByText("Sending message...")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send" })).toBeEnabled();
  });

  it("shows the loading toast while sending, always dismisses it, says the server's message and goes to the campaign's page", async () => {
    const user = userEvent.setup();
    let answer!: () => void;
    const api = mockApi([
      ...baseRoutes,
      sentRoute(
        () =>
          new Promise((resolve) => {
            answer = () => resolve({ status: 201, body: { campaign: { id: 42, total: 57 }, message: "Message sent successfully to 57 users." } });
          }),
      ),
    ]);
    const confirm = stubConfirm(true);
    const router = renderScreen(<DriversPanel />);
    fireEvent.change(screen.getByLabelText("Creation date: start"), { target: { value: "2026-01-01" } });
    await writeAndReview(user);
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText("Sending message...", { selector: ".toast-message" })).toBeInTheDocument();
    expect(confirm.mock.calls[0]![0]).toContain("Creation date: start: 01/01/26");
    await waitFor(() => expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(1));
    await act(async () => answer());
    expect(await screen.findByText("Message sent successfully to 57 users.")).toBeInTheDocument();
    expect(screen.queryByText("Sending message...", { selector: ".toast-message" })).not.toBeInTheDocument();
    // On to the campaign's page, where the messages show as sent when they are.
    expect(await screen.findByText("campaign page")).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/admin/campaigns/42");
  });

  it("says the server's message after a send: who went now, who waits for their hours, who was skipped and why", async () => {
    const user = userEvent.setup();
    const words = "Message sent successfully to 57 users. 40 queued now, 12 deferred to their allowed hours, 5 skipped (opted out: 5).";
    mockApi([...baseRoutes, sentRoute(() => ({ status: 201, body: { campaign: { id: 7, total: 57 }, message: words } }))]);
    stubConfirm(true);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText(words)).toBeInTheDocument();
    expect(screen.queryByText(/Message queued/)).not.toBeInTheDocument();
  });

  it("says the same in Spanish, worded from the answer's figures", async () => {
    const user = userEvent.setup();
    const outcome = { total: 57, sendNow: 40, deferred: 12, excluded: { opted_out: 3, no_consent: 2, frequency_cap: 0, whatsapp_marketing_us: 0 } };
    const words = "Message sent successfully to 57 users. 40 queued now, 12 deferred to their allowed hours, 5 skipped (opted out: 3, no consent basis: 2).";
    mockApi([...baseRoutes, sentRoute(() => ({ status: 201, body: { campaign: { id: 7, total: 57 }, message: words, outcome } }))]);
    stubConfirm(true);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await screen.findByRole("table");
    await act(() => setLanguage("es"));
    await user.click(await screen.findByRole("button", { name: "Enviar" }));
    expect(
      await screen.findByText(
        "Mensaje enviado correctamente a 57 usuarios. 40 en cola ahora, 12 aplazados a su horario permitido, 5 omitidos (Se dio de baja: 3, Sin consentimiento: 2).",
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(words)).not.toBeInTheDocument();
  });

  it("shows the server's error message, keeps the review, and dismisses the loading toast", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes, sentRoute(() => ({ status: 422, body: { error: { code: "unprocessable", message: "The message is longer than one SMS" } } }))]);
    stubConfirm(true);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText("The message is longer than one SMS")).toBeInTheDocument();
    expect(screen.queryByText("Sending message...", { selector: ".toast-message" })).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send" })).toBeEnabled();
  });

  it("says 'An error has occurred.' when the failure carries no message", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes, sentRoute(() => ({ status: 502, body: "Bad gateway" }))]);
    stubConfirm(true);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText("An error has occurred.", { selector: ".toast-message" })).toBeInTheDocument();
  });

  it("uses one idempotency key per review, the same on a retry", async () => {
    const user = userEvent.setup();
    let fail = true;
    const api = mockApi([
      ...baseRoutes,
      sentRoute(() =>
        fail ? { status: 500, body: { error: { code: "internal", message: "Internal error" } } } : { status: 201, body: { campaign: { id: 1, total: 57 } } },
      ),
    ]);
    stubConfirm(true);
    const router = renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    await screen.findByText("Internal error");
    fail = false;
    await user.click(screen.getByRole("button", { name: "Send" }));
    await screen.findByText("campaign page");
    // Back for another send: a new review, a new key.
    await act(() => router.navigate("/admin/notifications"));
    await writeAndReview(user);
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/admin/campaigns/1"));
    const keys = api.to("/api/admin/campaigns", "POST").map((c) => (c.body as { idempotencyKey: string }).idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it("sends liftLimit when the owner unchecked the limit", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes, sentRoute()]);
    stubConfirm(true);
    renderScreen(<DriversPanel />, { user: owner });
    await user.click(screen.getByRole("checkbox", { name: "Limit characters" }));
    fireEvent.change(messageBox(), { target: { value: "a".repeat(200) } });
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(1));
    expect(api.to("/api/admin/campaigns", "POST")[0]!.body).toMatchObject({ liftLimit: true, message: "a".repeat(200) });
  });

  it("Cancel returns to the form with the filters kept", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await writeAndReview(user);
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(messageBox()).toHaveValue("Hello drivers");
  });

  it("sends a WhatsApp template by name and language", async () => {
    const user = userEvent.setup();
    const api = mockApi([...baseRoutes, sentRoute()]);
    stubConfirm(true);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByLabelText("WhatsApp"));
    const select = await screen.findByRole("combobox", { name: "Template" });
    expect(within(select).getByRole("option", { name: "Select a template" })).toBeInTheDocument();
    await user.selectOptions(select, "t1");
    expect(within(select).getByRole("option", { name: "welcome_back (en_US) — Welcome back" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Preview" })).toHaveValue("Your blocks are waiting.");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(1));
    expect(api.to("/api/admin/campaigns", "POST")[0]!.body).toMatchObject({ channel: "whatsapp", template: { name: "welcome_back", language: "en_US" } });
  });
});

describe("panel 1 errors", () => {
  it("says 'An error has occurred.' when its data cannot load", async () => {
    mockApi([{ path: "/api/admin/settings", reply: () => ({ status: 500, body: { error: { code: "internal", message: "Internal error" } } }) }, ...baseRoutes]);
    renderScreen(<DriversPanel />);
    expect(await screen.findByText("An error has occurred.")).toBeInTheDocument();
  });

  it("says 'An error has occurred.' when the review cannot load, with a retry", async () => {
    const user = userEvent.setup();
    let fail = true;
    mockApi([
      { path: "/api/admin/audience", reply: (c) => (fail ? { status: 500, body: { error: { code: "internal", message: "Internal error" } } } : audience(c)) },
      ...baseRoutes,
    ]);
    renderScreen(<DriversPanel />);
    await user.type(messageBox(), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("An error has occurred.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
    fail = false;
    await user.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText(`This message will be sent to ${TOTAL} Flex users`)).toBeInTheDocument();
  });

  it("has nothing to review when no user matches", async () => {
    const user = userEvent.setup();
    mockApi([{ path: "/api/admin/audience", reply: () => ({ body: { total: 0, page: 1, pageSize: 20, rows: [] } }) }, ...baseRoutes]);
    renderScreen(<DriversPanel />);
    await user.type(messageBox(), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("Nothing to review: no users match these filters.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
  });
});

describe("Spanish", () => {
  it("shows the panel in Spanish", async () => {
    await setLanguage("es");
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: support });
    expect(screen.getByRole("heading", { name: "Enviar SMS (todos los usuarios)" })).toBeInTheDocument();
    expect(await screen.findByText("solo Olivia Owner puede desmarcar esto")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Revisar" })).toBeInTheDocument();
  });

  it("writes a chosen day out in Spanish under the date picker", async () => {
    await setLanguage("es");
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: support });
    const start = screen.getByLabelText("Fecha de creación: desde");
    expect(start).toHaveAttribute("lang", "es");
    fireEvent.change(start, { target: { value: "2026-01-09" } });
    expect(screen.getByText("9 ene 2026")).toBeInTheDocument();
    expect(start).toHaveAccessibleDescription("9 ene 2026");
  });
});

describe("the messaging rules in panel 1", () => {
  it("asks what the message is for, counts the opt-out line, and sends purpose and language", async () => {
    const user = userEvent.setup();
    const api = mockApi([
      {
        path: "/api/admin/audience/review",
        reply: () => ({
          body: summaryOf(TOTAL, {
            excluded: { opted_out: 2, no_consent: 5, frequency_cap: 1, whatsapp_marketing_us: 0 },
            sendNow: 30,
            deferred: { count: 19, first: new Date(2026, 6, 16, 8).getTime(), last: new Date(2026, 6, 16, 11).getTime() },
          }),
        }),
      },
      {
        path: "/api/admin/audience",
        reply: (call) => {
          const page = audience(call);
          const rows = page.body.rows.map((r, i) => ({
            ...r,
            exclusion: i === 0 ? "no_consent" : null,
            deferredUntil: i === 1 ? new Date(2026, 6, 16, 8).getTime() : null,
          }));
          return { body: { ...page.body, rows } };
        },
      },
      ...baseRoutes,
      sentRoute(),
    ]);
    stubConfirm(true);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("Say what this message is for.")).toBeInTheDocument();
    await user.click(screen.getByRole("radio", { name: "Marketing: offers, news, invitations to join" }));
    expect(screen.getByText("“Reply STOP to opt out” is added at the end and counted in the limit.")).toBeInTheDocument();
    await user.type(messageBox(), "Hi");
    // 2 characters + newline + the 21-character line: 24 of 160.
    expect(screen.getByText(/136 characters remaining/)).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText("Message language"), "es");
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("Sent at once: 30")).toBeInTheDocument();
    expect(screen.getByText("Deferred to their allowed hours: 19, from 16/07/26 08:00 to 16/07/26 11:00")).toBeInTheDocument();
    expect(screen.getByText("Left out: Opted out: 2 · No consent basis: 5 · Frequency cap: 1")).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Preview" })).toHaveValue("Hi\nResponde STOP para darte de baja");
    const table = await screen.findByRole("table");
    expect(within(table).getAllByRole("row")[1]).toHaveTextContent("No consent basis");
    expect(within(table).getAllByRole("row")[2]).toHaveTextContent("Waits until 16/07/26 08:00");
    const q = api.to("/api/admin/audience").at(-1)!.url.searchParams;
    expect([q.get("channel"), q.get("purpose")]).toEqual(["sms", "marketing"]);
    await user.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(1));
    expect(api.to("/api/admin/campaigns", "POST")[0]!.body).toMatchObject({ message: "Hi", purpose: "marketing", language: "es" });
  });

  it("refuses WhatsApp marketing to +1 numbers before the review and says why", async () => {
    const user = userEvent.setup();
    mockApi([
      ...baseRoutes.filter((r) => r.path !== "/api/flex/v1/admin/sendWhatsapp"),
      {
        path: "/api/flex/v1/admin/sendWhatsapp",
        reply: () => ({
          body: { Items: [{ id: "m1", name: "promo", language: "en_US", category: "MARKETING", components: [{ type: "BODY", text: "Deals" }] }] },
        }),
      },
    ]);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByLabelText("WhatsApp"));
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.selectOptions(await screen.findByLabelText("Template"), "m1");
    expect(screen.getByText("Category: MARKETING")).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("Meta does not deliver WhatsApp marketing templates to +1 (US) numbers");
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("WhatsApp marketing cannot reach +1 numbers.")).toBeInTheDocument();
    expect(screen.queryByText(/This message will be sent to/)).not.toBeInTheDocument();
  });
});
