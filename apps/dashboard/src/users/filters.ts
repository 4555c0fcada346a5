import type { paths } from "../api/schema.ts";

type UsersQuery = NonNullable<paths["/v1/app-users"]["get"]["parameters"]["query"]>;

export const BILLING = ["free", "trial", "paid"] as const;
export type Billing = (typeof BILLING)[number];
export type Kind = "all" | "identified" | "anonymous";
export type DataMode = "production" | "development" | "all";

/** "Last seen within": the API's relative `since`, offered as a few ranges. */
export const SEEN_WITHIN = [
  { value: "", label: "Any time" },
  { value: "24h", label: "Last 24 hours" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
];

const oneOf = <T extends string>(values: readonly T[], value: string | null): T | undefined => values.find((candidate) => candidate === value);

/** The users list's view as the URL holds it; values the URL gets wrong fall back to the defaults. */
export function usersViewOf(params: URLSearchParams) {
  return {
    search: params.get("search") ?? "",
    kind: oneOf<Kind>(["all", "identified", "anonymous"], params.get("kind")) ?? "all",
    billing: (params.get("billing") ?? "").split(",").filter((value): value is Billing => oneOf(BILLING, value) !== undefined),
    dataMode: oneOf<DataMode>(["production", "development", "all"], params.get("mode")) ?? "production",
    seen: SEEN_WITHIN.find((range) => range.value === params.get("seen"))?.value ?? "",
    appId: params.get("app") ?? "",
    cursor: params.get("cursor") ?? undefined,
  };
}

export type UsersView = ReturnType<typeof usersViewOf>;

/** The API query of a view in a project. */
export function usersQueryOf(projectId: string, view: UsersView): UsersQuery {
  return {
    project_id: projectId,
    search: view.search || undefined,
    is_anonymous: view.kind === "all" ? undefined : view.kind === "anonymous" ? "true" : "false",
    billing_status: view.billing.length > 0 ? view.billing.join(",") : undefined,
    data_mode: view.dataMode,
    since: view.seen || undefined,
    app_id: view.appId || undefined,
    cursor: view.cursor,
    limit: 50,
  };
}
