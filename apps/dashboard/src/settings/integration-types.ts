import type { Answer } from "../api/client.ts";

export type Provider = Answer<"/v1/projects/{projectId}/integrations/providers">["providers"][number];
export type Integration = Answer<"/v1/projects/{projectId}/integrations">["integrations"][number];
export type WebhookSetup = Answer<"/v1/projects/{projectId}/integrations/subprov/webhook-setup">["webhook_setup"];
