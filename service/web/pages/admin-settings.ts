// The account settings for administrators: company name, time zone, currency, the booking close
// date (a day on the account's clock; entries before it are closed for standard users, in these
// pages and through the API alike: the time-entry rules enforce it), hourly rates on or off, and
// the labels of the custom fields (shown wherever those fields appear in the forms). The form
// carries the settings' internal row version (row-versions.ts): a save from a form older than the
// settings (another administrator, another tab, `timegate admin set-settings`) is refused with the
// current values, and nothing is overwritten.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EdmRecord } from '../../../odata/edm.js';
import { isTimeZone } from '../../../odata/wall-clock.js';
import { LABEL_SLOTS, closeInstant, labelProperty, parseCloseDay } from '../../timetracking/account-settings-rules.js';
import type { LabelledType } from '../../timetracking/account-settings-rules.js';
import { wallClock } from '../clock.js';
import { formText, recordFromForm } from '../form-values.js';
import type { FieldErrors } from '../form-values.js';
import { flag, html } from '../html.js';
import { fill } from '../i18n.js';
import type { Texts } from '../i18n.js';
import { csrfField, described, field } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage } from '../plugin.js';
import { internalVersionField, isStale, postedInternalVersion } from '../row-versions.js';
import { adminPage, administrator, refusalOf } from './admin.js';

/** The entity types with custom fields, as the labels' property names begin, and how the page names them. */
const LABELLED: ReadonlyArray<readonly [LabelledType, keyof Texts]> = [
  ['Project', 'project'], ['Client', 'client'], ['Task', 'task'], ['User', 'user'], ['TimeEntry', 'timeEntry'],
];
const LABELS = LABELLED.flatMap(([type]) => LABEL_SLOTS.map((slot) => labelProperty(type, slot)));
const PLAIN = ['CompanyName', 'TimeZone', 'Currency', 'HourlyRatesEnabled', ...LABELS];
// The runtime's list leaves out the plain `UTC` (an alias to it), which accounts often use.
const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone')];

type FormState = Record<string, string>;

function stateOf(settings: EdmRecord): FormState {
  const state: FormState = {};
  for (const name of PLAIN) {
    const value = settings[name];
    state[name] = typeof value === 'boolean' ? (value ? '1' : '') : value === null || value === undefined ? '' : String(value);
  }
  const close = settings.BookingCloseDate;
  // A zone the runtime does not know (set outside these pages) reads as UTC, as in the API.
  const zone = isTimeZone(settings.TimeZone as string) ? settings.TimeZone as string : 'UTC';
  state.BookingCloseDate = close instanceof Date ? wallClock(close.getTime(), zone).date : '';
  return state;
}

export function registerSettingsPages(admin: FastifyInstance, deps: WebDependencies): void {
  const { administration } = deps;

  /** The form with `state`, made from (and carrying) the settings' `version`. */
  function page(request: FastifyRequest, state: FormState, version: number, errors: FieldErrors, notice?: string): string {
    const ctx = request.page;
    const { t } = ctx;
    const e = (name: string) => errors[name];
    const input = (name: string, label: string, attributes = html``, hint?: string) =>
      field(`f-${name}`, label, html`<input id="f-${name}" name="${name}" value="${state[name] ?? ''}"${attributes}${described(`f-${name}`, e(name), hint !== undefined)}>`, e(name), hint);
    const zones = ZONES.includes(state.TimeZone ?? '') ? ZONES : [state.TimeZone ?? '', ...ZONES];
    return adminPage(ctx, t.settings, html`
      <form method="post" action="/admin/settings" class="card" novalidate>
        ${csrfField(ctx)}${internalVersionField(version)}
        ${errors.form === undefined ? '' : html`<p class="error" role="alert">${errors.form}</p>`}
        ${input('CompanyName', t.companyName, html` required`)}
        ${field('f-TimeZone', t.timeZone, html`<select id="f-TimeZone" name="TimeZone"${described('f-TimeZone', e('TimeZone'))}>${zones.map((zone) =>
          html`<option${flag('selected', zone === state.TimeZone)}>${zone}</option>`)}</select>`, e('TimeZone'))}
        ${input('Currency', t.currency, html` required maxlength="3" autocapitalize="characters"`)}
        ${input('BookingCloseDate', t.bookingCloseDate, html` type="date"`, t.bookingCloseDateHint)}
        <div class="field check"><input id="f-HourlyRatesEnabled" name="HourlyRatesEnabled" type="checkbox" value="1"${flag('checked', state.HourlyRatesEnabled === '1')}><label for="f-HourlyRatesEnabled">${t.hourlyRatesEnabled}</label></div>
        <h2>${t.customLabels}</h2>
        <p class="hint">${t.customLabelsHint}</p>
        ${LABELLED.map(([prefix, noun]) => html`<fieldset class="labels"><legend>${t[noun]}</legend>
          ${LABEL_SLOTS.map((n) => input(labelProperty(prefix, n), fill(t.labelOf, { entity: t[noun], n: String(n) })))}
        </fieldset>`)}
        <button type="submit" class="primary">${t.save}</button>
      </form>`, { notice });
  }

  /** The form with the settings as they are now (the version read first: settingsVersion). */
  async function currentPage(request: FastifyRequest, errors: FieldErrors, notice?: string): Promise<string> {
    const caller = administrator(request).caller;
    const version = await administration.settingsVersion(caller);
    return page(request, stateOf(await administration.settings(caller)), version, errors, notice);
  }

  admin.get('/settings', async (request, reply) => {
    const done = (request.query as { done?: string }).done;
    return sendPage(reply, 200, await currentPage(request, {}, done === 'saved' ? request.page.t.saved : undefined));
  });

  admin.post('/settings', async (request, reply) => {
    const caller = administrator(request).caller;
    const body = request.body;
    const version = postedInternalVersion(body);
    if (version === undefined) return sendPage(reply, 400, await currentPage(request, { form: request.page.t.versionMissing }));
    const { values, errors } = recordFromForm(administration.typeOf('AccountSettings'), PLAIN, body, administration.messages, request.page.lang);
    // The close date is a day on the clock of the zone being saved; a malformed one gets the
    // forms' own date message, like every date field of these pages.
    const closeDate = formText(body, 'BookingCloseDate').trim();
    const closeDay = parseCloseDay(closeDate);
    const current = (await administration.settings(caller)).TimeZone as string;
    const zone = typeof values.TimeZone === 'string' && isTimeZone(values.TimeZone) ? values.TimeZone : isTimeZone(current) ? current : 'UTC';
    if (closeDate === '') values.BookingCloseDate = null;
    else if (closeDay !== undefined) values.BookingCloseDate = new Date(closeInstant(closeDay, zone));
    else errors.BookingCloseDate = request.page.t.invalidDate;
    if (Object.keys(errors).length === 0) {
      try {
        await administration.changeSettings(caller, values, version);
        return reply.redirect('/admin/settings?done=saved', 303);
      } catch (error) {
        if (isStale(error)) return sendPage(reply, 409, await currentPage(request, { form: request.page.t.changedMeanwhile }));
        Object.assign(errors, refusalOf(error, [...PLAIN, 'BookingCloseDate'], request.page.lang));
      }
    }
    const state: FormState = Object.fromEntries([...PLAIN, 'BookingCloseDate'].map((name) => [name, formText(body, name, 5000)]));
    // What was typed, still on the version it was made from: a change meanwhile is caught on the next save.
    return sendPage(reply, 422, page(request, state, version, errors));
  });
}
