import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../../i18n";
import { mockApi, renderScreen } from "../../../test/admin-harness";
import AuditPage from "./AuditPage";

function stub() {
  return mockApi([
    {
      path: "/api/admin/audit",
      reply: () => ({
        body: {
          total: 1,
          page: 1,
          pageSize: 20,
          rows: [
            {
              id: 9,
              at: new Date(2031, 2, 10, 15, 4).getTime(),
              actorId: 1,
              actorName: "Olivia Owner",
              action: "billing.service_time_adjusted",
              target: "user:42",
              details: { days: 3 },
            },
          ],
        },
      }),
    },
    { path: "/api/admin/audit/actions", reply: () => ({ body: { actions: ["admin.role_changed", "billing.service_time_adjusted"] } }) },
    { path: "/api/admin/users", reply: () => ({ body: { total: 1, page: 1, pageSize: 100, rows: [{ id: 1, name: "Olivia Owner" }] } }) },
  ]);
}

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

describe("audit page", () => {
  it("shows who did what to whom, and filters by actor, action, target and day in the admin's zone", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<AuditPage />, { path: "/admin/audit" });
    expect(await screen.findByText("billing.service_time_adjusted", { selector: "code" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "user:42" })).toHaveAttribute("href", "/admin/users/42");
    expect(screen.getByRole("link", { name: "Olivia Owner" })).toHaveAttribute("href", "/admin/users/1");
    expect(screen.getByText('{"days":3}')).toBeInTheDocument();
    // The console's one date format, DD/MM/YY with the time.
    expect(screen.getByText('{"days":3}').closest("tr")!.cells[0]).toHaveTextContent(/^10\/03\/31 15:04$/);
    const last = () => api.to("/api/admin/audit").at(-1)!.url.searchParams;
    await user.selectOptions(await screen.findByLabelText("Action"), "admin.role_changed");
    await waitFor(() => expect(last().get("action")).toBe("admin.role_changed"));
    await user.selectOptions(screen.getByLabelText("By"), "1");
    await waitFor(() => expect(last().get("actor")).toBe("1"));
    // A half-typed target is not sent; a complete one is.
    await user.type(screen.getByLabelText("About"), "user:");
    expect(screen.getByRole("alert")).toHaveTextContent("kind:number");
    expect(last().get("target")).toBeNull();
    await user.type(screen.getByLabelText("About"), "42");
    await waitFor(() => expect(last().get("target")).toBe("user:42"));
    expect(last().get("timeZone")).toBeTruthy();
  });

  it("speaks Spanish", async () => {
    await setLanguage("es");
    stub();
    renderScreen(<AuditPage />, { path: "/admin/audit" });
    expect(await screen.findByRole("heading", { name: "Registro de auditoría" })).toBeInTheDocument();
    expect(await screen.findByText("1 entrada")).toBeInTheDocument();
  });
});
