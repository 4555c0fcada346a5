import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { feedbackEnvironment } from "../../../domain/feedback/submission.ts";
import { checkBundle } from "../../../domain/ingest/bundle.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { runFeedbackCommand } from "../../commands/feedback-command.ts";
import { appKey } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { TAGS } from "../schemas/common.ts";
import { exampleFeedback, exampleSubmission, submitBody, submittedBody } from "../schemas/feedback.ts";

/**
 * POST /v1/feedback (register with prefix /v1): an SDK's feedback form. The app's client key is
 * resolved and a rate-limit token spent before the body is read, as on ingest.
 */
export function feedbackSubmitRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/feedback",
      {
        schema: {
          summary: "Send feedback from an app",
          description:
            "Client key with events:write, rate limited like ingest. `bundle_id` is checked as on ingest (400 when missing on a non-backend " +
            "app, 403 when it is another app's), `environment` must be allowed for the app's platform.",
          tags: [TAGS.feedback],
          body: submitBody,
          response: { 201: submittedBody },
          examples: { body: exampleSubmission, 201: { id: exampleFeedback.id, created_at: exampleFeedback.created_at } },
        },
        config: { access: appKey("client") },
      },
      async (request, reply) => {
        const { body } = request;
        const target = request.appKey.app;
        checkBundle(target, body.bundle_id);
        const environment = feedbackEnvironment(target.platform, body.environment);
        const submission = {
          feedback_id: newId(),
          team_id: target.team_id,
          project_id: target.project_id,
          app_id: target.id,
          message: body.message,
          session_id: body.session_id ?? null,
          user_id: body.user_id,
          submitter_name: body.submitter_name,
          submitter_email: body.submitter_email,
          is_dev: body.is_dev,
          environment,
          os_version: body.os_version,
          app_version: body.app_version,
          sdk_name: body.sdk_name,
          sdk_version: body.sdk_version,
          device_model: body.device_model,
          created_at: new Date().toISOString(),
        };
        await runFeedbackCommand(deps, { type: "SubmitFeedback", submission }, { type: "api_key", id: request.appKey.keyId });
        return reply.code(201).send({ id: submission.feedback_id, created_at: submission.created_at });
      },
    );
  };
}
