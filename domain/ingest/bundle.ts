import { forbidden, invalid } from "../shared/errors.ts";
import type { Platform } from "./rules.ts";

export type TargetApp = { platform: Platform; bundle_id: string | null };

/**
 * The bundle check of every SDK write with a client key (ingest, feedback). The client key is
 * public (it ships inside the app), so the bundle id is what keeps one app's key from posting into
 * another: a permission failure, not a bad field. Backend apps have no bundle and skip it.
 * @throws DomainError invalid without a bundle_id on a non-backend app, forbidden for another app's
 */
export function checkBundle(app: TargetApp, bundleId: unknown): void {
  if (app.platform === "backend") return;
  if (bundleId === undefined || bundleId === null || bundleId === "") throw invalid(`bundle_id is required for ${app.platform} apps`);
  if (typeof bundleId !== "string") throw invalid("bundle_id must be a string");
  if (bundleId !== app.bundle_id) throw forbidden("bundle_id does not match the app of this key");
}
