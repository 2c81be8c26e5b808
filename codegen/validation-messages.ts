// The JavaScript that validators.js carries to turn ajv errors into `{ pointer, detail }` items
// naming the field in REST terms. It is emitted as text (validators.js is plain ESM without
// a build step); `patternHints` is a generated constant of the same module.

export const DESCRIBE_ERRORS_JS = String.raw`
const typeWords = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

const formatWords = {
  'date-time': 'an RFC 3339 date-time such as 2026-11-22T09:00:00Z',
  duration: 'an ISO 8601 duration such as PT9H30M',
  uuid: 'a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e',
  'uri-reference': 'a URI reference',
};

function escapePointer(segment) {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The field a pointer names, as the client wrote it: '/comment' -> 'comment', '/a/0/b' -> 'a/0/b'. */
function fieldOf(pointer) {
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).join('/');
}

function subject(pointer) {
  return pointer === '' ? 'the body' : "'" + fieldOf(pointer) + "'";
}

function typeList(type) {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t) => typeWords[t] ?? t).join(' or ');
}

function isNullTypeError(error) {
  return error.keyword === 'type' && String(error.params.type) === 'null';
}

/** Whether error lies at or below the instance a union (anyOf/oneOf) error is about. */
function isWithin(error, union) {
  return error !== union && (error.instancePath === union.instancePath || error.instancePath.startsWith(union.instancePath + '/'));
}

function describeError(error) {
  const params = error.params ?? {};
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required': {
      const pointer = at + '/' + escapePointer(params.missingProperty);
      return { pointer, detail: "missing required property '" + fieldOf(pointer) + "'" };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = params.additionalProperty ?? params.unevaluatedProperty;
      const pointer = at + '/' + escapePointer(name);
      return { pointer, detail: "property '" + fieldOf(pointer) + "' is not allowed" };
    }
    case 'false schema':
      return { pointer: at, detail: "property '" + fieldOf(at) + "' is not allowed" };
    case 'type':
      return { pointer: at, detail: subject(at) + ' must be ' + typeList(params.type) };
    case 'maxLength':
      return { pointer: at, detail: subject(at) + ' is too long (max ' + params.limit + ' characters)' };
    case 'minLength':
      return { pointer: at, detail: params.limit === 1 ? subject(at) + ' must not be empty' : subject(at) + ' is too short (min ' + params.limit + ' characters)' };
    case 'maximum':
      return { pointer: at, detail: subject(at) + ' must be at most ' + params.limit };
    case 'minimum':
      return { pointer: at, detail: subject(at) + ' must be at least ' + params.limit };
    case 'exclusiveMaximum':
      return { pointer: at, detail: subject(at) + ' must be less than ' + params.limit };
    case 'exclusiveMinimum':
      return { pointer: at, detail: subject(at) + ' must be greater than ' + params.limit };
    case 'format':
      return { pointer: at, detail: subject(at) + ' must be ' + (formatWords[params.format] ?? 'in format ' + params.format) };
    case 'pattern':
      return { pointer: at, detail: subject(at) + ' must be ' + (patternHints[params.pattern] ?? 'text matching ' + params.pattern) };
    case 'enum':
      return { pointer: at, detail: subject(at) + ' must be one of ' + params.allowedValues.map((v) => JSON.stringify(v)).join(', ') };
    case 'const':
      return { pointer: at, detail: subject(at) + ' must be ' + JSON.stringify(params.allowedValue) };
    case 'anyOf':
    case 'oneOf':
      return { pointer: at, detail: subject(at) + ' has none of the allowed forms' };
    default:
      return { pointer: at, detail: subject(at) + ' is invalid (' + error.keyword + ')' };
  }
}

/**
 * Turns ajv errors into one item per problem: a JSON pointer to the field and a sentence naming it.
 * Of a nullable reference (anyOf: [schema, null]) only the reasons from the schema are kept.
 */
export function describeErrors(errors) {
  if (!errors) return [];
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const kept = errors.filter((error) => {
    if (unions.includes(error)) return !errors.some((e) => isWithin(e, error) && !isNullTypeError(e) && !unions.includes(e));
    return !(isNullTypeError(error) && unions.some((u) => u.instancePath === error.instancePath));
  });
  const seen = new Set();
  const items = [];
  for (const error of kept) {
    const item = describeError(error);
    const key = item.pointer + '\n' + item.detail;
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
  }
  return items;
}
`;
