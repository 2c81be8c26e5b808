#!/usr/bin/env node
// The sources are TypeScript run through tsx's loader: no build step, so a fresh clone runs
// what it checked out and nothing can be stale.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
