// Errors the OData server and its data sources raise, besides the protocol errors of odata/.
// Each carries its status, its `code` element and the language of its message; the error
// handler (error-handler.ts) is the one place that turns any of them into an error document.
import { ODataError } from '../../odata/errors.js';
import type { Message, Texts } from './error-texts.js';

/**
 * An error of the service. `message` is its text in `lang`; a message the service has in both
 * languages keeps both in `texts`, from which the error document takes the one the request
 * prefers (error-texts.ts) and the web pages the page's.
 */
export class ServiceError extends ODataError {
  override readonly name: string = 'ServiceError';
  readonly lang: string;
  readonly texts?: Texts;
  constructor(status: number, code: string, message: Message, lang = 'en', target?: string) {
    super(status, code, typeof message === 'string' ? message : message[lang.toLowerCase().startsWith('de') ? 'de' : 'en'], target);
    this.lang = lang;
    if (typeof message !== 'string') this.texts = message;
  }
}

/** No usable credential: the handler adds `WWW-Authenticate: Basic`. */
export class UnauthorizedError extends ServiceError {
  override readonly name = 'UnauthorizedError';
  constructor(message: Message) {
    super(401, 'UNAUTHORIZED', message);
  }
}

/** The caller may read the resource but not do this to it. */
export class ForbiddenError extends ServiceError {
  override readonly name = 'ForbiddenError';
  constructor(message: Message, lang = 'en') {
    super(403, 'FORBIDDEN', message, lang);
  }
}

export class MethodNotAllowedError extends ServiceError {
  override readonly name = 'MethodNotAllowedError';
  constructor(message: string, readonly allow: readonly string[]) {
    super(405, 'METHOD_NOT_ALLOWED', message);
  }
}

export class BadRequestError extends ServiceError {
  override readonly name = 'BadRequestError';
  constructor(message: string, target?: string) {
    super(400, 'BAD_REQUEST', message, 'en', target);
  }
}

/**
 * An entity that fails validation (service-api.md §7): 409 with an empty `code`, as the original
 * service answers, and a message in the data source's language naming the entity and the reason
 * (in `lang`, and in both languages where the data source has both).
 */
export class ValidationError extends ServiceError {
  override readonly name = 'ValidationError';
  constructor(message: Message, lang: string, target?: string) {
    super(409, '', message, lang, target);
  }
}

/** A change the current state does not allow (deleting an entity others still refer to). */
export class ConflictError extends ServiceError {
  override readonly name = 'ConflictError';
  constructor(message: Message, lang: string) {
    super(409, 'CONFLICT', message, lang);
  }
}

export class NotImplementedError extends ServiceError {
  override readonly name = 'NotImplementedError';
  constructor(message: string) {
    super(501, 'NOT_IMPLEMENTED', message);
  }
}

/** The entity changed since the client read the ETag its If-Match names: nothing was written. */
export class PreconditionFailedError extends ServiceError {
  override readonly name = 'PreconditionFailedError';
  constructor() {
    super(412, 'PRECONDITION_FAILED', {
      de: 'Der Eintrag wurde inzwischen geändert (das ETag in If-Match ist nicht mehr aktuell); bitte neu lesen und die Änderung erneut anwenden.',
      en: 'The entity has changed since it was read (the ETag in If-Match is no longer current); read it again and reapply the change.',
    }, 'de-DE');
  }
}

/** A write without If-Match where the service requires one (--require-if-match). */
export class PreconditionRequiredError extends ServiceError {
  override readonly name = 'PreconditionRequiredError';
  constructor() {
    super(428, 'PRECONDITION_REQUIRED', {
      de: 'Änderungen und Löschungen brauchen den Kopf If-Match mit dem ETag des gelesenen Eintrags (oder *).',
      en: 'Updates and deletes need an If-Match header with the ETag of the entity as read (or *).',
    }, 'de-DE');
  }
}
