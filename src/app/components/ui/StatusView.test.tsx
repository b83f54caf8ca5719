import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { act } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import { Badge } from "./Badge";
import { DataTable } from "./DataTable";
import { StatusView } from "./StatusView";
import { TableScroll } from "./TableScroll";

beforeEach(async () => {
  await setLanguage("en");
});

describe("StatusView", () => {
  it("announces loading politely", () => {
    render(<StatusView kind="loading" />);
    expect(screen.getByRole("status")).toHaveTextContent("Loading…");
  });

  it("announces an error at once, with Try again", async () => {
    const user = userEvent.setup();
    const retry = vi.fn();
    render(<StatusView kind="error" message="The server did not answer." onRetry={retry} />);
    expect(screen.getByRole("alert")).toHaveTextContent("An error has occurred.The server did not answer.");
    await user.click(screen.getByRole("button", { name: "Try again" }));
    expect(retry).toHaveBeenCalledOnce();
  });

  it("says an empty list is empty, in words, with the way on", () => {
    render(<StatusView kind="empty" title="No campaigns yet" action={<a href="/admin/notifications">Send one</a>} />);
    expect(screen.getByText("No campaigns yet")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Send one" })).toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("follows the language", async () => {
    render(<StatusView kind="error" onRetry={() => {}} />);
    await act(() => setLanguage("es"));
    expect(screen.getByRole("button", { name: "Intentar de nuevo" })).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("Ha ocurrido un error.");
  });
});

describe("Badge", () => {
  it("says its state in words, the tone as a class", () => {
    render(<Badge tone="danger">Failed</Badge>);
    expect(screen.getByText("Failed")).toHaveClass("badge", "badge-danger");
  });
});

describe("TableScroll", () => {
  function sizes(el: HTMLElement, scrollWidth: number, clientWidth: number) {
    Object.defineProperty(el, "scrollWidth", { configurable: true, value: scrollWidth });
    Object.defineProperty(el, "clientWidth", { configurable: true, value: clientWidth });
  }

  it("says to scroll sideways and becomes a focusable region only when the table is wider than its box", () => {
    const { container, rerender } = render(
      <TableScroll label="Recipients">
        <table>
          <tbody>
            <tr>
              <td>x</td>
            </tr>
          </tbody>
        </table>
      </TableScroll>,
    );
    const box = container.querySelector<HTMLElement>(".table-wrap")!;
    expect(screen.queryByText("Scroll sideways for more columns")).not.toBeInTheDocument();
    expect(box).not.toHaveAttribute("tabindex");
    sizes(box, 900, 360);
    act(() => void box.dispatchEvent(new Event("scroll")));
    rerender(
      <TableScroll label="Recipients">
        <table>
          <tbody>
            <tr>
              <td>x</td>
            </tr>
          </tbody>
        </table>
      </TableScroll>,
    );
    expect(screen.getByText("Scroll sideways for more columns")).toBeInTheDocument();
    expect(screen.getByRole("region", { name: "Recipients" })).toHaveAttribute("tabindex", "0");
    expect(container.querySelector(".table-scroll-frame")).toHaveAttribute("data-more-right");
    box.scrollLeft = 540;
    act(() => void box.dispatchEvent(new Event("scroll")));
    expect(container.querySelector(".table-scroll-frame")).toHaveAttribute("data-more-left");
    expect(container.querySelector(".table-scroll-frame")).not.toHaveAttribute("data-more-right");
  });
});

describe("DataTable while busy", () => {
  const table = (busy: boolean) => (
    <DataTable
      columns={[{ key: "name", header: "Name", cell: (row: { name: string }) => row.name }]}
      rows={[]}
      rowKey={(row) => row.name}
      busy={busy}
      empty="No changes yet."
    />
  );

  // The rows used to fade to 55 % opacity, which took muted text below AA contrast (2.57:1 seen by axe):
  // busy is now a bar along the top, and nothing in the table changes its colours.
  it("shows a moving bar and marks the box busy, leaving the rows as they are", () => {
    const { container, rerender } = render(table(true));
    expect(container.querySelector(".table-busy-bar")).toHaveAttribute("aria-hidden", "true");
    expect(container.querySelector(".table-wrap")).toHaveAttribute("aria-busy", "true");
    expect(container.querySelector("table")).not.toHaveClass("busy");
    expect(screen.getByText("No changes yet.")).toBeInTheDocument();
    rerender(table(false));
    expect(container.querySelector(".table-busy-bar")).toBeNull();
    expect(container.querySelector(".table-wrap")).not.toHaveAttribute("aria-busy");
  });
});
