// What the web pages do with time entries, projects, tasks and the stopwatch, in EDMX terms and
// through the same two doors as the OData server: the model's payload rules (required fields,
// MaxLength, with the service's messages) and the time-tracking data source (visibility,
// write rules of sets/, the stopwatch operations). Nothing here knows a rule of its own.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { BinaryNode, FilterNode, PropertyNode } from '../../odata/filter-ast.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, EntityType, FunctionImport } from '../../odata/model.js';
import type { FunctionResult, WriteCondition } from '../odata-server/data-source.js';
import { ServiceError } from '../odata-server/errors.js';
import { functionParameters } from '../odata-server/function-imports.js';
import { PayloadRules } from '../odata-server/payload-rules.js';
import type { Caller } from '../timetracking/caller.js';
import type { TimeTrackingDataSource } from '../timetracking/data-source.js';

export interface Choice {
  readonly id: number;
  readonly name: string;
}

/** The model's set and type of a name the service surely has. */
function setAndType(index: ModelIndex, name: string): { set: EntitySet; type: EntityType } {
  const set = index.entitySet(name);
  if (set === undefined) throw new Error(`the model has no entity set ${name}`);
  return { set, type: index.typeOfSet(set) };
}

function compare(op: BinaryNode['op'], property: string, type: string, value: EdmValue): BinaryNode {
  const left: PropertyNode = { kind: 'property', path: [property], target: 'primitive', type };
  return { kind: 'binary', op, left, right: { kind: 'literal', type: type as 'Edm.DateTime', value }, type: 'Edm.Boolean', operandType: type };
}

function and(left: FilterNode, right: FilterNode): BinaryNode {
  return { kind: 'binary', op: 'and', left, right, type: 'Edm.Boolean', operandType: 'Edm.Boolean' };
}

export class Bookings {
  private readonly rules: PayloadRules;
  private readonly entries: { set: EntitySet; type: EntityType };
  private readonly projects: { set: EntitySet; type: EntityType };
  private readonly tasks: { set: EntitySet; type: EntityType };
  private readonly settings: { set: EntitySet; type: EntityType };

  constructor(private readonly index: ModelIndex, private readonly source: TimeTrackingDataSource) {
    this.rules = new PayloadRules(index.model, source.messages);
    this.entries = setAndType(index, 'TimeEntries');
    this.projects = setAndType(index, 'Projects');
    this.tasks = setAndType(index, 'Tasks');
    this.settings = setAndType(index, 'AccountSettings');
  }

  /** The caller's own entries starting in [from, to), by start time. */
  async ownEntries(caller: Caller, from: Date, to: Date): Promise<readonly EdmRecord[]> {
    const page = await this.source.query(caller, {
      ...this.entries,
      constraints: [{ property: 'UserID', values: [caller.userId] }],
      filter: and(compare('ge', 'StartTime', 'Edm.DateTime', from), compare('lt', 'StartTime', 'Edm.DateTime', to)),
      orderBy: [{ path: ['StartTime'], type: 'Edm.DateTime', direction: 'asc' }, { path: ['ID'], type: 'Edm.Int32', direction: 'asc' }],
    });
    return page.records;
  }

  /** One of the caller's own entries; undefined for any other id (another's, another account's, none). */
  async ownEntry(caller: Caller, id: number): Promise<EdmRecord | undefined> {
    if (!Number.isSafeInteger(id) || id <= 0 || id > 2_147_483_647) return undefined;
    const page = await this.source.query(caller, {
      ...this.entries,
      constraints: [{ property: 'ID', values: [id] }, { property: 'UserID', values: [caller.userId] }],
      orderBy: [],
      limit: 1,
    });
    return page.records[0];
  }

  /** Active projects the caller may book on, by name. */
  async bookableProjects(caller: Caller): Promise<readonly Choice[]> {
    const page = await this.source.query(caller, {
      ...this.projects,
      constraints: [{ property: 'Active', values: [true] }],
      orderBy: [{ path: ['Name'], type: 'Edm.String', direction: 'asc' }, { path: ['ID'], type: 'Edm.Int32', direction: 'asc' }],
    });
    return page.records.filter((p) => p.AssignedToCurrentUser === true).map((p) => ({ id: p.ID as number, name: p.Name as string }));
  }

  /** Active tasks, by description. */
  async activeTasks(caller: Caller): Promise<readonly Choice[]> {
    const page = await this.source.query(caller, {
      ...this.tasks,
      constraints: [{ property: 'Active', values: [true] }],
      orderBy: [{ path: ['Description'], type: 'Edm.String', direction: 'asc' }, { path: ['ID'], type: 'Edm.Int32', direction: 'asc' }],
    });
    return page.records.map((t) => ({ id: t.ID as number, name: t.Description as string }));
  }

  /** Names of the projects and tasks the caller can read, to label entries. */
  async names(caller: Caller): Promise<{ projects: ReadonlyMap<number, string>; tasks: ReadonlyMap<number, string> }> {
    const [projects, tasks] = await Promise.all([
      this.source.query(caller, { ...this.projects, constraints: [], orderBy: [] }),
      this.source.query(caller, { ...this.tasks, constraints: [], orderBy: [] }),
    ]);
    return {
      projects: new Map(projects.records.map((p) => [p.ID as number, p.Name as string])),
      tasks: new Map(tasks.records.map((t) => [t.ID as number, t.Description as string])),
    };
  }

  /**
   * The account's labels of a type's custom fields (`TimeEntry` -> TimeEntryCustom1Label ...):
   * the fields that have one, by property name (`Custom1` -> "Ticket"); unlabelled ones are unused.
   */
  async customLabels(caller: Caller, typePrefix: string): Promise<ReadonlyArray<readonly [string, string]>> {
    const page = await this.source.query(caller, { ...this.settings, constraints: [], orderBy: [], limit: 1 });
    const settings = page.records[0] ?? {};
    const labels: Array<readonly [string, string]> = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const label = settings[`${typePrefix}Custom${n}Label`];
      if (typeof label === 'string' && label.trim() !== '') labels.push([`Custom${n}`, label]);
    }
    return labels;
  }

  async create(caller: Caller, values: EdmRecord): Promise<EdmRecord> {
    return this.source.create(caller, this.entries.set, this.rules.forCreate(this.entries.type, values));
  }

  /** The model's type of time entries (for the row version their forms carry). */
  get entryType(): EntityType {
    return this.entries.type;
  }

  /** Changes the entry while it is still the version the form was made from (row-versions.ts). */
  async update(caller: Caller, id: number, values: EdmRecord, condition: WriteCondition): Promise<void> {
    const key = { ID: id };
    await this.source.update(caller, this.entries.set, { key, values: this.rules.forUpdate(this.entries.type, key, values, 'merge'), mode: 'merge', condition });
  }

  /** Deletes the entry while it is still the version the form was made from. */
  async remove(caller: Caller, id: number, condition: WriteCondition): Promise<void> {
    await this.source.remove(caller, this.entries.set, { ID: id }, condition);
  }

  /** The running stopwatch, if any (CurrentStopWatch). */
  async currentStopwatch(caller: Caller): Promise<EdmRecord | undefined> {
    try {
      return await this.invoke(caller, 'CurrentStopWatch', {}) as EdmRecord;
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * StartStopWatch (halts a running one, starts anew), its parameters given as the form's text
   * and read as the API reads a request's (types, characters that cannot be stored).
   */
  async startStopwatch(caller: Caller, form: { ProjectID: string; TaskID: string; Comment: string; Billable: boolean }): Promise<EdmRecord> {
    const fn = this.functionNamed('StartStopWatch');
    const text = new Map<string, string>([['ProjectID', form.ProjectID], ['TaskID', form.TaskID], ['Billable', String(form.Billable)]]);
    // Quoted, as a string literal of the URL: a comment reading `null` stays that text.
    if (form.Comment.trim() !== '') text.set('Comment', `'${form.Comment.replaceAll("'", "''")}'`);
    return await this.source.invoke(caller, fn, functionParameters(fn, text)) as EdmRecord;
  }

  /** HaltStopWatch; undefined when none ran. */
  async haltStopwatch(caller: Caller): Promise<EdmRecord | undefined> {
    try {
      return await this.invoke(caller, 'HaltStopWatch', {}) as EdmRecord;
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return undefined;
      throw error;
    }
  }

  private functionNamed(name: string): FunctionImport {
    const fn = this.index.functionImport(name);
    if (fn === undefined) throw new Error(`the model has no function import ${name}`);
    return fn;
  }

  private invoke(caller: Caller, name: string, parameters: Readonly<Record<string, EdmValue>>): Promise<FunctionResult> {
    const fn = this.functionNamed(name);
    const all: Record<string, EdmValue> = {};
    for (const parameter of fn.parameters) all[parameter.name] = parameters[parameter.name] ?? null;
    return this.source.invoke(caller, fn, all);
  }
}
