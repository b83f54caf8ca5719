/**
 * How the build writes a pre-rendered page (scripts/prerender.ts; docs/public-site.md,
 * "Pre-rendered pages"): the built index.html filled with one page, and which client files the
 * page needs. Plain string work, kept apart from the Vite plugin so the app's tests can check it.
 */
import { EARLY_READS } from "./early-pages.ts";

type ManifestChunk = { file: string; src?: string; isEntry?: boolean; imports?: string[]; css?: string[] };
export type Manifest = Record<string, ManifestChunk>;

const ROOT_MARKUP = /<div id="root"><\/div>/;
const ENTRY_STYLE = /<link rel="stylesheet" crossorigin href="([^"]+)">/;
const ENTRY_SCRIPT = /<script type="module" crossorigin src="([^"]+)"><\/script>/;
const MODULE_PRELOAD = /<link rel="modulepreload" crossorigin href="([^"]+)">/g;

/** What every signed-in page shows besides itself: the route table, its guard, the frame's lazy parts and the live session. */
const FRAME_SOURCES = [
  "src/app/routes.tsx",
  "src/app/routing/Guard.tsx",
  "src/app/layouts/UserMenu.tsx",
  "src/app/layouts/SiteFooter.tsx",
  "src/app/lib/live-session/LiveSession.tsx",
  "src/app/components/ui/Toast.tsx",
];
const EARLY_PAGE_MODULES: Record<keyof typeof EARLY_READS, string> = {
  "/flex/dashboard": "src/app/features/driver/DashboardPage.tsx",
  "/flex/insights": "src/app/features/driver/InsightsPage.tsx",
};

/**
 * The pages a signed-in visit opens directly (early-pages.ts), with the source modules each shows
 * and its reads. The build pre-renders each as a visit with a stored session first shows it, and
 * names on its <html> the chunks and style sheets of those modules (data-early-modules,
 * data-early-styles) and its reads (data-early-reads), for index.html's inline script to fetch
 * during the parse, instead of one chain of requests after another once the app runs.
 */
export const EARLY_PAGES = Object.entries(EARLY_PAGE_MODULES).map(([path, page]) => ({
  path,
  sources: [...FRAME_SOURCES, page],
  reads: EARLY_READS[path as keyof typeof EARLY_READS],
}));

/** Puts one page's markup, title and links into the built index.html. */
export function fillTemplate(
  template: string,
  page: {
    path: string;
    html: string;
    title: string;
    styles: string[];
    scripts: string[];
    parts?: string[];
    /** This page is an early page (EARLY_PAGES): its files and reads. */
    early?: { scripts: string[]; styles: string[]; reads: readonly string[] };
    /** Rendered as a visit with a stored session first renders it (the driver's dashboard), not signed out. */
    storedSession?: boolean;
  },
  readAsset: (href: string) => string,
): string {
  if (!ROOT_MARKUP.test(template)) throw new Error('index.html has no empty <div id="root"></div> to fill');
  const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  // React hoists resource hints (the logo's preload) to the front of what it renders: into the head.
  const hints = /^(?:<link [^>]*\/>)+/.exec(page.html)?.[0] ?? "";
  const body = page.html.slice(hints.length);
  // Style sheets inline: the first paint then waits for the HTML alone, not one more request per
  // sheet. The lazy parts' sheets also keep a <link> that applies to no media (fetched late, never
  // blocking the paint), by which the app's chunk loader knows they are on the page and does not
  // append them again, after the others, where they could win over rules meant to win over them.
  // So does the entry's: the build lists it among the files of every lazy chunk that imports the entry.
  const styleTag = (href: string) => `<style data-href="${href}">${readAsset(href)}</style>`;
  const links = [
    ...page.styles.map((href) => `${styleTag(href)}\n    <link rel="stylesheet" crossorigin href="${href}" media="not all">`),
    ...(hints ? [hints] : []),
  ].join("\n    ");
  const entry = ENTRY_SCRIPT.exec(template);
  if (!entry) throw new Error("the built index.html has no entry <script type=module>");
  // No script tag and no preload in the HTML: index.html's inline script fetches and runs the app's
  // code, the entry and what it imports (data-boot) and the modules of what the page shows
  // (data-modules), after the first paint. Fetched before, a chunk from a fast server finishes before
  // the paint, and Lighthouse's LCP estimate counts every request that did as holding the paint back.
  const entryImports = [...template.matchAll(MODULE_PRELOAD)].map((m) => m[1]!);
  const attributes = {
    "data-prerendered": page.path,
    // Whom the markup is for: index.html's inline script shows it only to a visit that matches.
    "data-prerendered-session": page.storedSession ? "stored" : "none",
    // The lazy parts in the markup, which main.tsx loads before hydrating (boot/lazy-part.tsx).
    "data-parts": (page.parts ?? []).join(" "),
    "data-entry": entry[1]!,
    "data-boot": [entry[1]!, ...entryImports].join(" "),
    "data-modules": page.scripts.join(" "),
    "data-early-path": page.early ? page.path : "",
    "data-early-modules": (page.early?.scripts ?? []).join(" "),
    "data-early-styles": (page.early?.styles ?? []).join(" "),
    "data-early-reads": (page.early?.reads ?? []).join(" "),
  };
  const htmlTag = `<html lang="en" ${Object.entries(attributes)
    .map(([name, value]) => `${name}="${escapeHtml(value)}"`)
    .join(" ")}>`;
  return (
    template
      .replace(ENTRY_STYLE, (_, href: string) => `${styleTag(href)}\n    <link rel="stylesheet" crossorigin href="${href}" media="not all">`)
      .replace(new RegExp(`\\s*${ENTRY_SCRIPT.source}`), "")
      .replace(new RegExp(`\\s*${MODULE_PRELOAD.source}`, "g"), "")
      .replace(/<html lang="en">/, () => htmlTag)
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(page.title)}</title>`)
      .replace("</head>", () => `  ${links}\n  </head>`)
      // Inert until hydrated: nothing typed or clicked before the code runs can be lost.
      .replace(ROOT_MARKUP, () => `<div id="root" inert>${body}</div>`)
  );
}

/** The client files (style sheets, scripts) of the source modules a page was rendered with, entry excluded. */
export function assetsOf(manifest: Manifest, sources: string[]): { styles: string[]; scripts: string[] } {
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
  const onEntry = new Set<string>();
  const walk = (key: string, into: Set<string>) => {
    const chunk = manifest[key];
    if (!chunk || into.has(key)) return;
    into.add(key);
    for (const dep of chunk.imports ?? []) walk(dep, into);
  };
  if (entry) walk(Object.keys(manifest).find((k) => manifest[k] === entry)!, onEntry);
  const wanted = new Set<string>();
  for (const source of sources) if (manifest[source] && !onEntry.has(source)) walk(source, wanted);
  const chunks = [...wanted].filter((key) => !onEntry.has(key)).map((key) => manifest[key]!);
  const entryCss = new Set([...onEntry].flatMap((key) => manifest[key]!.css ?? []));
  const styles = [...new Set(chunks.flatMap((chunk) => chunk.css ?? []))].filter((file) => !entryCss.has(file));
  // Scripts in the order they can be evaluated one by one, each after the chunks it imports (main.tsx
  // evaluates a pre-rendered page's chunks a task each, and a chunk evaluates what it imports first).
  const evaluationOrder: string[] = [];
  const visit = (key: string, seen: Set<string>) => {
    if (seen.has(key) || !wanted.has(key) || onEntry.has(key)) return;
    seen.add(key);
    for (const dep of manifest[key]!.imports ?? []) visit(dep, seen);
    evaluationOrder.push(manifest[key]!.file);
  };
  const seen = new Set<string>();
  for (const key of wanted) visit(key, seen);
  const scripts = evaluationOrder.filter((file) => file.endsWith(".js"));
  return { styles: styles.map((f) => `/${f}`), scripts: scripts.map((f) => `/${f}`) };
}
