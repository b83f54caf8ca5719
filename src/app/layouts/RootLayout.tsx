import { Outlet, useNavigation } from "react-router";
import { TopBar } from "./TopBar";

export function RootLayout() {
  const navigation = useNavigation();
  return (
    <>
      <TopBar />
      <div className={navigation.state === "loading" ? "route-progress active" : "route-progress"} aria-hidden="true" />
      <Outlet />
    </>
  );
}
