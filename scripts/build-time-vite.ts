/**
 * Where the Vite servers made at build and test time (the pre-render's, the route table's) keep
 * their cache. node_modules/.vite is the dev server's: a server that optimizes its dependencies
 * there replaces the ones a running `npm run dev` serves, which then answers "504 Outdated Optimize
 * Dep" for every page it has not loaded yet (scripts/dev-server-after-build.test.ts).
 */
export const BUILD_TIME_CACHE_DIR = "node_modules/.vite/build-time";
