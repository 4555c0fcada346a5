import { describe, expect, it } from "vitest";
import { dashboardRoute } from "./dashboard-route.ts";

const here = "http://127.0.0.1:4000";

describe("a notification's link inside the dashboard", () => {
  it("is a route of this app when its path is under /dashboard, whatever the host the service wrote", () => {
    expect(dashboardRoute("http://localhost:4000/dashboard/feedback/2d3e", here)).toBe("/feedback/2d3e");
    expect(dashboardRoute("https://analytics.example.com/dashboard/jobs", here)).toBe("/jobs");
    expect(dashboardRoute("https://analytics.example.com/dashboard", here)).toBe("/");
    expect(dashboardRoute("/dashboard/issues/7?project_id=p1#top", here)).toBe("/issues/7?project_id=p1#top");
  });

  it("is no route for other pages, look-alike paths and text that is no URL", () => {
    expect(dashboardRoute("https://example.com/docs", here)).toBeNull();
    expect(dashboardRoute("https://example.com/dashboards/1", here)).toBeNull();
    expect(dashboardRoute("http://[bad", here)).toBeNull();
  });
});
