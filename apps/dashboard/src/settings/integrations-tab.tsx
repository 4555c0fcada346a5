import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { ProjectPicker, useProjectChoice } from "../ui/project-picker.tsx";
import { Empty, ErrorState, Loaded, Loading } from "../ui/states.tsx";
import { ProviderCard } from "./provider-card.tsx";
import { keys } from "./queries.ts";

/** A project's integrations (`?project=…`): every provider, configured or not. Providers and active integrations are asked for together. */
export function IntegrationsTab() {
  const { team } = useSession();
  const choice = useProjectChoice();
  const { projects, projectId } = choice;
  const project = projectId ?? "";
  const enabled = projectId !== undefined;
  const providers = useQuery({
    queryKey: keys.providers(project),
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/integrations/providers", { params: { path: { projectId: project } } })),
    enabled,
    staleTime: Infinity,
  });
  const integrations = useQuery({
    queryKey: keys.integrations(project),
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/integrations", { params: { path: { projectId: project } } })),
    enabled,
  });

  if (projects.isPending && !projectId) return <Loading label="Loading projects" />;
  if (projects.isError && !projectId) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (!projectId) return <Empty>{team.name} has no projects yet: integrations belong to a project.</Empty>;

  return (
    <div className="stack">
      <div className="controls">
        <ProjectPicker choice={choice} />
      </div>
      <Loaded query={providers} label="Loading providers">
        {({ providers: list }) => (
          <Loaded query={integrations} label="Loading integrations">
            {({ integrations: active }) =>
              list.length === 0 ? (
                <Empty>This service offers no integrations.</Empty>
              ) : (
                list.map((provider) => (
                  <ProviderCard key={`${projectId}-${provider.id}`} projectId={projectId} provider={provider} integration={active.find((integration) => integration.provider === provider.id)} />
                ))
              )
            }
          </Loaded>
        )}
      </Loaded>
    </div>
  );
}
