// Where an EDMX comes from: a file, or a live service's `$metadata` over http(s).
import { readFile } from 'node:fs/promises';
import { EdmxSourceError } from './errors.js';

const FETCH_TIMEOUT_MS = 30_000;

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

async function fetchMetadata(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/xml' },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${FETCH_TIMEOUT_MS / 1000} s` : cause ?? String(error);
    throw new EdmxSourceError(`cannot fetch ${url}: ${reason}`);
  }
  if (!response.ok) {
    throw new EdmxSourceError(`cannot fetch ${url}: HTTP ${response.status} ${response.statusText}`.trimEnd());
  }
  try {
    return await response.text();
  } catch (error) {
    throw new EdmxSourceError(`cannot fetch ${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function readEdmxFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    const reason =
      code === 'ENOENT' ? 'no such file'
      : code === 'EISDIR' ? 'is a directory'
      : code === 'EACCES' ? 'permission denied'
      : error instanceof Error ? error.message : String(error);
    throw new EdmxSourceError(`cannot read ${path}: ${reason}`);
  }
}

/** The EDMX text of a file path or an http(s) `$metadata` URL. */
export function loadEdmxSource(source: string): Promise<string> {
  return isUrl(source) ? fetchMetadata(source) : readEdmxFile(source);
}
