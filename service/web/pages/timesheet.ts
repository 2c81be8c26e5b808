// My timesheet: a week (Monday to Sunday) with each day's entries and totals, previous/next week
// and today, the week's entries as CSV or XLSX; adding, editing and deleting entries (duration entries and start/end entries). The
// form only turns fields into an entry; every rule (booking close date, locked entries, bookable
// projects and tasks, required fields, their messages) is the data source's, as for the API; the page
// shows a refusal in its own language.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EdmRecord } from '../../../odata/edm.js';
import { ODataError } from '../../../odata/errors.js';
import { refusalText } from '../../odata-server/error-texts.js';
import { addDays, instantOf, isDate, minutesOf, mondayOf, wallClock } from '../clock.js';
import { downloadLinks } from '../downloads.js';
import { flag, html } from '../html.js';
import type { Html } from '../html.js';
import { fill } from '../i18n.js';
import type { Lang } from '../i18n.js';
import { csrfField, described, field, layout } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage, signedIn } from '../plugin.js';
import { isStale, postedVersion, versionField } from '../row-versions.js';
import type { WebSession } from '../sessions.js';
import { durationString } from '../../timetracking/sets/time-entries.js';
import { bookedOn, duration, isRunning, startOf, timeSpan } from './entry-view.js';

interface EntryForm {
  readonly date: string;
  readonly kind: '1' | '2';
  readonly duration: string;
  readonly start: string;
  readonly end: string;
  readonly projectId: string;
  readonly taskId: string;
  readonly comment: string;
  readonly billable: boolean;
  /** The custom fields (`Custom1` ...) as typed; only those the account labels are shown and saved. */
  readonly custom: Readonly<Record<string, string>>;
}

const CUSTOM = ['Custom1', 'Custom2', 'Custom3', 'Custom4', 'Custom5'] as const;

type Errors = Record<string, string>;

/** Which form field shows the message of a rule about a property. */
const FIELD_OF: Readonly<Record<string, string>> = {
  ProjectID: 'project', TaskID: 'task', Comment: 'comment', StartTime: 'start', EndTime: 'end', TypeID: 'kind',
  ...Object.fromEntries(CUSTOM.map((name) => [name, name])),
};

/** ... in a duration entry, whose times the form makes from the date and the duration. */
const DURATION_FIELD_OF: Readonly<Record<string, string>> = { ...FIELD_OF, StartTime: 'date', EndTime: 'duration' };

function formOf(entry: EdmRecord, timeZone: string): EntryForm {
  const start = wallClock(startOf(entry), timeZone);
  const end = entry.EndTime instanceof Date ? wallClock(entry.EndTime.getTime(), timeZone).time : '';
  return {
    date: start.date,
    kind: entry.TypeID === 1 ? '1' : '2',
    duration: durationString(entry.DurationSeconds as number).replace(/^0(\d)/, '$1'),
    start: start.time,
    end,
    projectId: String(entry.ProjectID),
    taskId: entry.TaskID === null ? '' : String(entry.TaskID),
    comment: (entry.Comment as string | null) ?? '',
    billable: entry.Billable === true,
    custom: Object.fromEntries(CUSTOM.map((name) => [name, (entry[name] as string | null) ?? ''])),
  };
}

function formFrom(body: unknown): EntryForm {
  const b = (body ?? {}) as Record<string, string | undefined>;
  const s = (name: string) => (typeof b[name] === 'string' ? b[name] as string : '').slice(0, 2000);
  return {
    date: s('date').trim(), kind: s('kind') === '1' ? '1' : '2', duration: s('duration').trim(), start: s('start').trim(), end: s('end').trim(),
    projectId: s('project'), taskId: s('task'), comment: s('comment'), billable: s('billable') === '1',
    custom: Object.fromEntries(CUSTOM.map((name) => [name, s(name)])),
  };
}

/** The entry's values from the form, or the fields' errors. */
function valuesOf(form: EntryForm, ctx: PageContext, timeZone: string, labelled: readonly string[], isUpdate = false): { values: EdmRecord } | { errors: Errors } {
  const { t } = ctx;
  const errors: Errors = {};
  if (!isDate(form.date)) errors.date = t.invalidDate;
  const values: EdmRecord = {
    TypeID: Number(form.kind),
    TaskID: /^\d{1,9}$/.test(form.taskId) ? Number(form.taskId) : null,
    Comment: form.comment.trim() === '' ? null : form.comment,
    Billable: form.billable,
  };
  // Only the labelled fields are in the form; the others keep what the API stored.
  for (const name of labelled) values[name] = (form.custom[name] ?? '').trim() === '' ? null : (form.custom[name] as string).trim();
  if (form.kind === '1') {
    const minutes = minutesOfDuration(form.duration);
    if (minutes === undefined) errors.duration = t.invalidDuration;
    if (errors.date === undefined && minutes !== undefined) {
      const start = instantOf(form.date, 0, timeZone);
      values.StartTime = new Date(start);
      values.EndTime = new Date(start + minutes * 60_000);
    }
  } else {
    const start = minutesOf(form.start);
    const end = minutesOf(form.end);
    if (start === undefined) errors.start = t.invalidTime;
    if (end === undefined) errors.end = t.invalidTime;
    if (errors.date === undefined && start !== undefined && end !== undefined) {
      values.StartTime = new Date(instantOf(form.date, start, timeZone));
      values.EndTime = new Date(instantOf(form.date, end, timeZone));
    }
  }
  // No project: absent on create (the rules' "required"), null on update (merge would keep the old).
  if (/^\d{1,9}$/.test(form.projectId)) values.ProjectID = Number(form.projectId);
  else if (isUpdate) values.ProjectID = null;
  return Object.keys(errors).length === 0 ? { values } : { errors };
}

/** `h:mm` or `hh:mm` (hours may exceed 23 for a long day), or decimal hours `1,5`. */
function minutesOfDuration(text: string): number | undefined {
  const clock = /^(\d{1,3}):([0-5]\d)$/.exec(text);
  if (clock !== null) return Number(clock[1]) * 60 + Number(clock[2]);
  const decimal = /^(\d{1,3})(?:[.,](\d{1,2}))?$/.exec(text);
  if (decimal !== null) return Math.round(Number(`${decimal[1]}.${decimal[2] ?? '0'}`) * 60);
  return undefined;
}

export function registerTimesheetPages(web: FastifyInstance, deps: WebDependencies): void {
  const { bookings } = deps;

  /** The entry form; `version` (an edit's) is the row version the form's values were made from. */
  async function entryForm(ctx: PageContext, session: WebSession, action: string, form: EntryForm, errors: Errors, editable: boolean, version?: EdmRecord): Promise<Html> {
    const { t } = ctx;
    const [projects, tasks, labels] = await Promise.all([
      bookings.bookableProjects(session.caller), bookings.activeTasks(session.caller), bookings.customLabels(session.caller, 'TimeEntry'),
    ]);
    // An entry booked on a project no longer bookable still shows what it is booked on.
    const names = await bookings.names(session.caller);
    const projectChoices = projects.some((p) => String(p.id) === form.projectId) || form.projectId === ''
      ? projects : [...projects, { id: Number(form.projectId), name: names.projects.get(Number(form.projectId)) ?? `#${form.projectId}` }];
    const disabled = flag('disabled', !editable);
    const e = (name: string) => errors[name];
    return html`
      <form method="post" action="${action}" class="card entry-form" novalidate>
        ${csrfField(ctx)}${version === undefined ? '' : versionField(bookings.entryType, version)}
        ${errors.form === undefined ? '' : html`<p class="error" role="alert">${errors.form}</p>`}
        <fieldset${disabled}>
        ${field('date', t.date, html`<input id="date" name="date" type="date" required value="${form.date}"${described('date', e('date'))}>`, e('date'))}
        <fieldset class="kind"><legend>${t.kind}</legend>
          <label><input type="radio" name="kind" value="2"${flag('checked', form.kind === '2')}> ${t.kindStartEnd}</label>
          <label><input type="radio" name="kind" value="1"${flag('checked', form.kind === '1')}> ${t.kindDuration}</label>
          ${e('kind') === undefined ? '' : html`<p class="field-error">${e('kind')}</p>`}
        </fieldset>
        <div class="times">
          ${field('start', t.startTime, html`<input id="start" name="start" inputmode="numeric" placeholder="09:00" value="${form.start}"${described('start', e('start'))}>`, e('start'))}
          ${field('end', t.endTime, html`<input id="end" name="end" inputmode="numeric" placeholder="12:30" value="${form.end}"${described('end', e('end'))}>`, e('end'))}
          ${field('duration', t.duration, html`<input id="duration" name="duration" inputmode="numeric" placeholder="1:30" value="${form.duration}"${described('duration', e('duration'))}>`, e('duration'))}
        </div>
        ${field('project', t.project, html`<select id="project" name="project" required${described('project', e('project'))}><option value=""></option>${projectChoices.map((p) =>
          html`<option value="${p.id}"${flag('selected', String(p.id) === form.projectId)}>${p.name}</option>`)}</select>`, e('project'))}
        ${field('task', t.task, html`<select id="task" name="task"${described('task', e('task'))}><option value="">${t.noTask}</option>${tasks.map((task) =>
          html`<option value="${task.id}"${flag('selected', String(task.id) === form.taskId)}>${task.name}</option>`)}</select>`, e('task'))}
        ${field('comment', t.comment, html`<textarea id="comment" name="comment" rows="2" maxlength="1500"${described('comment', e('comment'))}>${form.comment}</textarea>`, e('comment'))}
        ${labels.map(([name, label]) => field(name, label, html`<input id="${name}" name="${name}" maxlength="50" value="${form.custom[name] ?? ''}"${described(name, e(name))}>`, e(name)))}
        <div class="field check"><input id="billable" name="billable" type="checkbox" value="1"${flag('checked', form.billable)}><label for="billable">${t.billable}</label></div>
        </fieldset>
        ${editable ? html`<button type="submit" class="primary">${t.save}</button>` : ''}
      </form>`;
  }

  /** A write's refusal by the rules as the form's errors; anything else is thrown on. */
  function refusal(error: unknown, language: Lang, form?: EntryForm): Errors {
    if (!(error instanceof ODataError) || error.status >= 500 || error.status === 401) throw error;
    const fieldName = (form?.kind === '1' ? DURATION_FIELD_OF : FIELD_OF)[error.target ?? ''];
    const message = refusalText(error, language);
    return fieldName === undefined ? { form: message } : { [fieldName]: message };
  }

  web.get('/timesheet', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const ctx = request.page;
    const { t } = ctx;
    const { timeZone, caller } = session;
    const query = request.query as { week?: unknown; done?: string };
    const today = wallClock(Date.now(), timeZone).date;
    if (query.week !== undefined && !(typeof query.week === 'string' && isDate(query.week))) {
      return sendPage(reply, 400, layout(ctx, t.timesheet, html`<p><a href="/timesheet?week=${today}">${t.today}</a></p>`, { error: t.noSuchWeek }));
    }
    const monday = mondayOf(typeof query.week === 'string' ? query.week : today);
    // The calendar's last week (of 9999-12-27) ends on Friday, 31 December; its first begins on Monday, 1 January 1.
    const days = Array.from({ length: 7 }, (_, i) => addDays(monday, i)).filter(isDate);
    const lastDay = days[days.length - 1] as string;
    const [previous, next] = [addDays(monday, -7), addDays(monday, 7)];
    const [entries, names] = await Promise.all([
      bookings.ownEntries(caller, new Date(instantOf(monday, 0, timeZone)), new Date(instantOf(next, 0, timeZone))),
      bookings.names(caller),
    ]);
    const byDay = new Map<string, EdmRecord[]>(days.map((day) => [day, []]));
    for (const entry of entries) byDay.get(wallClock(startOf(entry), timeZone).date)?.push(entry);
    const seconds = (list: readonly EdmRecord[]) => list.reduce((sum, entry) => sum + (entry.DurationSeconds as number), 0);
    const dayName = new Intl.DateTimeFormat(ctx.lang === 'de' ? 'de-DE' : 'en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
    const label = (day: string) => dayName.format(new Date(`${day}T12:00:00Z`));
    const short = new Intl.DateTimeFormat(ctx.lang === 'de' ? 'de-DE' : 'en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
    const title = fill(t.week, { from: short.format(new Date(`${monday}T12:00:00Z`)), to: short.format(new Date(`${lastDay}T12:00:00Z`)) });
    const notice = query.done === 'saved' ? t.saved : query.done === 'deleted' ? t.deleted : undefined;
    const newDate = days.includes(today) ? today : monday;
    const body = html`
      <nav class="week-nav" aria-label="${t.timesheet}">
        ${isDate(previous) ? html`<a href="/timesheet?week=${previous}" rel="prev">← ${t.previousWeek}</a>` : ''}
        <a href="/timesheet?week=${today}">${t.today}</a>
        ${isDate(next) ? html`<a href="/timesheet?week=${next}" rel="next">${t.nextWeek} →</a>` : ''}
      </nav>
      <p class="week-total">${t.weekTotal}: <strong data-total="week">${durationString(seconds(entries))}</strong></p>
      <a class="button" href="/timesheet/new?date=${newDate}">${t.addEntry}</a>
      ${downloadLinks(ctx, '/reports/export', `from=${monday}&to=${lastDay}`)}
      ${days.map((day) => {
        const list = byDay.get(day) ?? [];
        return html`<section class="day${day === today ? ' today' : ''}" aria-labelledby="d-${day}">
          <h2 id="d-${day}"><span>${label(day)}</span> <span class="day-total" data-total="${day}">${durationString(seconds(list))}</span></h2>
          ${list.length === 0 ? html`<p class="empty">${t.noEntries}</p>` : html`<ul class="entries">${list.map((entry) => html`
            <li data-entry="${String(entry.ID)}"><span class="span">${timeSpan(entry, timeZone)}</span>
              ${bookedOn(entry, names, t)}
              ${entry.Comment === null ? '' : html`<span class="comment">${entry.Comment as string}</span>`}
              <span class="duration">${duration(entry)}${isRunning(entry) ? ' ▶' : ''}</span>
              ${entry.IsEditable === true && !isRunning(entry)
                ? html`<a class="edit" href="/timesheet/entries/${String(entry.ID)}" aria-label="${t.edit}: ${timeSpan(entry, timeZone) || duration(entry)} ${names.projects.get(entry.ProjectID as number) ?? ''}">${t.edit}</a>`
                : html`<span class="tag">${entry.Locked === true ? t.locked : ''}</span>`}
            </li>`)}</ul>`}
        </section>`;
      })}`;
    return sendPage(reply, 200, layout(ctx, title, body, { notice }));
  });

  /** The new-entry page, with a way back to the week it is for. */
  async function newEntryPage(ctx: PageContext, session: WebSession, form: EntryForm, errors: Errors): Promise<string> {
    return layout(ctx, ctx.t.newEntry, html`
      ${await entryForm(ctx, session, '/timesheet/new', form, errors, true)}
      <p><a href="/timesheet?week=${form.date}">${ctx.t.cancel}</a></p>`);
  }

  web.get('/timesheet/new', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const given = (request.query as { date?: string }).date;
    const date = typeof given === 'string' && isDate(given) ? given : wallClock(Date.now(), session.timeZone).date;
    const form: EntryForm = { date, kind: '2', duration: '', start: '', end: '', projectId: '', taskId: '', comment: '', billable: true, custom: {} };
    return sendPage(reply, 200, await newEntryPage(request.page, session, form, {}));
  });

  web.post('/timesheet/new', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const form = formFrom(request.body);
    const labelled = (await bookings.customLabels(session.caller, 'TimeEntry')).map(([name]) => name);
    const parsed = valuesOf(form, request.page, session.timeZone, labelled);
    let errors: Errors;
    if ('values' in parsed) {
      try {
        await bookings.create(session.caller, parsed.values);
        return reply.redirect(`/timesheet?week=${form.date}&done=saved`, 303);
      } catch (error) {
        errors = refusal(error, request.page.lang, form);
      }
    } else {
      errors = parsed.errors;
    }
    return sendPage(reply, 422, await newEntryPage(request.page, session, form, errors));
  });

  /**
   * The caller's own entry of the URL, or a 404 page sent (another's entry is no different from
   * none); a form posted for one that is gone says it was deleted meanwhile.
   */
  async function ownEntry(request: FastifyRequest, reply: FastifyReply, session: WebSession): Promise<EdmRecord | undefined> {
    const { t } = request.page;
    const text = (request.params as { id: string }).id;
    const entry = /^\d{1,10}$/.test(text) ? await bookings.ownEntry(session.caller, Number(text)) : undefined;
    if (entry === undefined) void sendPage(reply, 404, layout(request.page, t.editEntry, html``, { error: request.method === 'POST' ? t.deletedMeanwhile : t.notFound }));
    return entry;
  }

  /** The edit page; its forms carry `version` (the posted one when `form` is what was typed), else the entry's own. */
  async function editPage(ctx: PageContext, session: WebSession, entry: EdmRecord, form: EntryForm, errors: Errors, version: EdmRecord = entry): Promise<string> {
    const { t } = ctx;
    const editable = entry.IsEditable === true && !isRunning(entry);
    const action = `/timesheet/entries/${String(entry.ID)}`;
    return layout(ctx, t.editEntry, html`
      ${editable ? '' : html`<p class="notice" role="status">${t.readOnly}</p>`}
      ${await entryForm(ctx, session, action, form, errors, editable, version)}
      ${editable ? html`<form method="post" action="${action}/delete" class="danger">${csrfField(ctx)}${versionField(bookings.entryType, version)}<button type="submit">${t.delete}</button></form>` : ''}
      <p><a href="/timesheet?week=${form.date}">${t.cancel}</a></p>`);
  }

  web.get('/timesheet/entries/:id', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const entry = await ownEntry(request, reply, session);
    if (entry === undefined) return reply;
    return sendPage(reply, 200, await editPage(request.page, session, entry, formOf(entry, session.timeZone), {}));
  });

  /**
   * The answer to a form the data source refused as stale: the entry as it is now, with `message`
   * and its current version (409), or that it is gone (404). Nothing was written.
   */
  async function staleForm(request: FastifyRequest, reply: FastifyReply, session: WebSession, id: number, message: string): Promise<FastifyReply> {
    const current = await bookings.ownEntry(session.caller, id);
    if (current === undefined) return sendPage(reply, 404, layout(request.page, request.page.t.editEntry, html``, { error: request.page.t.deletedMeanwhile }));
    return sendPage(reply, 409, await editPage(request.page, session, current, formOf(current, session.timeZone), { form: message }));
  }

  /** The posted form's version, or the 400 page sent (with the entry's current values) when it has none. */
  async function postedEntryVersion(request: FastifyRequest, reply: FastifyReply, session: WebSession, entry: EdmRecord): Promise<EdmRecord | undefined> {
    const version = postedVersion(bookings.entryType, request.body);
    if (version === undefined) {
      void sendPage(reply, 400, await editPage(request.page, session, entry, formOf(entry, session.timeZone), { form: request.page.t.versionMissing }));
    }
    return version;
  }

  web.post('/timesheet/entries/:id', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const entry = await ownEntry(request, reply, session);
    if (entry === undefined) return reply;
    const version = await postedEntryVersion(request, reply, session, entry);
    if (version === undefined) return reply;
    const form = formFrom(request.body);
    const labelled = (await bookings.customLabels(session.caller, 'TimeEntry')).map(([name]) => name);
    const parsed = valuesOf(form, request.page, session.timeZone, labelled, true);
    let errors: Errors;
    if ('values' in parsed) {
      try {
        await bookings.update(session.caller, entry.ID as number, parsed.values, version);
        return reply.redirect(`/timesheet?week=${form.date}&done=saved`, 303);
      } catch (error) {
        if (isStale(error)) return staleForm(request, reply, session, entry.ID as number, request.page.t.changedMeanwhile);
        errors = refusal(error, request.page.lang, form);
      }
    } else {
      errors = parsed.errors;
    }
    // What was typed, still on the version it was made from: a change by others meanwhile is not waved through on the next save.
    return sendPage(reply, errors.form === undefined ? 422 : 403, await editPage(request.page, session, entry, form, errors, version));
  });

  web.post('/timesheet/entries/:id/delete', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const entry = await ownEntry(request, reply, session);
    if (entry === undefined) return reply;
    const version = await postedEntryVersion(request, reply, session, entry);
    if (version === undefined) return reply;
    const date = wallClock(startOf(entry), session.timeZone).date;
    try {
      await bookings.remove(session.caller, entry.ID as number, version);
    } catch (error) {
      if (isStale(error)) return staleForm(request, reply, session, entry.ID as number, request.page.t.changedNotDeleted);
      const errors = refusal(error, request.page.lang);
      return sendPage(reply, 403, await editPage(request.page, session, entry, formOf(entry, session.timeZone), errors));
    }
    return reply.redirect(`/timesheet?week=${date}&done=deleted`, 303);
  });
}
