// Errors of the storage layer. The HTTP layer never sees these for a client's request (they are
// start-up failures), so they carry no HTTP status.

export class StorageConfigError extends Error {
  override readonly name = 'StorageConfigError';
}

export class MigrationFailedError extends Error {
  override readonly name = 'MigrationFailedError';
  constructor(readonly migrationName: string, cause: unknown) {
    super(`migration ${migrationName} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
