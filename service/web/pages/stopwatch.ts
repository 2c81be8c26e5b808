// The stopwatch page: the running stopwatch with its time ticking (stopwatch.js), halt, and a
// form to start one on a bookable project and task. It is the API's stopwatch: the page calls
// the same operations (CurrentStopWatch, StartStopWatch, HaltStopWatch) through the data source.
import type { FastifyInstance } from 'fastify';
import type { EdmRecord } from '../../../odata/edm.js';
import { ODataError } from '../../../odata/errors.js';
import { refusalText } from '../../odata-server/error-texts.js';
import type { Choice } from '../bookings.js';
import { instantOf, wallClock } from '../clock.js';
import { formText } from '../form-values.js';
import { flag, html } from '../html.js';
import { csrfField, described, field, layout } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage, signedIn } from '../plugin.js';
import type { WebSession } from '../sessions.js';
import type { Names } from './entry-view.js';
import { bookedOn, duration, isRunning, startOf, timeSpan } from './entry-view.js';

interface StartForm {
  readonly projectId: string;
  readonly taskId: string;
  readonly comment: string;
  readonly billable: boolean;
}

function choices(items: readonly Choice[], selected: string, empty?: string) {
  return html`${empty === undefined ? '' : html`<option value="">${empty}</option>`}${items.map((item) =>
    html`<option value="${item.id}"${flag('selected', String(item.id) === selected)}>${item.name}</option>`)}`;
}

export function registerStopwatchPages(web: FastifyInstance, deps: WebDependencies): void {
  const { bookings } = deps;

  async function render(ctx: PageContext, session: WebSession, form: StartForm, errors: Record<string, string>, formError?: string): Promise<string> {
    const { t } = ctx;
    const { caller, timeZone } = session;
    const now = Date.now();
    const today = wallClock(now, timeZone).date;
    const [running, projects, tasks, names, todays] = await Promise.all([
      bookings.currentStopwatch(caller), bookings.bookableProjects(caller), bookings.activeTasks(caller), bookings.names(caller),
      bookings.ownEntries(caller, new Date(instantOf(today, 0, timeZone)), new Date(now + 1)),
    ]);
    const finished = todays.filter((entry) => !isRunning(entry)).reverse();
    return layout(ctx, t.stopwatch, html`
      <section class="card stopwatch" aria-labelledby="state">
        <h2 id="state">${running === undefined ? t.notRunning : t.running}</h2>
        ${running === undefined ? '' : runningView(ctx, running, names, timeZone, now)}
      </section>
      <form method="post" action="/stopwatch/start" class="card" aria-label="${t.start}">
        ${csrfField(ctx)}
        ${field('project', t.project, html`<select id="project" name="project" required${described('project', errors.ProjectID)}>${choices(projects, form.projectId, '')}</select>`, errors.ProjectID)}
        ${field('task', t.task, html`<select id="task" name="task"${described('task', errors.TaskID)}>${choices(tasks, form.taskId, t.noTask)}</select>`, errors.TaskID)}
        ${field('comment', t.comment, html`<textarea id="comment" name="comment" rows="2" maxlength="1500"${described('comment', errors.Comment)}>${form.comment}</textarea>`, errors.Comment)}
        <div class="field check"><input id="billable" name="billable" type="checkbox" value="1"${flag('checked', form.billable)}><label for="billable">${t.billable}</label></div>
        <button type="submit" class="primary">${t.start}</button>
      </form>
      <section class="card" aria-labelledby="today">
        <h2 id="today">${t.bookedToday}</h2>
        ${finished.length === 0 ? html`<p>${t.noEntries}</p>` : html`<ul class="entries">${finished.map((entry) => html`
          <li><span class="span">${timeSpan(entry, timeZone)}</span> ${bookedOn(entry, names, t)}
            ${entry.Comment === null ? '' : html`<span class="comment">${entry.Comment as string}</span>`}
            <span class="duration">${duration(entry)}</span></li>`)}</ul>`}
      </section>`, { scripts: ['/assets/stopwatch.js'], ...(formError === undefined ? {} : { error: formError }) });
  }

  function runningView(ctx: PageContext, running: EdmRecord, names: Names, timeZone: string, now: number) {
    const { t } = ctx;
    const start = startOf(running);
    return html`
      <p class="booked">${bookedOn(running, names, t)}</p>
      ${running.Comment === null ? '' : html`<p class="comment">${running.Comment as string}</p>`}
      <p>${t.startedAt} <time datetime="${new Date(start).toISOString()}">${wallClock(start, timeZone).time}</time></p>
      <p class="elapsed">${t.elapsed}: <output id="elapsed" data-started="${start}" data-now="${now}" aria-live="off">${duration(running)}</output></p>
      <form method="post" action="/stopwatch/halt">${csrfField(ctx)}<button type="submit" class="primary">${t.halt}</button></form>`;
  }

  const emptyForm: StartForm = { projectId: '', taskId: '', comment: '', billable: true };

  web.get('/stopwatch', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    return sendPage(reply, 200, await render(request.page, session, emptyForm, {}));
  });

  web.post('/stopwatch/start', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const form: StartForm = {
      projectId: formText(request.body, 'project'), taskId: formText(request.body, 'task'), comment: formText(request.body, 'comment'),
      billable: formText(request.body, 'billable') === '1',
    };
    const errors: Record<string, string> = {};
    try {
      await bookings.startStopwatch(session.caller, { ProjectID: form.projectId, TaskID: form.taskId, Comment: form.comment, Billable: form.billable });
      return reply.redirect('/stopwatch', 303);
    } catch (error) {
      // The API's refusals (its parameter reading, the rules of time entries) with their messages.
      if (!(error instanceof ODataError) || error.status >= 500 || error.status === 401) throw error;
      const target = error.target ?? '';
      const message = refusalText(error, request.page.lang);
      if (['ProjectID', 'TaskID', 'Comment'].includes(target)) errors[target] = message;
      else return sendPage(reply, error.status, await render(request.page, session, form, errors, message));
    }
    return sendPage(reply, 422, await render(request.page, session, form, errors));
  });

  web.post('/stopwatch/halt', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    await bookings.haltStopwatch(session.caller);
    return reply.redirect('/stopwatch', 303);
  });

  /** For the page's script: whether the stopwatch it shows still runs as shown. */
  web.get('/stopwatch/state', async (request, reply) => {
    const { session } = request.page;
    if (session === undefined) return reply.code(401).header('cache-control', 'no-store').send({ signedIn: false });
    const running = await bookings.currentStopwatch(session.caller);
    return reply.header('cache-control', 'no-store').send({ running: running === undefined ? null : { id: running.ID, started: startOf(running) } });
  });
}
