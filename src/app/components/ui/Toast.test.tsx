import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import { TOAST_DURATION_MS, Toaster, toast } from "./Toast";

beforeEach(async () => {
  await setLanguage("en");
  vi.useFakeTimers();
});
afterEach(() => {
  act(() => toast.clear());
  vi.useRealTimers();
});

describe("toasts", () => {
  it("last 5000 ms, in a labelled region, and can be closed", () => {
    render(<Toaster />);
    act(() => void toast.success("Saved"));
    expect(screen.getByRole("region", { name: "Notifications" })).toContainElement(screen.getByRole("status"));
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS - 1));
    expect(screen.getByText("Saved")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText("Saved")).not.toBeInTheDocument();
    act(() => void toast.error("Failed"));
    expect(screen.getByRole("alert")).toHaveTextContent("Failed");
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByText("Failed")).not.toBeInTheDocument();
  });

  it("pause while the pointer is over them and resume with the time they had left", () => {
    render(<Toaster />);
    act(() => void toast.info("Queued"));
    act(() => vi.advanceTimersByTime(4000));
    fireEvent.mouseEnter(screen.getByRole("region", { name: "Notifications" }));
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.getByText("Queued")).toBeInTheDocument();
    // A toast raised while paused waits too.
    act(() => void toast.success("Second"));
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.getByText("Second")).toBeInTheDocument();
    fireEvent.mouseLeave(screen.getByRole("region", { name: "Notifications" }));
    act(() => vi.advanceTimersByTime(999));
    expect(screen.getByText("Queued")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText("Queued")).not.toBeInTheDocument();
    expect(screen.getByText("Second")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS));
    expect(screen.queryByText("Second")).not.toBeInTheDocument();
  });

  it("pause while focus is inside them", () => {
    render(<Toaster />);
    act(() => void toast.success("Saved"));
    const close = screen.getByRole("button", { name: "Close" });
    fireEvent.focus(close);
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS * 3));
    expect(screen.getByText("Saved")).toBeInTheDocument();
    fireEvent.blur(close, { relatedTarget: document.body });
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS));
    expect(screen.queryByText("Saved")).not.toBeInTheDocument();
  });

  it("keep a loading toast until it is dismissed", () => {
    render(<Toaster />);
    let id = 0;
    act(() => {
      id = toast.loading("Sending…");
    });
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS * 10));
    expect(screen.getByText("Sending…")).toBeInTheDocument();
    act(() => toast.dismiss(id));
    expect(screen.queryByText("Sending…")).not.toBeInTheDocument();
  });
});
