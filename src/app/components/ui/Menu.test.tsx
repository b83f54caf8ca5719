import { act, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import { MenuButton } from "./Menu";

function renderMenu(onSignOut = vi.fn(), onSettings = vi.fn()) {
  const router = createMemoryRouter(
    [
      {
        path: "/",
        element: (
          <>
            <MenuButton
              button="Olivia"
              items={[
                { label: "My profile", to: "/profile" },
                { label: "Settings", onSelect: onSettings },
                { label: "Sign out", onSelect: onSignOut },
              ]}
            />
            <p>Outside</p>
          </>
        ),
      },
      { path: "/profile", element: <h1>Profile page</h1> },
    ],
    { initialEntries: ["/"] },
  );
  render(<RouterProvider router={router} />);
  return { button: screen.getByRole("button", { name: "Olivia" }), onSignOut, onSettings, router };
}

beforeEach(async () => {
  await setLanguage("en");
});

describe("MenuButton (WAI-ARIA menu pattern)", () => {
  it("opens on Enter with focus on the first item and moves with the arrows, Home and End, wrapping", async () => {
    const user = userEvent.setup();
    const { button } = renderMenu();
    expect(button).toHaveAttribute("aria-haspopup", "menu");
    expect(button).toHaveAttribute("aria-expanded", "false");
    button.focus();
    await user.keyboard("{Enter}");
    expect(button).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByRole("menu")).toHaveAccessibleName("Olivia");
    const items = screen.getAllByRole("menuitem");
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveFocus();
    await user.keyboard("{ArrowDown}");
    expect(items[1]).toHaveFocus();
    await user.keyboard("{ArrowUp}{ArrowUp}");
    expect(items[2]).toHaveFocus();
    await user.keyboard("{ArrowDown}");
    expect(items[0]).toHaveFocus();
    await user.keyboard("{End}");
    expect(items[2]).toHaveFocus();
    await user.keyboard("{Home}");
    expect(items[0]).toHaveFocus();
  });

  it("opens on ArrowUp with focus on the last item", async () => {
    const user = userEvent.setup();
    const { button } = renderMenu();
    button.focus();
    await user.keyboard("{ArrowUp}");
    expect(screen.getAllByRole("menuitem")[2]).toHaveFocus();
  });

  it("jumps by typed letters, and a pause of 350 ms starts a new search", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
      const { button } = renderMenu();
      button.focus();
      await user.keyboard("{Enter}");
      const items = screen.getAllByRole("menuitem");
      await user.keyboard("s");
      expect(items[1]).toHaveFocus();
      // Within 350 ms "si" continues the search: Sign out.
      await user.keyboard("i");
      expect(items[2]).toHaveFocus();
      act(() => vi.advanceTimersByTime(360));
      // A new search: "m" finds My profile again.
      await user.keyboard("m");
      expect(items[0]).toHaveFocus();
    } finally {
      vi.useRealTimers();
    }
  });

  it("closes on Esc and returns focus to the button", async () => {
    const user = userEvent.setup();
    const { button } = renderMenu();
    await user.click(button);
    expect(screen.getByRole("menu")).toBeInTheDocument();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
    expect(button).toHaveFocus();
    expect(button).toHaveAttribute("aria-expanded", "false");
  });

  it("closes on a press outside and on Tab", async () => {
    const user = userEvent.setup();
    const { button } = renderMenu();
    await user.click(button);
    fireEvent.pointerDown(screen.getByText("Outside"));
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
    await user.click(button);
    await user.keyboard("{Tab}");
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
  });

  it("runs an action item on Enter or Space and follows a link item", async () => {
    const user = userEvent.setup();
    const { button, onSignOut, onSettings } = renderMenu();
    button.focus();
    await user.keyboard("{Enter}{End}{Enter}");
    expect(onSignOut).toHaveBeenCalledOnce();
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
    expect(button).toHaveFocus();
    await user.keyboard("{Enter}{ArrowDown} ");
    expect(onSettings).toHaveBeenCalledOnce();
    await user.keyboard("{Enter}{Enter}");
    expect(await screen.findByRole("heading", { name: "Profile page" })).toBeInTheDocument();
  });
});
