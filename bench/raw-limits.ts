import { measureCopyRate, type CopyFigures } from "./raw-copy.ts";
import { measureDiskSyncRate, type DiskFigures } from "./raw-disk.ts";
import { measurePublishRate, type PublishFigures } from "./raw-publish.ts";

export type RawLimits = { copy: CopyFigures; disk_sync: DiskFigures; jetstream_publish: PublishFigures };

export type RawSettings = { copyRows: number; copyStatements: number; syncSeconds: number; publishBytes: number; publishInFlight: number; publishSeconds: number };

/**
 * This machine's raw limits, measured in the same run as the service and before its load starts,
 * so the service's figures can be read as shares of what the database, the disk and the log take
 * when nothing stands in between. One after another: each would slow the others down.
 */
export async function measureRawLimits(databaseUrl: string, natsServers: string[], namespace: string, settings: RawSettings, log: (line: string) => void): Promise<RawLimits> {
  const disk_sync = await measureDiskSyncRate(databaseUrl, settings.syncSeconds);
  log(`raw: disk ${disk_sync.syncs_per_second} fdatasync'd 8 kB writes/s in ${disk_sync.directory}${disk_sync.same_filesystem_as_postgres ? " (Postgres's filesystem)" : " (not Postgres's filesystem: its data directory was not found)"}`);
  const copy = await measureCopyRate(databaseUrl, settings.copyRows, settings.copyStatements);
  log(`raw: COPY ${copy.rows_per_second} rows/s into a copy of ${copy.table} with its indexes (${copy.rows} rows, ${copy.statements} statements, ${copy.seconds} s)`);
  const jetstream_publish = await measurePublishRate(natsServers, namespace, settings.publishBytes, settings.publishInFlight, settings.publishSeconds);
  log(`raw: JetStream ${jetstream_publish.publishes_per_second} acknowledged publishes/s of ${Math.round(settings.publishBytes / 1000)} kB (${jetstream_publish.mb_per_second} MB/s, ${settings.publishInFlight} in flight)`);
  return { copy, disk_sync, jetstream_publish };
}
