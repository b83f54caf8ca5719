import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileInlineScript, INLINE_SCRIPT_SOURCE, withInlineScript } from "./inline-script.ts";

describe("index.html's inline script", () => {
  it("is one immediately-invoked function that imports nothing", async () => {
    const code = await compileInlineScript(process.cwd());
    expect(code.startsWith("(function(){")).toBe(true);
    expect(code.endsWith("})();")).toBe(true);
    expect(code).not.toMatch(/(^|[;}])\s*(import|export)\s*[{*\w]/);
    // The app's code is started by address (<html data-entry> and the chunks it imports), through one dynamic import.
    expect(code.match(/import\(/g)).toHaveLength(1);
    expect(code).toContain("bp.session");
  }, 60_000);

  it("takes the place of index.html's placeholder, and only there", () => {
    const html = readFileSync("index.html", "utf8");
    const built = withInlineScript(html, "run()");
    expect(built).toContain("<script>run()</script>");
    expect(built).not.toContain(`data-source="${INLINE_SCRIPT_SOURCE}"`);
    expect(() => withInlineScript("<html></html>", "run()")).toThrow(/placeholder|no <script/);
  });
});
