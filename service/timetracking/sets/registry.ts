// Every entity set the time-tracking service stores, one module each. Adding a set: its module,
// one line here, its table in a migration.
import { accountSettings } from './account-settings.js';
import { clients } from './clients.js';
import type { EntitySetDefinition } from './entity-set.js';
import { projects } from './projects.js';
import { tasks } from './tasks.js';
import { timeEntries } from './time-entries.js';
import { users } from './users.js';

export const ENTITY_SETS: readonly EntitySetDefinition[] = [projects, clients, tasks, timeEntries, users, accountSettings];
