import { Outlet } from "react-router";
import { useServiceWorkerOnDriverPages } from "../boot/service-worker-hook";
import { OfflineNotice } from "../components/ui/OfflineNotice";
import { UpdatePrompt } from "../components/ui/UpdatePrompt";

export function GeneralLayout() {
  const { updateReady, applyUpdate } = useServiceWorkerOnDriverPages();
  return (
    <main id="main" tabIndex={-1} className="page">
      <OfflineNotice />
      {updateReady && <UpdatePrompt onReload={applyUpdate} />}
      <Outlet />
    </main>
  );
}
