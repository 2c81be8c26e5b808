// Errors the OData server and its data sources raise, besides the protocol errors of odata/.
// Each carries its status, its `code` element and the language of its message; the error
// handler (error-handler.ts) is the one place that turns any of them into an error document.
import { ODataError } from '../../odata/errors.js';
import type { Texts } from './error-texts.js';

export class ServiceError extends ODataError {
  override readonly name: string = 'ServiceError';
  constructor(
    status: number,
    code: string,
    message: string,
    readonly lang = 'en',
    target?: string,
    /** The message in both languages, when the service has both (error-texts.ts). */
    readonly texts?: Texts,
  ) {
    super(status, code, message, target);
  }
}

/** No usable credential: the handler adds `WWW-Authenticate: Basic`. */
export class UnauthorizedError extends ServiceError {
  override readonly name = 'UnauthorizedError';
  constructor(message: string | Texts) {
    super(401, 'UNAUTHORIZED', typeof message === 'string' ? message : message.en, 'en', undefined, typeof message === 'string' ? undefined : message);
  }
}

/** The caller may read the resource but not do this to it. */
export class ForbiddenError extends ServiceError {
  override readonly name = 'ForbiddenError';
  constructor(message: string | Texts, lang?: string) {
    super(403, 'FORBIDDEN', typeof message === 'string' ? message : message.en, lang, undefined, typeof message === 'string' ? undefined : message);
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
 * service answers, and a message in the data source's language naming the entity and the reason.
 */
export class ValidationError extends ServiceError {
  override readonly name = 'ValidationError';
  constructor(message: string, lang: string, target?: string) {
    super(409, '', message, lang, target);
  }
}

/** A change the current state does not allow (deleting an entity others still refer to). */
export class ConflictError extends ServiceError {
  override readonly name = 'ConflictError';
  constructor(message: string, lang: string) {
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
    const texts = {
      de: 'Der Eintrag wurde inzwischen geändert (das ETag in If-Match ist nicht mehr aktuell); bitte neu lesen und die Änderung erneut anwenden.',
      en: 'The entity has changed since it was read (the ETag in If-Match is no longer current); read it again and reapply the change.',
    };
    super(412, 'PRECONDITION_FAILED', texts.de, 'de-DE', undefined, texts);
  }
}

/** A write without If-Match where the service requires one (--require-if-match). */
export class PreconditionRequiredError extends ServiceError {
  override readonly name = 'PreconditionRequiredError';
  constructor() {
    const texts = {
      de: 'Änderungen und Löschungen brauchen den Kopf If-Match mit dem ETag des gelesenen Eintrags (oder *).',
      en: 'Updates and deletes need an If-Match header with the ETag of the entity as read (or *).',
    };
    super(428, 'PRECONDITION_REQUIRED', texts.de, 'de-DE', undefined, texts);
  }
}
