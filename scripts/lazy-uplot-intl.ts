/**
 * uPlot builds two Intl objects when its module is evaluated: a number format for its default axis
 * and legend values, and a date format only to read the local time zone's name. The first Intl
 * number or date format a page builds loads the browser's locale data, a long task on the phone
 * Lighthouse's mobile preset models, spent by every page the moment a chart comes near the screen, for formatters our charts never use (Chart.tsx gives every
 * axis and legend value its own writer, and names the time zone it draws in).
 *
 * This build step makes both lazy: built on first use, as the library would if it were written
 * today, with the same results. It rewrites exact lines of the published module and fails the
 * build if a new uPlot no longer has them, so an upgrade is looked at, not silently unpatched.
 */
import type { Plugin } from "vite";

/** Each rewrite: the published text, found exactly once, and what it becomes. */
export const UPLOT_REWRITES: readonly { from: string; to: string }[] = [
  {
    from: "const numFormatter = new Intl.NumberFormat(domEnv ? nav.language : 'en-US');\nconst fmtNum = val => numFormatter.format(val);",
    to: "let numFormatter;\nconst fmtNum = val => (numFormatter ??= new Intl.NumberFormat(domEnv ? nav.language : 'en-US')).format(val);",
  },
  {
    from: "const localTz = new Intl.DateTimeFormat().resolvedOptions().timeZone;",
    to: "let localTzName;\nconst localTz = () => (localTzName ??= new Intl.DateTimeFormat().resolvedOptions().timeZone);",
  },
  { from: "else if (tz == localTz)", to: "else if (tz == localTz())" },
];

/** uPlot's ES module with its Intl objects built on first use; throws when a rewrite does not apply. */
export function lazyUplotIntl(source: string): string {
  let out = source;
  for (const { from, to } of UPLOT_REWRITES) {
    const at = out.indexOf(from);
    if (at === -1 || out.indexOf(from, at + 1) !== -1)
      throw new Error(
        `uPlot's module no longer reads as scripts/lazy-uplot-intl.ts expects (${JSON.stringify(from.slice(0, 60))}): check the rewrite against the new version`,
      );
    out = out.slice(0, at) + to + out.slice(at + from.length);
  }
  return out;
}

/** The Vite plugin: applies the rewrite to uPlot's ES module as it is bundled. */
export function lazyUplot(): Plugin {
  return {
    name: "blockpilot:lazy-uplot-intl",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]uplot[\\/]dist[\\/]uPlot\.esm\.js$/.test(id.split("?")[0] ?? "")) return;
      return { code: lazyUplotIntl(code), map: null };
    },
  };
}
