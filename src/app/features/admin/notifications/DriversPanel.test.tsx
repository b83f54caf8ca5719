import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { setLanguage } from "../../../i18n";
import { mockApi, owner, renderScreen, support, supportWithBilling } from "../../../test/admin-harness";
import { audience, baseRoutes, messageBox, resetEachTest, TOTAL, writeAndReview } from "../../../test/drivers-panel";
import { DriversPanel } from "./DriversPanel";

resetEachTest();

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
