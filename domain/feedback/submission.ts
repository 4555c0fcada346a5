import { PLATFORM_ENVIRONMENTS, type Environment, type Platform } from "../ingest/rules.ts";
import { invalid } from "../shared/errors.ts";

/**
 * The environment of a submission, allowed for the app's platform as on ingest. Absent, it is the
 * platform's only environment, or null on apple (a device model does not settle it for feedback).
 * @throws DomainError invalid for an environment of another platform
 */
export function feedbackEnvironment(platform: Platform, value: Environment | undefined): Environment | null {
  const allowed = PLATFORM_ENVIRONMENTS[platform];
  if (value === undefined) return allowed.length === 1 ? allowed[0]! : null;
  if (!allowed.includes(value)) throw invalid(`environment: must be one of ${allowed.join(", ")} for ${platform} apps`);
  return value;
}
