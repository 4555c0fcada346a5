import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import type { FastifyInstance } from "fastify";
import { MAX_BODY_BYTES } from "../../../domain/ingest/rules.ts";
import { invalid, tooLarge, unsupportedEncoding } from "../../../domain/shared/errors.ts";

const gunzipAsync = promisify(gunzip);

/**
 * Replaces the JSON parser inside the ingest (or import) plugin (the change stays in that
 * encapsulation context): the raw body is read with a `limit` (413 beyond, 1 MiB for ingest), a
 * `Content-Encoding: gzip` body is inflated with the same output limit (a small bomb cannot
 * inflate further), then parsed as JSON whatever the content type says, since SDKs label gzip
 * bodies in different ways.
 */
export function acceptIngestBodies(app: FastifyInstance, limit = MAX_BODY_BYTES): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: limit }, (request, body, done) => {
    decode(request.headers["content-encoding"], body as Buffer, limit).then(
      (value) => done(null, value),
      (error: Error) => done(error, undefined),
    );
  });
}

async function decode(encoding: string | undefined, raw: Buffer, limit: number): Promise<unknown> {
  const codings = (encoding ?? "").toLowerCase().split(",").map((coding) => coding.trim()).filter((coding) => coding !== "" && coding !== "identity");
  let body = raw;
  if (codings.length === 1 && codings[0] === "gzip") body = await inflate(raw, limit);
  else if (codings.length > 0) throw unsupportedEncoding(`unsupported content encoding ${JSON.stringify(encoding)}; send gzip or no encoding`);
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw invalid("malformed JSON body");
  }
}

async function inflate(raw: Buffer, limit: number): Promise<Buffer> {
  try {
    return await gunzipAsync(raw, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(`decompressed body larger than ${limit / (1024 * 1024)} MiB`);
    throw invalid("body is not valid gzip");
  }
}
