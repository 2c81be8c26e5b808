// nginx as the benchmarks' baseline proxy: what an operator would put in front of the service
// instead of the gateway (or Kong, which is nginx). Debian's nginx-light is installed on first
// use (as the tests install nothing but use Debian's chromium). One master with ONE worker,
// pinned to a core, listening twice: with proxy_cache (keyed by URL and API key, as the gateway
// partitions by credential) and without. The worker's pid is what the suites measure the CPU of.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianTool } from './debian-tools.js';
import { freePort, stopProcess, waitUntilUp } from './http-load.js';

const NGINX = '/usr/sbin/nginx';

export interface RunningNginx {
  /** `http://127.0.0.1:<port>` with proxy_cache, and without. */
  readonly cachingOrigin: string;
  readonly plainOrigin: string;
  /** The one worker process (the master only supervises). */
  readonly workerPid: number;
  stop(): Promise<void>;
}

/** /usr/sbin/nginx, from `apt-get install nginx-light` when missing. */
export function ensureNginx(): string {
  return ensureDebianTool(NGINX, 'nginx-light', 'the nginx baseline');
}

function config(folder: string, upstream: string, cachingPort: number, plainPort: number): string {
  const proxy = `proxy_pass http://service;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # As the gateway does: the service (trusting X-Forwarded-*) then names the proxy in its
      # URIs, so both proxies send answers of the same size.
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;`;
  return `# written by bench/nginx-server.ts
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${folder}/nginx.pid;
error_log ${folder}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  # Debian's default (on) holds back the last part of an 80 KB answer for 40 ms on loopback.
  tcp_nopush off;
  tcp_nodelay on;
  keepalive_requests 10000000;
  client_body_temp_path ${folder}/body;
  proxy_temp_path ${folder}/proxy;
  proxy_cache_path ${folder}/cache levels=1:2 keys_zone=tg:16m max_size=1g inactive=1h use_temp_path=off;
  upstream service {
    server ${upstream};
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${cachingPort};
    location = /healthz { return 200 ok; }
    location / {
      ${proxy}
      proxy_cache tg;
      proxy_cache_key "$request_uri|$http_x_serviceapikey";
      proxy_cache_valid 200 1h;
      proxy_cache_lock on;
      proxy_ignore_headers Cache-Control Expires Set-Cookie Vary;
      add_header X-Cache $upstream_cache_status;
    }
  }
  server {
    listen 127.0.0.1:${plainPort};
    location = /healthz { return 200 ok; }
    location / {
      ${proxy}
    }
  }
}
`;
}

/** The master's children named `nginx: worker process` (not the cache manager and loader). */
async function workersOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  const children = text.trim().split(/\s+/).filter(Boolean).map(Number);
  const titles = await Promise.all(children.map((child) => readFile(`/proc/${child}/cmdline`, 'utf8')));
  return children.filter((_, i) => (titles[i] as string).includes('worker process'));
}

/** nginx on `core`, proxying to `upstream` (`host:port`). */
export async function startNginx(core: number, upstream: string): Promise<RunningNginx> {
  const binary = ensureNginx();
  const folder = await mkdtemp(join(tmpdir(), 'timegate-nginx-'));
  const [cachingPort, plainPort] = [await freePort(), await freePort()];
  const file = join(folder, 'nginx.conf');
  await writeFile(file, config(folder, upstream, cachingPort, plainPort));
  const child = spawn('taskset', ['-c', String(core), binary, '-p', folder, '-c', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  const cachingOrigin = `http://127.0.0.1:${cachingPort}`;
  const plainOrigin = `http://127.0.0.1:${plainPort}`;
  const stop = async () => {
    await stopProcess(child);
    await rm(folder, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(`${cachingOrigin}/healthz`);
    await waitUntilUp(`${plainOrigin}/healthz`);
    const workers = await workersOf(child.pid as number);
    if (workers.length !== 1) throw new Error(`nginx runs ${workers.length} workers, not 1`);
    return { cachingOrigin, plainOrigin, workerPid: workers[0] as number, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
