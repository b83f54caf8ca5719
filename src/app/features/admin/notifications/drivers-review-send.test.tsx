import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { setLanguage } from "../../../i18n";
import { mockApi, owner, renderScreen, stubConfirm } from "../../../test/admin-harness";
import { baseRoutes, messageBox, resetEachTest, sentRoute, TOTAL, writeAndReview } from "../../../test/drivers-panel";
import { DriversPanel } from "./DriversPanel";

resetEachTest();

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
