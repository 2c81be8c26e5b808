// The load generators and baselines some suites run beside our programs are Debian's (nginx-light,
// hyperfine, wrk): installed with apt-get when missing (as root, Debian only), like the browser
// for the tests, and never fetched from elsewhere.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** `binary`, from `apt-get install <pkg>` when missing; `why` says which suite wants it. */
export function ensureDebianTool(binary: string, pkg: string, why: string): string {
  if (existsSync(binary)) return binary;
  console.log(`installing ${pkg} (apt-get) for ${why} ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], { stdio: 'inherit', env });
  try {
    install();
  } catch {
    // The package lists of a fresh machine may be missing or old.
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    install();
  }
  if (!existsSync(binary)) throw new Error(`apt-get installed ${pkg}, but there is no ${binary}`);
  return binary;
}
