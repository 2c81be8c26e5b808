// Whether the upstream answers at all: its service document is asked for with a deadline. Any
// HTTP answer below 500 (a 401 for the missing key included) means it is up and reachable.
import type { UpstreamClient } from '../upstream/upstream-client.js';

export interface Readiness {
  readonly isReady: boolean;
  readonly detail: string;
}

export async function checkUpstream(upstream: UpstreamClient, timeoutMs: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Readiness>((resolve) => {
    timer = setTimeout(() => resolve({ isReady: false, detail: `the upstream did not answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const probe = upstream
    .send({ method: 'GET', path: '', query: '', headers: { accept: 'application/xml', 'user-agent': 'timegate-gateway-readiness' } })
    .then((response): Readiness => (response.status < 500
      ? { isReady: true, detail: 'the upstream answers' }
      : { isReady: false, detail: `the upstream answers ${response.status}` }))
    .catch((error: unknown): Readiness => ({ isReady: false, detail: error instanceof Error ? error.message : 'the upstream cannot be reached' }));
  try {
    return await Promise.race([probe, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
