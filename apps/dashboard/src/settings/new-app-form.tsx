import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { FormError } from "./form-error.tsx";
import { keys, useRefresh, type App, type RequestBody } from "./queries.ts";
import { SecretOnce } from "./secret-once.tsx";

type Platform = RequestBody<"/v1/apps", "post">["platform"];

export const PLATFORM_LABELS: Record<Platform, string> = { apple: "Apple", android: "Android", web: "Web", backend: "Backend" };

/** A new app of the project; the API creates its first client key with it, shown here once. */
export function NewAppForm({ projectId }: { projectId: string }) {
  const { team } = useSession();
  const refresh = useRefresh();
  const [name, setName] = useState("");
  const [platform, setPlatform] = useState<Platform>("apple");
  const [bundleId, setBundleId] = useState("");
  const [created, setCreated] = useState<App | null>(null);
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST("/v1/apps", { body: { name: name.trim(), platform, project_id: projectId, bundle_id: platform === "backend" ? null : bundleId.trim() } })),
    onSuccess: async (app) => {
      setCreated(app);
      setName("");
      setBundleId("");
      await refresh(keys.project(projectId), keys.apiKeys(team.id), keys.apps(team.id));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-app-title">
      <h2 id="new-app-title">New app</h2>
      {created && <SecretOnce title={`Client key of ${created.name}`} secret={created.client_secret} onDone={() => setCreated(null)} />}
      <label>
        Name
        <input required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label>
        Platform
        <select value={platform} onChange={(event) => setPlatform(event.target.value as Platform)}>
          {(Object.keys(PLATFORM_LABELS) as Platform[]).map((value) => (
            <option key={value} value={value}>
              {PLATFORM_LABELS[value]}
            </option>
          ))}
        </select>
      </label>
      {platform !== "backend" && (
        <label>
          Bundle id
          <input required maxLength={255} value={bundleId} onChange={(event) => setBundleId(event.target.value)} placeholder="com.example.shop" aria-describedby="bundle-hint" />
          <span id="bundle-hint" className="muted">
            Ingestion checks it on every batch; it cannot change later.
          </span>
        </label>
      )}
      <FormError error={create.error} />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create app"}
        </button>
      </div>
    </form>
  );
}
