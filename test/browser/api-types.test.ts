import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { API_TYPES_FILE, apiTypesSource } from "../../scripts/api-types.ts";

/**
 * The dashboard's API types are generated from the OpenAPI document and committed, so the type
 * check reads them from a clean clone without a running service. Committed means they can go
 * stale: this fails when a route changed without `npm run api-types`, and after regenerating,
 * `tsc --noEmit` shows what the change broke in the dashboard.
 */
it("apps/dashboard/src/api/schema.ts matches the routes (regenerate with npm run api-types)", async () => {
  const current = await readFile(API_TYPES_FILE, "utf8");
  expect(current === (await apiTypesSource()), "apps/dashboard/src/api/schema.ts is stale: run npm run api-types").toBe(true);
});
