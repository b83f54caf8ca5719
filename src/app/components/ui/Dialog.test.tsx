import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { beforeEach, describe, expect, it } from "vitest";
import { setLanguage } from "../../i18n";
import { Dialog, useConfirm } from "./Dialog";

beforeEach(async () => {
  await setLanguage("en");
});

function Confirmer({ onResult }: { onResult: (ok: boolean) => void }) {
  const [confirm, dialog] = useConfirm();
  return (
    <>
      <button
        type="button"
        onClick={async () => onResult(await confirm({ title: "Send to 12 drivers?", message: "This cannot be undone.", confirmLabel: "Send", tone: "danger" }))}
      >
        Send
      </button>
      {dialog}
    </>
  );
}

describe("Dialog", () => {
  it("is a modal named by its title and described by its content, closed by Esc (cancel) and the close button", async () => {
    const user = userEvent.setup();
    function Harness() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>
            Open
          </button>
          <Dialog open={open} onClose={() => setOpen(false)} title="Filters" actions={<button type="button">Apply</button>}>
            <p>Pick what to show.</p>
          </Dialog>
        </>
      );
    }
    render(<Harness />);
    await user.click(screen.getByRole("button", { name: "Open" }));
    const dialog = await screen.findByRole("dialog", { name: "Filters" });
    expect(dialog).toHaveAccessibleDescription("Pick what to show.");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("heading", { name: "Filters" })).not.toBeInTheDocument());
    // Focus goes back to what opened it.
    await waitFor(() => expect(screen.getByRole("button", { name: "Open" })).toHaveFocus());
    await user.click(screen.getByRole("button", { name: "Open" }));
    await user.click(await screen.findByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("heading", { name: "Filters" })).not.toBeInTheDocument());
  });
});

describe("useConfirm", () => {
  it("resolves true on confirm and false on cancel, starting on Cancel", async () => {
    const user = userEvent.setup();
    const results: boolean[] = [];
    render(<Confirmer onResult={(ok) => results.push(ok)} />);
    await user.click(screen.getByRole("button", { name: "Send" }));
    const dialog = await screen.findByRole("dialog", { name: "Send to 12 drivers?" });
    expect(dialog).toHaveTextContent("This cannot be undone.");
    expect(screen.getByRole("button", { name: "Cancel" })).toHaveFocus();
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(results).toEqual([false]));
    await user.click(screen.getByRole("button", { name: "Send" }));
    const buttons = (await screen.findByRole("dialog", { name: "Send to 12 drivers?" })).querySelectorAll("button");
    await user.click([...buttons].find((b) => b.textContent === "Send")!);
    await waitFor(() => expect(results).toEqual([false, true]));
  });
});
