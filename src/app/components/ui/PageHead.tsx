import type { ReactNode } from "react";
import { Link } from "react-router";
import { Icon } from "./Icon";
import "./controls.css";

type Props = {
  /** Where "← …" goes back to, and its words. */
  back: { to: string; label: string };
  title: ReactNode;
  /** Further links on the right of the back link. */
  children?: ReactNode;
};

/** A screen's head: the back link (with any further links), then its title. */
export function PageHead({ back, title, children }: Props) {
  return (
    <>
      <div className="page-head">
        <Link to={back.to} className="back-link">
          <Icon name="arrow-left" />
          {back.label}
        </Link>
        {children}
      </div>
      <h1>{title}</h1>
    </>
  );
}
