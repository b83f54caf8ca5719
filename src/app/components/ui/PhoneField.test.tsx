import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { PhoneField } from "./PhoneField";

function Controlled() {
  const [value, setValue] = useState("");
  return (
    <>
      <PhoneField label="Phone number" value={value} onChange={(e) => setValue(e.target.value)} />
      <output>{value}</output>
    </>
  );
}

describe("PhoneField", () => {
  it("formats as typed and hands the formatted value on", async () => {
    const user = userEvent.setup();
    render(<Controlled />);
    const input = screen.getByRole("textbox", { name: "Phone number" });
    expect(input).toHaveAttribute("type", "tel");
    await user.type(input, "3055550100");
    expect(input).toHaveValue("+1 (305) 555-0100");
    expect(screen.getByRole("status")).toHaveTextContent("+1 (305) 555-0100");
  });

  it("keeps working for an uncontrolled input (react-hook-form's register)", async () => {
    const user = userEvent.setup();
    const seen: string[] = [];
    render(<PhoneField label="Phone number" onChange={(e) => seen.push(e.target.value)} />);
    await user.type(screen.getByRole("textbox", { name: "Phone number" }), "1786");
    expect(seen.at(-1)).toBe("+1 (786");
  });
});
