/**
 * happy-dom has no canvas: a stand-in for uPlot that records what each chart was asked to draw.
 * A test file mocks the library with it (`vi.mock("uplot", () => import("…/test/fake-uplot"))`)
 * and reads `drawn` (emptied before each test by the file).
 */
export const drawn: { labels: string[]; data: (number | null)[][] }[] = [];

export default class FakePlot {
  static paths = { bars: () => () => null };
  static tzDate = (d: Date) => d;
  root = document.createElement("div");
  // As uPlot: built, then drawn by the init it hands to a function given in place of a target.
  constructor(opts: { series: { label?: string }[] }, data: (number | null)[][], target: HTMLElement | ((plot: unknown, init: () => void) => void)) {
    const init = () => drawn.push({ labels: opts.series.slice(1).map((s) => s.label ?? ""), data });
    if (typeof target === "function") target(this, init);
    else {
      target.append(this.root);
      init();
    }
  }
  setSize() {}
  destroy() {}
}
