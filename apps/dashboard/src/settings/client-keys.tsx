import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { FormError } from "./form-error.tsx";
import { KeyRow } from "./key-row.tsx";
import { keys, useRefresh, type ApiKey, type App } from "./queries.ts";
import { SecretOnce } from "./secret-once.tsx";

/**
 * An app's client keys: what its SDK sends events with. A second key lets a release move to a new
 * key before the old one is revoked.
 */
export function ClientKeys({ app, keys: clientKeys }: { app: App; keys: ApiKey[] }) {
  const { team } = useSession();
  const refresh = useRefresh();
  const [name, setName] = useState("");
  const [created, setCreated] = useState<ApiKey | null>(null);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST("/v1/auth/keys", { body: { name: name.trim(), key_type: "client", app_id: app.id } })),
    onSuccess: async ({ api_key }) => {
      setCreated({ ...api_key, app_name: app.name, created_by_email: null });
      setName("");
      await refresh(keys.apiKeys(team.id));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <section className="stack" aria-label={`Client keys of ${app.name}`}>
      <h4>Client keys</h4>
      {clientKeys.length === 0 ? <p className="muted">No client key: this app cannot send events until it has one.</p> : <ul className="rows">{clientKeys.map((key) => <KeyRow key={key.id} apiKey={key} />)}</ul>}
      {created && <SecretOnce title={`New client key ${created.name}`} secret={created.secret} onDone={() => setCreated(null)} />}
      <form className="inline-form" onSubmit={submit}>
        <label>
          <span className="sr-only">Name of a new client key for {app.name}</span>
          <input required maxLength={100} placeholder="Key name, e.g. Release 2.0" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <button type="submit" disabled={create.isPending || name.trim() === ""} aria-label={`Create client key for ${app.name}`}>
          {create.isPending ? "Creating…" : "Create key"}
        </button>
      </form>
      <FormError error={create.error} />
    </section>
  );
}
