import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { newQueryClient } from "./api/query-client.ts";
import { DashboardRoutes } from "./routes.tsx";
import { SessionGate } from "./session/session.tsx";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={newQueryClient()}>
      {/* The service serves index.html for every path below /dashboard (apps/api/plugins/dashboard.ts). */}
      <BrowserRouter basename="/dashboard">
        <SessionGate>
          <DashboardRoutes />
        </SessionGate>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
