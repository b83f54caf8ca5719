// Runs the app's code (preloaded by the page as #app-entry) once the browser has painted what the
// HTML holds, a pre-rendered page or the splash: evaluating that code is the longest task of a
// first visit, and run before the first paint it would hold the paint back. A frame, then a task:
// the paint happens in between. The timer covers a page opened in a background tab, where frames
// do not run. Written into every page by the build (scripts/prerender.ts; docs/public-site.md).
const entry = document.getElementById("app-entry");
let started = false;
function start() {
  if (started || !entry) return;
  started = true;
  import(entry.href).catch((err) => console.error("The app could not be loaded", err));
}
requestAnimationFrame(() => setTimeout(start, 0));
setTimeout(start, 1000);
