import { ICON_SPRITE_URL } from "virtual:icon-sprite";
import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { Icon } from "./Icon";

describe("Icon", () => {
  it("draws a symbol of the sprite, whose URL carries its content hash", () => {
    expect(ICON_SPRITE_URL).toMatch(/^\/icons\.svg\?v=[0-9a-f]{10}$/);
    const { container } = render(<Icon name="check" />);
    const svg = container.querySelector("svg")!;
    expect(svg).toHaveAttribute("aria-hidden", "true");
    expect(svg.querySelector("use")).toHaveAttribute("href", `${ICON_SPRITE_URL}#check`);
  });

  it("is an image with a name when it stands alone", () => {
    const { getByRole } = render(<Icon name="search" label="Search" />);
    expect(getByRole("img", { name: "Search" })).toBeInTheDocument();
  });
});
