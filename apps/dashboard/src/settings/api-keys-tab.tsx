import { Empty, Loaded } from "../ui/states.tsx";
import { KeyRow } from "./key-row.tsx";
import { NewApiKeyForm } from "./new-api-key-form.tsx";
import { useTeamKeys } from "./queries.ts";

/** Agent keys (the CLI, automation, agents) and import keys of the team; client keys are under Apps. */
export function ApiKeysTab() {
  const teamKeys = useTeamKeys();
  return (
    <div className="settings-columns">
      <section className="card stack" aria-labelledby="api-keys-title">
        <h2 id="api-keys-title">API keys</h2>
        <Loaded query={teamKeys} label="Loading API keys">
          {({ api_keys }) => {
            const listed = api_keys.filter((key) => key.key_type !== "client");
            return listed.length === 0 ? (
              <Empty>No agent or import keys yet. An agent key lets the CLI or a script read and manage this team's data; an import key loads historical events into one app.</Empty>
            ) : (
              <ul className="rows">
                {listed.map((key) => (
                  <KeyRow key={key.id} apiKey={key} details />
                ))}
              </ul>
            );
          }}
        </Loaded>
      </section>
      <NewApiKeyForm />
    </div>
  );
}
