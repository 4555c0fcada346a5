import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { Segmented } from "../ui/segmented.tsx";
import { FormError } from "./form-error.tsx";
import { AGENT_PERMISSIONS, IMPORT_PERMISSIONS, OPTIONAL_AGENT_PERMISSIONS } from "./permissions.ts";
import { keys, useRefresh } from "./queries.ts";
import { SecretOnce } from "./secret-once.tsx";
import { useTeamApps } from "../ui/team-queries.ts";

type KeyType = "agent" | "import";
const TYPE_OPTIONS = [
  { value: "agent" as const, label: "Agent (team)" },
  { value: "import" as const, label: "Import (one app)" },
];

const catalogue = (type: KeyType): readonly string[] => (type === "agent" ? [...AGENT_PERMISSIONS, ...OPTIONAL_AGENT_PERMISSIONS] : IMPORT_PERMISSIONS);
const defaults = (type: KeyType): readonly string[] => (type === "agent" ? AGENT_PERMISSIONS : IMPORT_PERMISSIONS);

/** A new agent or import key with the permissions ticked; its secret is shown once. */
export function NewApiKeyForm() {
  const { team } = useSession();
  const refresh = useRefresh();
  const [keyType, setKeyType] = useState<KeyType>("agent");
  const [name, setName] = useState("");
  const [appId, setAppId] = useState("");
  const [granted, setGranted] = useState<ReadonlySet<string>>(() => new Set(defaults("agent")));
  const [expiresInDays, setExpiresInDays] = useState("");
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const apps = useTeamApps(team.id, { enabled: keyType === "import" });

  const chooseType = (type: KeyType) => {
    setKeyType(type);
    setGranted(new Set(defaults(type)));
  };
  const toggle = (permission: string, on: boolean) =>
    setGranted((current) => {
      const next = new Set(current);
      if (on) next.add(permission);
      else next.delete(permission);
      return next;
    });

  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/v1/auth/keys", {
          body: {
            name: name.trim(),
            key_type: keyType,
            ...(keyType === "agent" ? { team_id: team.id } : { app_id: appId }),
            permissions: catalogue(keyType).filter((permission) => granted.has(permission)),
            ...(expiresInDays.trim() === "" ? {} : { expires_in_days: Number(expiresInDays) }),
          },
        }),
      ),
    onSuccess: async ({ api_key }) => {
      setCreated({ name: api_key.name, secret: api_key.secret });
      setName("");
      await refresh(keys.apiKeys(team.id));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-key-title">
      <h2 id="new-key-title">New API key</h2>
      {created && <SecretOnce title={`Secret of ${created.name}`} secret={created.secret} onDone={() => setCreated(null)} />}
      <Segmented legend="Type" name="key_type" options={TYPE_OPTIONS} value={keyType} onChange={chooseType} />
      <label>
        Name
        <input required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} placeholder="e.g. CI" />
      </label>
      {keyType === "import" && (
        <div className="field">
          <label htmlFor="import-key-app">App</label>
          <select id="import-key-app" required value={appId} onChange={(event) => setAppId(event.target.value)}>
            <option value="">{apps.isPending ? "Loading apps…" : apps.isError ? "Could not load the apps" : "Choose an app"}</option>
            {(apps.data?.apps ?? []).map((app) => (
              <option key={app.id} value={app.id}>
                {app.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <fieldset className="permissions-picker">
        <legend>Permissions</legend>
        {catalogue(keyType).map((permission) => (
          <label key={permission} className="check">
            <input type="checkbox" checked={granted.has(permission)} onChange={(event) => toggle(permission, event.target.checked)} />
            {permission}
          </label>
        ))}
      </fieldset>
      <label>
        Expires after (days)
        <input type="number" min={1} max={36500} inputMode="numeric" value={expiresInDays} onChange={(event) => setExpiresInDays(event.target.value)} placeholder="never" />
      </label>
      <FormError error={create.error} />
      <div className="actions">
        <button type="submit" disabled={create.isPending || name.trim() === "" || granted.size === 0 || (keyType === "import" && appId === "")}>
          {create.isPending ? "Creating…" : "Create key"}
        </button>
      </div>
    </form>
  );
}
