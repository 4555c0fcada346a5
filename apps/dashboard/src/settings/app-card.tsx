import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { Loaded, type Loadable } from "../ui/states.tsx";
import { ClientKeys } from "./client-keys.tsx";
import { ConfirmButton } from "./confirm-button.tsx";
import { FormError } from "./form-error.tsx";
import { formatDate } from "./format.ts";
import { PLATFORM_LABELS } from "./new-app-form.tsx";
import { keys, useRefresh, type ApiKey, type App } from "./queries.ts";

/** One app: rename, delete, and its client keys. The platform and bundle id never change. */
export function AppCard({ app, keys: teamKeys }: { app: App; keys: Loadable<{ api_keys: ApiKey[] }> }) {
  const { team } = useSession();
  const refresh = useRefresh();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(app.name);
  const rename = useMutation({
    mutationFn: () => unwrap(api.PATCH("/v1/apps/{id}", { params: { path: { id: app.id } }, body: { name: name.trim() } })),
    onSuccess: async () => {
      setRenaming(false);
      await refresh(keys.project(app.project_id), keys.apiKeys(team.id), keys.apps(team.id));
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE("/v1/apps/{id}", { params: { path: { id: app.id } } })),
    onSuccess: () => refresh(keys.project(app.project_id), keys.apiKeys(team.id), keys.apps(team.id)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };

  return (
    <article className="card stack" aria-labelledby={`app-${app.id}`}>
      <div className="card-head">
        {renaming ? (
          <form className="inline-form" onSubmit={submit}>
            <label>
              <span className="sr-only">New name of {app.name}</span>
              <input required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} autoFocus />
            </label>
            <button type="submit" disabled={rename.isPending}>
              Save
            </button>
            <button type="button" className="secondary" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <h3 id={`app-${app.id}`}>{app.name}</h3>
        )}
        <div className="actions">
          {!renaming && (
            <button type="button" className="secondary" aria-label={`Rename ${app.name}`} onClick={() => (setName(app.name), setRenaming(true))}>
              Rename
            </button>
          )}
          <ConfirmButton
            label="Delete"
            name={`Delete app ${app.name}`}
            question={`Delete ${app.name} and its keys?`}
            confirmLabel="Yes, delete"
            pending={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        </div>
      </div>
      <p className="muted">
        {PLATFORM_LABELS[app.platform]}
        {app.bundle_id && (
          <>
            {" "}
            · <code>{app.bundle_id}</code>
          </>
        )}{" "}
        · created {formatDate(app.created_at)}
      </p>
      <FormError error={rename.error ?? remove.error} />
      <Loaded query={teamKeys} label="Loading client keys">
        {({ api_keys }) => <ClientKeys app={app} keys={api_keys.filter((key) => key.key_type === "client" && key.app_id === app.id)} />}
      </Loaded>
    </article>
  );
}
