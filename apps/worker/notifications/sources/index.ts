import type { NotificationSource } from "../source.ts";
import { feedbackNewSource } from "./feedback-new.ts";
import { issueDigestSource } from "./issue-digest.ts";
import { issueNewSource } from "./issue-new.ts";
import { jobCompletedSource } from "./job-completed.ts";

/** Every source the dispatcher runs; a new notification type adds its file here. */
export const NOTIFICATION_SOURCES: readonly NotificationSource[] = [jobCompletedSource, feedbackNewSource, issueNewSource, issueDigestSource];
