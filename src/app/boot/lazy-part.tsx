import { type ComponentProps, type ComponentType, lazy, useState } from "react";

/**
 * A lazily loaded part of a pre-rendered page (the footer, the landing page's sections…) that the
 * browser loads before hydrating when the page's HTML holds it (docs/public-site.md, "Pre-rendered
 * pages"). A plain React.lazy part suspends on its first render even when its module is already
 * there, so its server HTML stays un-hydrated for a while; any update reaching it meanwhile (the
 * page re-rendering once hydrated, the live session arriving) makes React drop that HTML and render
 * the part again from scratch, showing the fallback in between. A part whose module has been loaded
 * renders at once, in the hydration itself.
 */

type Loader<T> = () => Promise<{ default: T }>;

const loaders = new Map<string, () => Promise<unknown>>();
const rendered = new Set<string>();

// biome-ignore lint/suspicious/noExplicitAny: any component; its props are kept by the returned type.
export function lazyPart<T extends ComponentType<any>>(id: string, load: Loader<T>): ComponentType<ComponentProps<T>> {
  let loaded: T | undefined;
  const loadAndKeep = () =>
    load().then((module) => {
      loaded = module.default;
      return module;
    });
  const Lazy = lazy(loadAndKeep);
  loaders.set(id, loadAndKeep);
  function Part(props: ComponentProps<T>) {
    // Chosen once per mount: switching from the lazy wrapper to the module's component later
    // would be a different component type, and React would mount the part again.
    const [{ Component }] = useState(() => ({ Component: (loaded ?? Lazy) as ComponentType<ComponentProps<T>> }));
    rendered.add(id);
    return <Component {...props} />;
  }
  Part.displayName = `LazyPart(${id})`;
  return Part;
}

/** The parts rendered since the last call (at build time: those a pre-rendered page holds, written into its HTML). */
export function takeRenderedParts(): string[] {
  const ids = [...rendered].sort();
  rendered.clear();
  return ids;
}

/** Loads the named parts (unknown names are skipped: the HTML may be older than the code). */
export async function loadParts(ids: readonly string[]): Promise<void> {
  await Promise.all(ids.map((id) => loaders.get(id)?.()));
}
