/**
 * Every address the SPA routes, read from its own route table (src/app/router.tsx and the pages
 * it patches in from src/app/routes.tsx) through Vite, so a page another change adds is covered
 * without touching the tests. Path parameters get seeded values (scripts/seed.ts).
 */
import react from "@vitejs/plugin-react";
import type { RouteObject } from "react-router";
import { createServer } from "vite";
import { BUILD_TIME_CACHE_DIR } from "../scripts/build-time-vite.ts";
import { iconSprite } from "../scripts/icon-sprite.ts";
import { DEMO } from "../scripts/seed.ts";

/** A value for each path parameter: the demo driver (user 3) and their phone. */
const PARAMS: Record<string, string> = { id: "3", phoneNumber: DEMO.driver.phone };

export function routePaths(routes: RouteObject[], base = ""): string[] {
  const paths: string[] = [];
  for (const route of routes) {
    if (route.path === "*") continue;
    const own = route.path === undefined ? base : route.path.startsWith("/") ? route.path : `${base.replace(/\/$/, "")}/${route.path}`;
    if (route.index || (route.path !== undefined && !route.children?.length)) paths.push(own || "/");
    if (route.children) paths.push(...routePaths(route.children, own));
  }
  return [...new Set(paths.map((p) => p.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(PARAMS[name] ?? "1"))))];
}

/** Loads the route table the build uses and answers its concrete paths. */
export async function loadRoutePaths(): Promise<string[]> {
  const server = await createServer({
    configFile: false,
    root: new URL("..", import.meta.url).pathname,
    cacheDir: BUILD_TIME_CACHE_DIR,
    plugins: [react(), iconSprite()],
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: "custom",
    logLevel: "error",
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  try {
    const { routes } = (await server.ssrLoadModule("/src/app/router.tsx")) as { routes: RouteObject[] };
    const { pageRoutes } = (await server.ssrLoadModule("/src/app/routes.tsx")) as { pageRoutes: RouteObject[] };
    return [...routePaths(routes), ...routePaths(pageRoutes)];
  } finally {
    await server.close();
  }
}
