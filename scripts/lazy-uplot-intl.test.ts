import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { lazyUplotIntl } from "./lazy-uplot-intl.ts";

const esmSource = () =>
  readFileSync(
    createRequire(import.meta.url)
      .resolve("uplot")
      .replace(/uPlot\.cjs\.js$/, "uPlot.esm.js"),
    "utf8",
  );

/** Evaluates a module's text as an ES module of its own. */
const load = (source: string) => import(/* @vite-ignore */ `data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);

describe("uPlot's Intl objects built on first use", () => {
  // A local zone that is not UTC, which uPlot's tzDate answers on a path of its own.
  const zone = process.env.TZ;
  beforeEach(() => {
    process.env.TZ = "America/Chicago";
  });
  afterEach(() => {
    vi.restoreAllMocks();
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it("loads the installed uPlot without building an Intl object, and formats as before", async () => {
    const numberFormats = vi.spyOn(Intl, "NumberFormat");
    const dateFormats = vi.spyOn(Intl, "DateTimeFormat");
    const { default: uPlot } = await load(lazyUplotIntl(esmSource()));
    expect(numberFormats).not.toHaveBeenCalled();
    expect(dateFormats).not.toHaveBeenCalled();

    // Its default number writer: the same text as before, one formatter built and kept.
    expect(uPlot.fmtNum(1234.5)).toBe(new Intl.NumberFormat("en-US").format(1234.5));
    expect(uPlot.fmtNum(0.25)).toBe(new Intl.NumberFormat("en-US").format(0.25));
    expect(numberFormats).toHaveBeenCalledTimes(3);

    // The local time zone's dates are passed through as they are, as uPlot did; others are moved.
    const date = new Date(Date.UTC(2026, 10, 29, 12, 30));
    expect(uPlot.tzDate(date, "America/Chicago")).toBe(date);
    expect(uPlot.tzDate(date, "America/New_York")).not.toBe(date);
    expect(uPlot.tzDate(date, "America/New_York").getHours() - date.getHours()).toBe(1);
  });

  it("the untouched module does build them, so the test above can fail", async () => {
    const numberFormats = vi.spyOn(Intl, "NumberFormat");
    await load(esmSource());
    expect(numberFormats).toHaveBeenCalledTimes(1);
  });

  it("fails loudly when a new uPlot no longer has the lines it rewrites", () => {
    expect(() => lazyUplotIntl(esmSource().replace("const localTz = new", "const localTz=new"))).toThrow(/no longer reads/);
    expect(() => lazyUplotIntl(`${esmSource()}\nconst localTz = new Intl.DateTimeFormat().resolvedOptions().timeZone;`)).toThrow(/no longer reads/);
  });
});
