import { act, Suspense } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { lazyPart, loadParts, takeRenderedParts } from "./lazy-part";

const greeting = async () => ({ default: ({ name }: { name: string }) => <p>Hello {name}</p> });

describe("lazyPart", () => {
  it("suspends like React.lazy until loaded, and says it was rendered", () => {
    const Greeting = lazyPart("test-unloaded", greeting);
    takeRenderedParts();
    const html = renderToString(
      <Suspense fallback={<i>waiting</i>}>
        <Greeting name="Ana" />
      </Suspense>,
    );
    expect(html).toContain("waiting");
    expect(takeRenderedParts()).toEqual(["test-unloaded"]);
  });

  it("renders at once once loaded, so the page's HTML hydrates in the first pass and is kept", async () => {
    const Greeting = lazyPart("test-loaded", greeting);
    const page = (
      <Suspense fallback={<i>waiting</i>}>
        <Greeting name="Ana" />
      </Suspense>
    );
    await loadParts(["test-loaded", "not-a-part"]);
    // A React.lazy never rendered before would still suspend here, even with its module loaded.
    const html = renderToString(page);
    expect(html).toContain("Hello <!-- -->Ana");

    const container = document.createElement("div");
    container.innerHTML = html;
    const paragraph = container.querySelector("p");
    const errors: unknown[] = [];
    await act(async () => {
      hydrateRoot(container, page, { onRecoverableError: (error) => errors.push(error) });
    });
    expect(errors).toEqual([]);
    expect(container.querySelector("p")).toBe(paragraph);
  });
});
