import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { UserDetail } from "../../../../shared/admin-users";
import { setLanguage } from "../../../i18n";
import { mockApi, owner, renderScreen, support, supportWithBilling } from "../../../test/admin-harness";
import { EraseSection } from "./EraseSection";

const driver = {
  id: 7,
  app: "flex",
  name: "Diego Driver",
  phone: "+13055550102",
  isAdmin: false,
  roleName: null,
} as UserDetail;

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

describe("deleting an account for a written request", () => {
  it("asks the request's reference and the typed word, then erases", async () => {
    const user = userEvent.setup();
    const api = mockApi([{ method: "POST", path: "/api/admin/users/7/erase", reply: () => ({ body: { erased: true, alreadyErased: false } }) }]);
    const onErased = vi.fn();
    renderScreen(<EraseSection user={driver} onErased={onErased} />, { user: supportWithBilling });
    await user.click(await screen.findByRole("button", { name: "Delete account…" }));
    await user.type(screen.getByLabelText("Written request"), "Email of 3 May, ticket 812");
    await user.type(screen.getByLabelText("Type DELETE to confirm"), "yes");
    await user.click(screen.getByRole("button", { name: "Delete account" }));
    expect(await screen.findByText("Type the word shown, exactly")).toBeInTheDocument();
    expect(api.to("/api/admin/users/7/erase", "POST")).toEqual([]);

    await user.clear(screen.getByLabelText("Type DELETE to confirm"));
    await user.type(screen.getByLabelText("Type DELETE to confirm"), "DELETE");
    await user.click(screen.getByRole("button", { name: "Delete account" }));
    await waitFor(() => expect(onErased).toHaveBeenCalled());
    expect(api.to("/api/admin/users/7/erase", "POST")[0]?.body).toEqual({ reference: "Email of 3 May, ticket 812", confirmation: "DELETE" });
  });

  it("is not offered to a support administrator", () => {
    mockApi([]);
    renderScreen(<EraseSection user={driver} onErased={vi.fn()} />, { user: support });
    expect(screen.queryByRole("button", { name: "Delete account…" })).not.toBeInTheDocument();
  });

  it("an administrator's account is the owner's to delete", () => {
    mockApi([]);
    const admin = { ...driver, isAdmin: true, roleName: "support" } as UserDetail;
    renderScreen(<EraseSection user={admin} onErased={vi.fn()} />, { user: supportWithBilling });
    expect(screen.queryByRole("button", { name: "Delete account…" })).not.toBeInTheDocument();
  });

  it("in Spanish, the owner is asked to type ELIMINAR", async () => {
    await setLanguage("es");
    const user = userEvent.setup();
    mockApi([]);
    renderScreen(<EraseSection user={{ ...driver, isAdmin: true, roleName: "support" } as UserDetail} onErased={vi.fn()} />, { user: owner });
    await user.click(await screen.findByRole("button", { name: "Eliminar cuenta…" }));
    expect(screen.getByLabelText("Escribe ELIMINAR para confirmar")).toBeInTheDocument();
  });

  it("says when the account was already deleted", () => {
    mockApi([]);
    renderScreen(<EraseSection user={{ ...driver, name: "", phone: "erased:7" } as UserDetail} onErased={vi.fn()} />, { user: owner });
    expect(screen.getByText("This account was deleted; only its payments and service time remain.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Delete account…" })).not.toBeInTheDocument();
  });
});
