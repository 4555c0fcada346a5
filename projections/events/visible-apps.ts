import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { visibleApps, type EventFilter, type Viewer } from "./queries.ts";

const appRow = z.object({ id: z.string(), project_id: z.string() });
export type VisibleApp = z.infer<typeof appRow>;

/**
 * The active apps the viewer may read, narrowed by the filter's team, project and app, with
 * their projects: the same set `listEvents` reads, for readers that filter events outside
 * Postgres (the live tail).
 */
export const visibleAppList = (db: CommonQueryMethods, viewer: Viewer, filter: EventFilter) =>
  db.any(sql.type(appRow)`select a.id, a.project_id from apps a where a.id in (${visibleApps(viewer, filter)})`);
