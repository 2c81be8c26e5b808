// The language of error documents: German by default, as the original service answers, and
// English when the request's Accept-Language prefers it (clients show `error.message.value` to
// people). An error that has its own message in both languages (the time-tracking rules' refusals,
// the service's fixed messages) answers with the one asked for. One table names what each status
// means in both languages; an error whose own message is in one language only, the other (a
// parser's English detail), is introduced by that line and kept in parentheses, so no detail is
// lost and the message still reads in the language asked for.
import { ODataError } from '../../odata/errors.js';

export type Language = 'de' | 'en';

/** `xml:lang` / `lang` of each language's messages. */
export const LANGUAGE_TAGS: Readonly<Record<Language, string>> = { de: 'de-DE', en: 'en' };

/** Both texts of one message. */
export interface Texts {
  readonly de: string;
  readonly en: string;
}

/** What each status the service answers means, in both languages. */
const STATUS_TEXTS: Readonly<Record<number, Texts>> = {
  400: { de: 'Die Anfrage ist ungültig', en: 'The request is invalid' },
  401: { de: 'Ein gültiger API-Schlüssel ist erforderlich', en: 'A valid API key is required' },
  403: { de: 'Das ist mit diesem Zugang nicht erlaubt', en: 'This is not allowed with this credential' },
  404: { de: 'Die Ressource gibt es nicht', en: 'The resource does not exist' },
  405: { de: 'Die Methode ist hier nicht erlaubt', en: 'The method is not allowed here' },
  406: { de: 'Kein Format, das der Client annimmt, ist möglich', en: 'No format the client accepts is available' },
  408: { de: 'Die Anfrage kam nicht rechtzeitig an', en: 'The request did not arrive in time' },
  409: { de: 'Der Eintrag kann nicht gespeichert werden', en: 'The entity cannot be saved' },
  412: { de: 'Die Vorbedingung ist nicht erfüllt', en: 'The precondition failed' },
  413: { de: 'Die Anfrage ist zu groß', en: 'The request is too large' },
  415: { de: 'Der Inhaltstyp wird nicht unterstützt', en: 'The media type is not supported' },
  428: { de: 'Die Anfrage braucht If-Match', en: 'The request needs If-Match' },
  431: { de: 'Die Kopfzeilen der Anfrage sind zu lang', en: 'The request headers are too long' },
  500: { de: 'Interner Fehler; er wurde protokolliert', en: 'Internal error; it has been logged' },
  501: { de: 'Das wird nicht unterstützt', en: 'This is not supported' },
};

function statusText(status: number, language: Language): string {
  return (STATUS_TEXTS[status] ?? STATUS_TEXTS[status >= 500 ? 500 : 400] as Texts)[language];
}

/**
 * The language an Accept-Language header prefers among German and English: the one of higher
 * weight (the earlier on a tie); German when it names neither, or is absent or unreadable.
 */
export function preferredLanguage(acceptLanguage: string | undefined): Language {
  if (acceptLanguage === undefined) return 'de';
  let best: { language: Language; q: number } | undefined;
  for (const item of acceptLanguage.slice(0, 1000).split(',')) {
    const [range = '', ...parameters] = item.split(';').map((part) => part.trim().toLowerCase());
    const primary = range.split('-', 1)[0];
    if (primary !== 'de' && primary !== 'en') continue;
    const weight = parameters.find((p) => p.startsWith('q='));
    const q = weight === undefined ? 1 : Number(weight.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    if (best === undefined || q > best.q) best = { language: primary, q };
  }
  return best?.language ?? 'de';
}

/** An error whose message exists in both languages (the service's own fixed messages). */
export interface Bilingual {
  readonly texts: Texts;
}

function isBilingual(error: unknown): error is Bilingual {
  return typeof error === 'object' && error !== null && 'texts' in error && typeof (error as Bilingual).texts?.en === 'string';
}

/** A message the service has in one language (a string) or in both. */
export type Message = string | Texts;

/** A message in `language` where it has that text; a one-language message as it is. */
export function textIn(message: Message, language: Language): string {
  return typeof message === 'string' ? message : message[language];
}

/**
 * A refusal's own message in `language` (the web pages show it in the page's language): the
 * error's text in that language when it has both, else its message as it is.
 */
export function refusalText(error: Error, language: Language): string {
  return isBilingual(error) ? error.texts[language] : error.message;
}

/**
 * The message of an error in `language`: its own text in that language when it has one; else the
 * status's meaning, followed by the error's message in parentheses.
 */
export function messageIn(error: unknown, status: number, message: string, messageLanguage: Language | undefined, language: Language): string {
  if (isBilingual(error)) return error.texts[language];
  if (messageLanguage === language) return message;
  if (message === '' || (!(error instanceof ODataError) && status >= 500)) return statusText(status, language);
  return `${statusText(status, language)} (${message})`;
}
