// s3rver ships no types; only what test/support/s3-server.ts uses is declared.
declare module "s3rver" {
  import type { Server } from "node:http";

  type S3rverOptions = {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: { name: string }[];
  };

  /** What a PUT hands the store: `content` is the request itself for a plain PutObject. */
  type StoredObject = { bucket: string; key: string; content: unknown; metadata: Record<string, string> };

  type FilesystemStore = {
    putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
    getResourcePath(bucket: string, key: string, resource: string): string;
  };

  export default class S3rver {
    constructor(options: S3rverOptions);
    httpServer: Server | undefined;
    store: FilesystemStore;
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
