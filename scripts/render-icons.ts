/**
 * `node scripts/render-icons.ts`: renders the web app manifest's PNG icons (public/icons/) from
 * public/logo.svg in Debian's Chromium (playwright-core, as the e2e tests drive it). The PNGs are
 * committed, so the build never needs a browser; rerun this after changing the logo.
 *
 *   icon-192.png, icon-512.png  the logo as it is (purpose "any")
 *   icon-maskable-512.png       the logo inside the maskable safe zone (the inner 80 % circle) on a
 *                               full-bleed square of the brand colour, which a launcher crops to its shape
 *   badge-72.png                the mark alone in white on transparent: Android draws a notification's
 *                               badge from its alpha channel only
 */
import { readFileSync, writeFileSync } from "node:fs";
import { launch } from "../e2e/browser.ts";

const logo = readFileSync(new URL("../public/logo.svg", import.meta.url), "utf8");
/** The logo's tile colour, also the manifest's theme colour (--color-brand-700). */
const BRAND = /<rect[^>]*fill="(#[0-9a-f]{6})"/i.exec(logo)?.[1];
if (!BRAND) throw new Error("public/logo.svg has no filled <rect> to take the brand colour from");
/** The mark: everything the logo draws on its tile. */
const mark = logo.replace(/^<svg[^>]*>|<\/svg>\s*$/g, "").replace(/<rect[^>]*\/>/, "");

const svg = (size: number, body: string, viewBox = "0 0 64 64") =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="${viewBox}">${body}</svg>`;

const ICONS: { file: string; size: number; svg: string }[] = [
  { file: "icon-192.png", size: 192, svg: svg(192, logo.replace(/^<svg[^>]*>|<\/svg>\s*$/g, "")) },
  { file: "icon-512.png", size: 512, svg: svg(512, logo.replace(/^<svg[^>]*>|<\/svg>\s*$/g, "")) },
  // The 64-unit logo drawn in the middle 70 % of a square of 64 / 0.7 units: the mark's corners
  // stay inside the safe zone's circle, and its tile melts into the background of the same colour.
  {
    file: "icon-maskable-512.png",
    size: 512,
    svg: svg(
      512,
      `<rect x="-13.7" y="-13.7" width="91.4" height="91.4" fill="${BRAND}"/>${logo.replace(/^<svg[^>]*>|<\/svg>\s*$/g, "")}`,
      "-13.7 -13.7 91.4 91.4",
    ),
  },
  { file: "badge-72.png", size: 72, svg: svg(72, mark.replaceAll(/(fill|stroke)="#(?!fff")[0-9a-f]{3,6}"/gi, '$1="#fff"'), "10 10 44 44") },
];

const browser = await launch();
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  for (const icon of ICONS) {
    await page.setViewportSize({ width: icon.size, height: icon.size });
    await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${icon.svg}`);
    const png = await page.locator("svg").screenshot({ omitBackground: true });
    writeFileSync(new URL(`../public/icons/${icon.file}`, import.meta.url), png);
    console.log(`public/icons/${icon.file}: ${icon.size}×${icon.size}, ${png.length} bytes`);
  }
} finally {
  await browser.close();
}
