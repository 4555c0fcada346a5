import { Route, Routes } from "react-router";
import { NotFound } from "../pages/not-found.tsx";
import "../metrics/metrics.css";
import { FunnelCreate, FunnelEdit } from "./funnel-editing.tsx";
import { FunnelList } from "./funnel-list.tsx";
import { FunnelView } from "./funnel-view.tsx";
import "./funnels.css";

/**
 * /funnels lists the project's funnels; /funnels/new and /funnels/:slug/edit are the editor;
 * /funnels/:slug runs one. The project and the view's settings stay in the query string.
 */
export function FunnelsPage() {
  return (
    <Routes>
      <Route index element={<FunnelList />} />
      <Route path="new" element={<FunnelCreate />} />
      <Route path=":slug" element={<FunnelView />} />
      <Route path=":slug/edit" element={<FunnelEdit />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
