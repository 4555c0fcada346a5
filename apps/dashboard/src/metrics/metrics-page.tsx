import { Route, Routes } from "react-router";
import { NotFound } from "../pages/not-found.tsx";
import { MetricCreate, MetricEdit } from "./metric-editing.tsx";
import { MetricList } from "./metric-list.tsx";
import { MetricView } from "./metric-view.tsx";
import "./metrics.css";

/**
 * /metrics: the project's definitions and their outcomes; /metrics/new and /metrics/:slug/edit
 * change them; /metrics/:slug is one metric's query view. The project, range, data mode and split
 * stay in the query string across all of them.
 */
export function MetricsPage() {
  return (
    <Routes>
      <Route index element={<MetricList />} />
      <Route path="new" element={<MetricCreate />} />
      <Route path=":slug" element={<MetricView />} />
      <Route path=":slug/edit" element={<MetricEdit />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
