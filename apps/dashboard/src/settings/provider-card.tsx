import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client.ts";
import { Loaded } from "../ui/states.tsx";
import { ConfigForm } from "./config-form.tsx";
import { ConfirmButton } from "./confirm-button.tsx";
import { FormError } from "./form-error.tsx";
import { formatDateTime } from "./format.ts";
import type { Integration, Provider, WebhookSetup } from "./integration-types.ts";
import { keys, useRefresh } from "./queries.ts";
import { WebhookSetupPanel } from "./webhook-setup.tsx";

/** One provider of a project: set it up, or see, change, pause and delete its integration. */
export function ProviderCard({ projectId, provider, integration }: { projectId: string; provider: Provider; integration: Integration | undefined }) {
  const refresh = useRefresh();
  // The answer to creating carries the webhook setup; shown at once, without asking for it again.
  const [justCreated, setJustCreated] = useState<WebhookSetup | null>(null);
  const create = useMutation({
    mutationFn: (config: Record<string, string>) =>
      unwrap(api.POST("/v1/projects/{projectId}/integrations", { params: { path: { projectId } }, body: { provider: provider.id, config } })),
    onSuccess: async (created) => {
      setJustCreated(created.webhook_setup);
      await refresh(keys.integrations(projectId), keys.webhookSetup(projectId));
    },
  });

  return (
    <article className="card stack" aria-labelledby={`provider-${provider.id}`}>
      <div className="card-head">
        <h2 id={`provider-${provider.id}`}>{provider.name}</h2>
        {integration && <span className={integration.enabled ? "pill ok" : "pill warn"}>{integration.enabled ? "Enabled" : "Disabled"}</span>}
      </div>
      <p className="muted">{provider.description}</p>
      {integration ? (
        <ActiveIntegration projectId={projectId} provider={provider} integration={integration} justCreated={justCreated} />
      ) : (
        <>
          <h3>Set up</h3>
          <ConfigForm provider={provider} submitLabel="Connect" pending={create.isPending} error={create.error} onSubmit={(config) => create.mutate(config)} />
        </>
      )}
    </article>
  );
}

function ActiveIntegration({ projectId, provider, integration, justCreated }: { projectId: string; provider: Provider; integration: Integration; justCreated: WebhookSetup | null }) {
  const refresh = useRefresh();
  const [editing, setEditing] = useState(false);
  const setup = useQuery({
    queryKey: keys.webhookSetup(projectId),
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/integrations/subprov/webhook-setup", { params: { path: { projectId } } })),
    // Only this provider has a webhook; right after creating, the answer already carried it.
    enabled: provider.id === "subprov" && justCreated === null,
  });
  const path = { params: { path: { projectId, provider: provider.id } } };
  const update = useMutation({
    mutationFn: (body: { config?: Record<string, string>; enabled?: boolean }) => unwrap(api.PATCH("/v1/projects/{projectId}/integrations/{provider}", { ...path, body })),
    onSuccess: async () => {
      setEditing(false);
      // The environment is part of the webhook setup too.
      await refresh(keys.integrations(projectId), keys.webhookSetup(projectId));
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE("/v1/projects/{projectId}/integrations/{provider}", path)),
    onSuccess: () => refresh(keys.integrations(projectId), keys.webhookSetup(projectId)),
  });

  return (
    <>
      {editing ? (
        <ConfigForm provider={provider} integration={integration} submitLabel="Save config" pending={update.isPending} error={update.error} onSubmit={(config) => update.mutate({ config })} onCancel={() => setEditing(false)} />
      ) : (
        <>
          <dl className="config">
            {provider.configFields.map((field) => (
              <div key={field.key}>
                <dt>{field.label}</dt>
                <dd>
                  <code>{integration.config[field.key] ?? "not set"}</code>
                </dd>
              </div>
            ))}
          </dl>
          <p className="muted">Connected {formatDateTime(integration.created_at)}, last changed {formatDateTime(integration.updated_at)}.</p>
          <FormError error={update.error ?? remove.error} />
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setEditing(true)}>
              Edit config
            </button>
            <button type="button" className="secondary" disabled={update.isPending} onClick={() => update.mutate({ enabled: !integration.enabled })}>
              {integration.enabled ? "Disable" : "Enable"}
            </button>
            <ConfirmButton
              label="Delete"
              name={`Delete the ${provider.name} integration`}
              question={`Delete the ${provider.name} integration? Webhook deliveries are refused from then on.`}
              confirmLabel="Yes, delete"
              pending={remove.isPending}
              onConfirm={() => remove.mutate()}
            />
          </div>
        </>
      )}
      {provider.id === "subprov" &&
        (justCreated ? <WebhookSetupPanel setup={justCreated} /> : <Loaded query={setup} label="Loading the webhook setup">{({ webhook_setup }) => <WebhookSetupPanel setup={webhook_setup} />}</Loaded>)}
    </>
  );
}
