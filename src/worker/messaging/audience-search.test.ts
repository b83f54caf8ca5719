import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createUser } from "../test/fixtures";
import { foldSearchText, SEARCH_FOLDS } from "./audience-search";

describe("foldSearchText", () => {
  it.each([
    ["García", "garcia"],
    ["GARCÍA", "garcia"],
    ["Ñandú", "nandu"],
    ["François Çelik", "francois celik"],
    ["Zoë Ünal", "zoe unal"],
    ["Los Ángeles", "los angeles"],
    // Only the product's languages are folded: other letters are kept as they are.
    ["ДМИТРИЙ", "ДМИТРИЙ"],
    ["Łódź", "Łodź"],
    ["+1 (202) 555-0123", "+1 (202) 555-0123"],
    ["", ""],
  ])("folds %j to %j", (text, folded) => {
    expect(foldSearchText(text)).toBe(folded);
  });

  it("folds every accented letter of the table to its base", () => {
    for (const [base, accented] of Object.entries(SEARCH_FOLDS)) expect(foldSearchText(accented)).toBe(base.repeat([...accented].length));
  });
});

describe("users.search_key", () => {
  it("is kept by the database on insert and update, folded exactly like the search term", async () => {
    const accented = Object.values(SEARCH_FOLDS).join("");
    const name = `ÁRBOL Ñandú ${accented} Zoë ДМИТРИЙ`;
    const u = await createUser({ name, humanRegion: "Los Ángeles", referralCode: "MIAMI10" });
    const key = async () => (await env.DB.prepare("SELECT search_key FROM users WHERE id = ?").bind(u.id).first<{ search_key: string }>())!.search_key;
    expect(await key()).toBe([name, "Los Ángeles", "MIAMI10"].map(foldSearchText).join("\u001f"));
    expect(await key()).toContain(
      `arbol nandu ${Object.entries(SEARCH_FOLDS)
        .map(([base, chars]) => base.repeat(chars.length))
        .join("")} zoe ДМИТРИЙ`,
    );
    await env.DB.prepare("UPDATE users SET name = 'Renamed', human_region = NULL, delivery_area = 'Área 51', referral_code = NULL WHERE id = ?")
      .bind(u.id)
      .run();
    expect(await key()).toBe("renamed\u001farea 51\u001f");
    // Other columns do not touch it.
    await env.DB.prepare("UPDATE users SET status = 'start' WHERE id = ?").bind(u.id).run();
    expect(await key()).toBe("renamed\u001farea 51\u001f");
  });
});
