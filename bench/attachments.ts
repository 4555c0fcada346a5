import { createHash, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { call } from "./fleet.ts";
import { round } from "./stats.ts";

const CHUNK = 64 * 1024;

/** `megabytes` of deterministic bytes in 64 KiB chunks, generated as they are read: the client holds one chunk at a time. */
function bytesOf(megabytes: number): Readable {
  const total = megabytes * 1024 * 1024;
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const size = Math.min(CHUNK, total - sent);
      const chunk = Buffer.alloc(size, (sent / CHUNK) % 251);
      sent += size;
      this.push(chunk);
    },
  });
}

async function sha256Of(stream: AsyncIterable<Uint8Array>): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

/** Samples `rssMb` every 50 ms while `work` runs; returns its result and the highest sample. */
async function sampledPeak<T>(rssMb: () => Promise<number>, work: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peakMb = await rssMb();
  let running = true;
  const sampler = (async () => {
    while (running) {
      peakMb = Math.max(peakMb, await rssMb());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    return { value: await work(), peakMb };
  } finally {
    running = false;
    await sampler;
  }
}

export type AttachmentTransfer = {
  megabytes: number;
  upload_mb_per_second: number;
  download_mb_per_second: number;
  service_rss_before_mb: number;
  service_rss_peak_mb: number;
};

/**
 * Reserves, uploads (streamed PUT) and downloads (signed URL) one attachment of `megabytes` on
 * the store the service runs with (the filesystem by default), sampling the API process's
 * resident set meanwhile: it must stay flat whatever the file's size.
 */
export async function measureAttachmentTransfer(input: {
  baseUrl: string;
  clientKey: string;
  bundleId: string;
  token: string;
  megabytes: number;
  rssMb: () => Promise<number>;
}): Promise<AttachmentTransfer> {
  const { baseUrl, clientKey, token, megabytes } = input;
  const { sha256, bytes } = await sha256Of(bytesOf(megabytes));
  const reserved = await call(
    baseUrl,
    "POST",
    "/v1/ingest/attachment",
    { client_event_id: randomUUID(), original_filename: `bench-${megabytes}mb.bin`, content_type: "application/octet-stream", size_bytes: bytes, sha256 },
    clientKey,
  );
  const before = await input.rssMb();
  const upload = await sampledPeak(input.rssMb, async () => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/v1/ingest/attachment/${reserved.attachment_id}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${clientKey}`, "content-type": "application/octet-stream", "content-length": String(bytes) },
      body: Readable.toWeb(bytesOf(megabytes)) as ReadableStream,
      duplex: "half",
    } as RequestInit);
    if (response.status !== 200) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
    return (performance.now() - started) / 1000;
  });
  const detail = await call(baseUrl, "GET", `/v1/attachments/${reserved.attachment_id}`, undefined, token);
  const download = await sampledPeak(input.rssMb, async () => {
    const started = performance.now();
    const response = await fetch(detail.download_url.url);
    if (response.status !== 200 || !response.body) throw new Error(`download answered ${response.status}`);
    const received = await sha256Of(response.body as unknown as AsyncIterable<Uint8Array>);
    if (received.sha256 !== sha256) throw new Error("the downloaded bytes differ from the uploaded ones");
    return (performance.now() - started) / 1000;
  });
  return {
    megabytes,
    upload_mb_per_second: round(megabytes / upload.value),
    download_mb_per_second: round(megabytes / download.value),
    service_rss_before_mb: before,
    service_rss_peak_mb: Math.max(upload.peakMb, download.peakMb),
  };
}
