import { z } from "zod";

/** `{"deleted": true}`, the answer of every DELETE that removes a resource. */
export const deletedBody = z.object({ deleted: z.literal(true) });

/** Time stamps as the read models return them: ISO 8601 text. */
export const timestamp = z.string().describe("ISO 8601 date-time");

/** `{id}` path parameters. */
export const idParams = <S extends z.ZodTypeAny>(id: S) => z.object({ id });
