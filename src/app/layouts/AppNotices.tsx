import { useServiceWorkerOnDriverPages } from "../boot/service-worker-hook";
import { OfflineNotice } from "../components/ui/OfflineNotice";
import { UpdatePrompt } from "../components/ui/UpdatePrompt";

/**
 * The frame's notices about the app itself (docs/installable-app.md): offline, and a new version
 * waiting; and, on the driver's pages, the service worker's registration. A lazy part of the frame
 * (GeneralLayout), so none of it is in the route table the landing page fetches when idle.
 */
export default function AppNotices() {
  const { updateReady, applyUpdate } = useServiceWorkerOnDriverPages();
  return (
    <>
      <OfflineNotice />
      {updateReady && <UpdatePrompt onReload={applyUpdate} />}
    </>
  );
}
