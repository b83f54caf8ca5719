/**
 * How the build writes a pre-rendered page (scripts/prerender.ts; docs/public-site.md,
 * "Pre-rendered pages"): the built index.html filled with one page, and which client files the
 * page needs. Plain string work, kept apart from the Vite plugin so the app's tests can check it.
 */
type ManifestChunk = { file: string; src?: string; isEntry?: boolean; imports?: string[]; css?: string[] };
export type Manifest = Record<string, ManifestChunk>;

const ROOT_MARKUP = /<div id="root"><\/div>/;
const ENTRY_STYLE = /<link rel="stylesheet" crossorigin href="([^"]+)">/;
const ENTRY_SCRIPT = /<script type="module" crossorigin src="([^"]+)"><\/script>/;

/** Puts one page's markup, title and links into the built index.html. */
export function fillTemplate(
  template: string,
  page: { path: string; html: string; title: string; styles: string[]; scripts: string[]; parts?: string[] },
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
  const styleTag = (href: string) => `<style data-href="${href}">${readAsset(href)}</style>`;
  const links = [
    ...page.styles.map((href) => `${styleTag(href)}\n    <link rel="stylesheet" crossorigin href="${href}" media="not all">`),
    ...page.scripts.map((href) => `<link rel="modulepreload" crossorigin href="${href}" fetchpriority="low">`),
    ...(hints ? [hints] : []),
  ].join("\n    ");
  const entry = ENTRY_SCRIPT.exec(template);
  if (!entry) throw new Error("the built index.html has no entry <script type=module>");
  return (
    template
      .replace(ENTRY_STYLE, (_, href: string) => styleTag(href))
      // The app's code is fetched at once but run by public/boot.js after the first paint. All of it,
      // boot.js included, at low priority: the paint needs none of it, so on a slow link it does not
      // compete with the HTML and the logo (and Lighthouse does not count it as holding the paint back).
      .replace(
        ENTRY_SCRIPT,
        () =>
          `<link rel="modulepreload" crossorigin href="${entry[1]}" id="app-entry" fetchpriority="low">\n    <script type="module" src="/boot.js" fetchpriority="low"></script>`,
      )
      .replace(
        /<link rel="modulepreload" crossorigin href="([^"]+)">/g,
        (_, href: string) => `<link rel="modulepreload" crossorigin href="${href}" fetchpriority="low">`,
      )
      // data-parts: the lazy parts in the markup, which main.tsx loads before hydrating (lib/lazy-part.tsx).
      .replace(
        /<html lang="en">/,
        () => `<html lang="en" data-prerendered="${escapeHtml(page.path)}" data-parts="${escapeHtml((page.parts ?? []).join(" "))}">`,
      )
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
  const scripts = [...new Set(chunks.map((chunk) => chunk.file))].filter((file) => file.endsWith(".js"));
  return { styles: styles.map((f) => `/${f}`), scripts: scripts.map((f) => `/${f}`) };
}
