import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { MultiSelect } from "./MultiSelect";

const labels = { selected: (n: number) => `${n} selected`, clear: "Clear", filter: "Filter", none: "None match" };
const cities = ["Miami", "Orlando", "Tampa", "Jacksonville", "Tallahassee", "Naples", "Ocala", "Destin", "Sarasota", "Pensacola", "Gainesville"];

function Harness({ options = cities, disabled = false }: { options?: string[]; disabled?: boolean }) {
  const [value, setValue] = useState<string[]>(["Tampa"]);
  return (
    <>
      <MultiSelect legend="Regions" options={options} value={value} onChange={setValue} labels={labels} disabled={disabled} />
      <output>{value.join(",")}</output>
    </>
  );
}

describe("MultiSelect", () => {
  it("is a group named by its legend whose checkboxes add and remove values, with a count and Clear", async () => {
    const user = userEvent.setup();
    render(<Harness options={cities.slice(0, 3)} />);
    const group = screen.getByRole("group", { name: "Regions" });
    expect(within(group).getByRole("checkbox", { name: "Tampa" })).toBeChecked();
    await user.click(within(group).getByRole("checkbox", { name: "Miami" }));
    expect(screen.getByRole("status")).toHaveTextContent("Tampa,Miami");
    expect(screen.getByText("2 selected")).toBeInTheDocument();
    // The keyboard: Tab to a checkbox, Space toggles it.
    within(group).getByRole("checkbox", { name: "Tampa" }).focus();
    await user.keyboard(" ");
    expect(screen.getByRole("status")).toHaveTextContent(/^Miami$/);
    await user.click(screen.getByRole("button", { name: "Clear" }));
    expect(screen.getByRole("status")).toHaveTextContent(/^$/);
    expect(screen.getByRole("button", { name: "Clear" })).toBeDisabled();
    expect(screen.queryByRole("searchbox")).not.toBeInTheDocument();
  });

  it("has a filter once the list is longer than 10, keeping what is selected while hidden", async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.type(screen.getByRole("searchbox", { name: "Filter: Regions" }), "sa");
    expect(screen.getAllByRole("checkbox").map((box) => box.closest("label")?.textContent)).toEqual(["Sarasota", "Pensacola"]);
    await user.click(screen.getByRole("checkbox", { name: "Sarasota" }));
    expect(screen.getByRole("status")).toHaveTextContent("Tampa,Sarasota");
    await user.type(screen.getByRole("searchbox"), "x");
    expect(screen.getByText("None match")).toBeInTheDocument();
  });

  it("disables every control when disabled", () => {
    render(<Harness disabled />);
    for (const box of screen.getAllByRole("checkbox")) expect(box).toBeDisabled();
    expect(screen.getByRole("searchbox")).toBeDisabled();
    expect(screen.getByRole("button", { name: "Clear" })).toBeDisabled();
  });
});
