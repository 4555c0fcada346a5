import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { unauthorized } from "../../../domain/shared/errors.ts";
import { ANY_CREDENTIAL } from "../auth/access.ts";
import { GUIDE, GUIDE_URI } from "../mcp/guide.ts";
import { investigateEvent, investigateEventTool, type CallApi } from "../mcp/investigate-event.ts";
import { toolOf, type OpenApiDocument, type RouteTool } from "../mcp/openapi-tools.ts";
import { TOOL_ROUTES } from "../mcp/tool-catalogue.ts";
import { documentedOnly } from "../plugins/route-schemas.ts";
import { errorBody, TAGS } from "../schemas/common.ts";

const INSTRUCTIONS =
  "Event analytics of the teams this agent key belongs to: projects, apps, events, users, issues, metrics, funnels, feedback, jobs, integrations and ads. " +
  `Read the resource ${GUIDE_URI} first. Tools mirror the HTTP API and refuse what it refuses (as a tool error with the API's message).`;

const jsonRpcMessage = z.object({ jsonrpc: z.literal("2.0") }).passthrough().describe("A JSON-RPC 2.0 message or batch (Streamable HTTP transport)");

/**
 * POST, GET and DELETE /mcp: the Model Context Protocol over the official SDK's Streamable HTTP
 * transport, stateless (a server per request, no session id), so any API instance answers any
 * call. Only agent keys (`Authorization: Bearer svc_agent_…`); no OAuth discovery. Each tool call
 * is the HTTP call it mirrors, injected into this API with the caller's own key.
 */
export function mcpRoutes(root: FastifyInstance): FastifyPluginAsyncZod {
  let tools: RouteTool[] | undefined;
  const toolsOf = () => (tools ??= TOOL_ROUTES.map((route) => toolOf(root.swagger() as unknown as OpenApiDocument, route)));

  const serverFor = (authorization: string) => {
    const callApi: CallApi = async ({ method, url, body }) => {
      const response = await root.inject({
        method,
        url,
        headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      let parsed: unknown = response.body;
      try {
        parsed = JSON.parse(response.body);
      } catch {
        // Not JSON (an export stream): returned as text.
      }
      return { status: response.statusCode, body: parsed };
    };
    const server = new Server({ name: "event-analytics", version: "1.0.0" }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [...toolsOf().map(({ name, description, inputSchema }) => ({ name, description, inputSchema })), investigateEventTool],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const name = request.params.name;
      const tool = toolsOf().find((candidate) => candidate.name === name);
      if (!tool && name !== investigateEventTool.name) return { isError: true, content: [{ type: "text" as const, text: `unknown tool ${name}` }] };
      const answer = tool ? await callApi(tool.request(args)) : await investigateEvent(callApi, args);
      const ok = answer.status >= 200 && answer.status < 300;
      const text = ok
        ? typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body)
        : `${answer.status}: ${(answer.body as { error?: string } | null)?.error ?? JSON.stringify(answer.body)}`;
      return ok ? { content: [{ type: "text" as const, text }] } : { isError: true, content: [{ type: "text" as const, text }] };
    });
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: [{ uri: GUIDE_URI, name: "Instrumenting an app and querying it", mimeType: "text/markdown" }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      if (request.params.uri !== GUIDE_URI) throw new Error(`unknown resource ${request.params.uri}`);
      return { contents: [{ uri: GUIDE_URI, mimeType: "text/markdown", text: GUIDE }] };
    });
    return server;
  };

  return async (app) => {
    for (const method of ["POST", "GET", "DELETE"] as const) {
      app.route({
        method,
        url: "/mcp",
        schema: {
          summary: `MCP Streamable HTTP (${method})`,
          description:
            "The Model Context Protocol for AI agents, with an agent key as Bearer token. Stateless: POST carries JSON-RPC requests; GET and DELETE answer as the " +
            "transport does without sessions. Tools mirror this API's routes and honour the key's permissions.",
          tags: [TAGS.operations],
          ...(method === "POST" ? { body: documentedOnly(jsonRpcMessage) } : {}),
          response: { 200: jsonRpcMessage.describe("The JSON-RPC answer (JSON; the transport may answer GET and DELETE 405 without sessions)"), 401: errorBody },
        },
        config: { access: ANY_CREDENTIAL },
        handler: async (request, reply) => {
          const caller = request.caller;
          if (caller.kind !== "key" || caller.keyType !== "agent") throw unauthorized("the MCP endpoint takes an agent key: Authorization: Bearer svc_agent_…");
          const server = serverFor(request.headers.authorization!);
          const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
          reply.raw.on("close", () => {
            transport.close().catch(() => undefined);
            server.close().catch(() => undefined);
          });
          await server.connect(transport);
          reply.hijack();
          await transport.handleRequest(request.raw, reply.raw, request.body);
        },
      });
    }
  };
}
