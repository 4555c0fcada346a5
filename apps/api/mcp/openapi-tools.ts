import type { ToolRoute } from "./tool-catalogue.ts";

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; description?: string; [key: string]: unknown };
type Parameter = { name: string; in: "path" | "query" | "header" | "cookie"; required?: boolean; description?: string; schema?: JsonSchema };
type Operation = { summary?: string; description?: string; parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } };
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>> };

/** A request a tool call becomes: what `app.inject` sends. */
export type ToolRequest = { method: ToolRoute["method"]; url: string; body?: Record<string, unknown> };

export type RouteTool = {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, JsonSchema>; required?: string[] };
  request: (args: Record<string, unknown>) => ToolRequest;
};

/**
 * A tool from its route's OpenAPI operation: its description is the route's (summary, details
 * and who may call it), its input the route's path and query parameters and its JSON body's
 * fields, under the same names and schemas. A route missing from the document is a programming
 * error and throws at the first `tools/list`.
 */
export function toolOf(document: OpenApiDocument, route: ToolRoute): RouteTool {
  const operation = document.paths[route.path]?.[route.method.toLowerCase()];
  if (!operation) throw new Error(`MCP tool ${route.name}: no ${route.method} ${route.path} in the OpenAPI document`);
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const pathNames: string[] = [];
  const queryNames: string[] = [];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== "path" && parameter.in !== "query") continue;
    (parameter.in === "path" ? pathNames : queryNames).push(parameter.name);
    properties[parameter.name] = { ...parameter.schema, ...(parameter.description ? { description: parameter.description } : {}) };
    if (parameter.required || parameter.in === "path") required.add(parameter.name);
  }
  const body = operation.requestBody?.content?.["application/json"]?.schema;
  const bodyNames: string[] = [];
  for (const [name, schema] of Object.entries(body?.properties ?? {})) {
    if (route.fixed && name in route.fixed) continue;
    if (properties[name]) continue; // a path or query parameter of the same name wins
    bodyNames.push(name);
    properties[name] = schema;
    if (body?.required?.includes(name)) required.add(name);
  }
  const description = route.description ?? [operation.summary, operation.description].filter(Boolean).join(". ");
  return {
    name: route.name,
    description,
    inputSchema: { type: "object", properties, ...(required.size > 0 ? { required: [...required] } : {}) },
    request: (args) => {
      let url = route.path;
      for (const name of pathNames) url = url.replace(`{${name}}`, encodeURIComponent(String(args[name] ?? "")));
      const query = new URLSearchParams();
      for (const name of queryNames) {
        const value = args[name];
        if (value !== undefined && value !== null) query.set(name, Array.isArray(value) ? value.join(",") : String(value));
      }
      const search = query.size > 0 ? `?${query}` : "";
      if (route.method === "GET" || (bodyNames.length === 0 && !route.fixed && !body)) return { method: route.method, url: `${url}${search}` };
      const sent: Record<string, unknown> = { ...route.fixed };
      for (const name of bodyNames) if (args[name] !== undefined) sent[name] = args[name];
      return { method: route.method, url: `${url}${search}`, body: sent };
    },
  };
}
