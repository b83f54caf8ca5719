import { Fragment, type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Link } from "react-router";
import { Icon } from "./Icon";
import type { IconName } from "./icon-names";
import { TYPEAHEAD_RESET_MS, typeAheadMatch } from "./menu-typeahead";
import "./Menu.css";

export type MenuItem = {
  /** The item's words; type-ahead matches their start. */
  label: string;
  icon?: IconName;
  /** A link item… */
  to?: string;
  /** …or an action. */
  onSelect?: () => void;
};

type Props = {
  /** What the button shows (a name, an icon and words). */
  button: ReactNode;
  /** The button's accessible name, when what it shows is not enough. */
  buttonLabel?: string;
  items: MenuItem[];
  /** Which edge the list lines up with. */
  align?: "end" | "start";
  className?: string;
};

/**
 * A menu button in the WAI-ARIA menu pattern: Enter, Space or ↓ open it on the first item, ↑ on
 * the last; ↑/↓ move (wrapping), Home/End jump, typed letters jump to the item that starts with
 * them (the search resets after 350 ms), Esc closes and returns to the button, Tab or a click
 * outside closes it.
 */
export function MenuButton({ button, buttonLabel, items, align = "end", className }: Props) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const itemRefs = useRef<(HTMLElement | null)[]>([]);
  const typed = useRef({ text: "", timer: undefined as ReturnType<typeof setTimeout> | undefined });

  const openAt = (index: number) => {
    setActive(index);
    setOpen(true);
  };
  const close = (returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  };

  // Focus follows the active item while the menu is open.
  useEffect(() => {
    if (open) itemRefs.current[active]?.focus();
  }, [open, active]);

  // A press anywhere outside closes the menu without moving focus.
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  useEffect(() => () => clearTimeout(typed.current.timer), []);

  const onButtonKeyDown = (event: KeyboardEvent) => {
    if (event.key === "ArrowDown" || event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      openAt(0);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      openAt(items.length - 1);
    }
  };

  const select = (item: MenuItem) => {
    close(!item.to);
    item.onSelect?.();
  };

  const onMenuKeyDown = (event: KeyboardEvent) => {
    const last = items.length - 1;
    switch (event.key) {
      case "ArrowDown":
        event.preventDefault();
        setActive((i) => (i >= last ? 0 : i + 1));
        return;
      case "ArrowUp":
        event.preventDefault();
        setActive((i) => (i <= 0 ? last : i - 1));
        return;
      case "Home":
        event.preventDefault();
        setActive(0);
        return;
      case "End":
        event.preventDefault();
        setActive(last);
        return;
      case "Escape":
        event.preventDefault();
        close(true);
        return;
      case "Tab":
        setOpen(false);
        return;
      case " ":
        // Space activates a link item too (links only answer Enter by themselves).
        event.preventDefault();
        (event.target as HTMLElement).click();
        return;
    }
    if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      const state = typed.current;
      clearTimeout(state.timer);
      state.text += event.key;
      state.timer = setTimeout(() => {
        state.text = "";
      }, TYPEAHEAD_RESET_MS);
      const match = typeAheadMatch(
        items.map((item) => item.label),
        active,
        state.text,
      );
      if (match >= 0) setActive(match);
    }
  };

  return (
    <div className={className ? `menu ${className}` : "menu"} ref={root}>
      <button
        ref={buttonRef}
        type="button"
        id={`${id}-button`}
        className="menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? `${id}-menu` : undefined}
        aria-label={buttonLabel}
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={onButtonKeyDown}
      >
        {button}
        <Icon name="chevron-down" />
      </button>
      {open && (
        <div
          role="menu"
          id={`${id}-menu`}
          aria-labelledby={`${id}-button`}
          className={align === "start" ? "menu-list menu-list-start" : "menu-list"}
          onKeyDown={onMenuKeyDown}
        >
          {items.map((item, index) => {
            const content = (
              <>
                {item.icon && <Icon name={item.icon} />}
                {item.label}
              </>
            );
            const ref = (el: HTMLElement | null) => {
              itemRefs.current[index] = el;
            };
            return (
              <Fragment key={item.label}>
                {item.to ? (
                  <Link ref={ref} role="menuitem" tabIndex={-1} className="menu-item" to={item.to} onClick={() => select(item)}>
                    {content}
                  </Link>
                ) : (
                  <button ref={ref} role="menuitem" tabIndex={-1} type="button" className="menu-item" onClick={() => select(item)}>
                    {content}
                  </button>
                )}
              </Fragment>
            );
          })}
        </div>
      )}
    </div>
  );
}
