import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { setLanguage } from "../../i18n";
import { apiServer } from "../../test/api-server";
import { renderPage, resetEachTest, result, saved, stub, whatIfCalls } from "../../test/insights-page";

resetEachTest();

describe("insights", () => {
  it("too many what-ifs in a minute (429): says how long to wait, in English and Spanish", async () => {
    const limited = {
      status: 429,
      body: { error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 42 } } },
    };
    stub({ "/api/driver/insights/what-if": limited });
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    expect(await within(whatIf).findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 42 seconds.");
    await act(() => setLanguage("es"));
    await waitFor(() => expect(within(whatIf).getByRole("alert")).toHaveTextContent("Demasiados intentos. Inténtalo de nuevo en 42 segundos."));
  });

  it("the what-if asks once the driver stops typing, keeps the last answer while it works, then shows the new one", async () => {
    // Keys with no pause between them (delay: null), as a quick typist: under a loaded run's slow
    // renders userEvent's default pause could outlast the 300 ms wait between "2" and "5".
    const user = userEvent.setup({ delay: null });
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const bodies: unknown[] = [];
    stub();
    apiServer.use(
      http.post("*/api/driver/insights/what-if", async ({ request }) => {
        bodies.push(await request.json());
        if (bodies.length === 1) return HttpResponse.json(result(10, 105_000, { newlyTaken: 0, gone: 0 }));
        await slow;
        return HttpResponse.json(result(14, 123_400));
      }),
    );
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    const hourly = await within(whatIf).findByLabelText("Minimum $/hour");
    expect(await within(whatIf).findByText(/these filters would have taken 10 blocks for \$1,050/)).toBeInTheDocument();
    expect(bodies).toEqual([{ days: 30, filters: saved }]);

    await user.clear(hourly);
    await user.type(hourly, "25");
    // Each keystroke restarts the wait: one request for "25", none for "" or "2".
    await waitFor(() => expect(bodies).toHaveLength(2));
    expect(bodies[1]).toEqual({ days: 30, filters: { ...saved, minHourlyCents: 2500 } });
    // While it works, the last answer stays, marked busy.
    expect(within(whatIf).getByText("Working it out…")).toBeInTheDocument();
    expect(within(whatIf).getByText(/these filters would have taken 10 blocks/)).toBeInTheDocument();
    await act(async () => release());
    expect(await within(whatIf).findByText(/these filters would have taken 14 blocks for \$1,234/)).toBeInTheDocument();
    expect(within(whatIf).queryByText("Working it out…")).toBeNull();
    const table = within(whatIf).getByRole("table");
    expect(
      within(table)
        .getAllByRole("row")
        .map((r) => r.textContent),
    ).toEqual(["It tookWith these filters", "Blocks1014", "Hours3549", "Pay$1,050$1,234"]);
    // Said plainly: offers passed on might have gone to someone else anyway.
    expect(
      within(whatIf).getByText(
        /4 of them are offers the system passed on: someone else might have taken them first, so they might have gone to other drivers anyway\. 2 more offers these filters want were taken by someone else/,
      ),
    ).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 400));
    expect(bodies).toHaveLength(2);
  });

  it("asks nothing while a field is wrong, and says what to fix", async () => {
    const user = userEvent.setup();
    const calls = stub();
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    await waitFor(() => expect(whatIfCalls(calls)).toHaveLength(1));
    const pay = within(whatIf).getByLabelText("Minimum block pay ($)");
    await user.clear(pay);
    await user.type(pay, "abc");
    expect(within(whatIf).getByText("Fix the marked fields to see the result.")).toBeInTheDocument();
    expect(pay).toHaveAttribute("aria-invalid", "true");
    await new Promise((r) => setTimeout(r, 400));
    expect(whatIfCalls(calls)).toHaveLength(1);
    expect(within(whatIf).getByRole("button", { name: "Apply these filters" })).toBeDisabled();
  });

  it("Apply saves the edited filters with PUT after a confirm", async () => {
    const user = userEvent.setup();
    const calls = stub();
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    const apply = await within(whatIf).findByRole("button", { name: "Apply these filters" });
    expect(apply).toBeDisabled();
    // A station more, with its own minimum, and a longer buffer.
    await user.click(within(whatIf).getByText("Stations", { selector: "summary", exact: false }));
    await user.click(within(whatIf).getByRole("checkbox", { name: "DMI2 Hialeah" }));
    await user.type(within(whatIf).getByRole("textbox", { name: "DMI2 Hialeah: Min. $/hour (optional)" }), "28");
    const buffer = within(whatIf).getByLabelText("Arrival buffer (minutes)");
    await user.clear(buffer);
    await user.type(buffer, "45");
    await user.click(apply);
    const dialog = await screen.findByRole("dialog", { name: "Apply these filters?" });
    await user.click(within(dialog).getByRole("button", { name: "Apply" }));
    const edited = {
      ...saved,
      stations: [
        { id: "DAX5", minPayCents: null, minHourlyCents: null },
        { id: "DMI2", minPayCents: null, minHourlyCents: 2800 },
      ],
      arrivalBufferMinutes: 45,
    };
    await waitFor(() => expect(calls.filter((c) => c.method === "PUT")).toEqual([{ method: "PUT", path: "/api/driver/filters", body: edited }]));
    // Its stations are those of the offers and of the saved filters: the platform's list is not asked for.
    expect(calls.map((c) => c.path)).not.toContain("/api/driver/stations");
    expect(await screen.findByText("Filters saved: the system uses them from now on.")).toBeInTheDocument();
    // The applied filters are the new starting point: nothing left to apply.
    await waitFor(() => expect(within(whatIf).getByRole("button", { name: "Apply these filters" })).toBeDisabled());
  });

  it("cancelling the confirm saves nothing; a refused save is said", async () => {
    const user = userEvent.setup();
    const calls = stub({
      "/api/driver/filters": [
        { body: { filters: saved } },
        { status: 503, body: { error: { code: "unavailable", message: "Service unavailable: try again shortly" } } },
      ],
    });
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    await user.type(await within(whatIf).findByLabelText("Minimum block pay ($)"), "0");
    await user.click(within(whatIf).getByRole("button", { name: "Apply these filters" }));
    await user.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Cancel" }));
    expect(calls.filter((c) => c.method === "PUT")).toHaveLength(0);
    await user.click(within(whatIf).getByRole("button", { name: "Apply these filters" }));
    await user.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Apply" }));
    expect(await screen.findByText("Service unavailable: try again shortly")).toBeInTheDocument();
    expect(calls.filter((c) => c.method === "PUT")[0]?.body).toEqual({ ...saved, minPayCents: 50_000 });
    expect(within(whatIf).getByRole("button", { name: "Apply these filters" })).toBeEnabled();
  });
});
