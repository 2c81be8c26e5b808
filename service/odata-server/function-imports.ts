// Service operations (function imports): parameters from the query string, the call, and the
// result as an entry, a feed or a property document.
//
// Parameter names match case-insensitively and values are read leniently, because real clients
// of the original service send `ProjectId=7`, `billable=True` and unquoted text: a string may be
// a quoted V2 literal or plain text, a boolean any casing of true/false (or 1/0), a date-time a
// `datetime'...'` literal or plain ISO 8601.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import { LiteralError, UriSyntaxError } from '../../odata/errors.js';
import { parseIsoDateTime } from '../../odata/datetime.js';
import { dateTimeOffset } from '../../odata/edm.js';
import { parseLiteralAs, quoteForMessage } from '../../odata/literals.js';
import type { FunctionImport, FunctionImportParameter } from '../../odata/model.js';
import type { HandlerResult, Operation } from './operation.js';
import { selectPaths } from './operation.js';
import { expandRecords } from './expand.js';
import { isRepresentableText } from './payload-rules.js';
import { valueAsInstants } from './wall-clock-edge.js';

export function functionParameters(fn: FunctionImport, custom: ReadonlyMap<string, string>): Record<string, EdmValue> {
  const given = new Map<string, string>();
  for (const [name, value] of custom) {
    const lower = name.toLowerCase();
    if (!given.has(lower)) given.set(lower, value);
  }
  const parameters: Record<string, EdmValue> = {};
  for (const parameter of fn.parameters) {
    const text = given.get(parameter.name.toLowerCase());
    if (text === undefined || text === '' || text === 'null') {
      if (!parameter.nullable) throw new UriSyntaxError(`${fn.name} needs the parameter ${parameter.name} (${parameter.type})`, parameter.name);
      parameters[parameter.name] = null;
      continue;
    }
    parameters[parameter.name] = parameterValue(fn, parameter, text);
  }
  return parameters;
}

function parameterValue(fn: FunctionImport, parameter: FunctionImportParameter, text: string): EdmValue {
  switch (parameter.type) {
    case 'Edm.String': {
      if (!isRepresentableText(text)) {
        throw new UriSyntaxError(`${fn.name}: ${parameter.name} holds characters that cannot be stored (control characters or broken UTF-16)`, parameter.name);
      }
      return text.length >= 2 && text.startsWith("'") && text.endsWith("'") ? text.slice(1, -1).replaceAll("''", "'") : text;
    }
    case 'Edm.Boolean': {
      const lower = text.toLowerCase();
      if (lower === 'true' || lower === '1') return true;
      if (lower === 'false' || lower === '0') return false;
      throw invalid(fn, parameter, text);
    }
    case 'Edm.DateTime': {
      // Plain ISO 8601; with an offset, the instant it names (converted at the edge).
      const iso = parseIsoDateTime(text);
      if (iso !== undefined) return iso.offsetMinutes === undefined ? iso.date : dateTimeOffset(iso.date, iso.offsetMinutes);
      break;
    }
  }
  try {
    return parseLiteralAs(text, parameter.type);
  } catch (error) {
    if (error instanceof LiteralError) throw invalid(fn, parameter, text);
    throw error;
  }
}

function invalid(fn: FunctionImport, parameter: FunctionImportParameter, text: string): UriSyntaxError {
  return new UriSyntaxError(`${fn.name}: ${quoteForMessage(text)} is not a valid ${parameter.type} value for ${parameter.name}`, parameter.name);
}

export async function invokeFunction<C>(op: Operation<C>, fn: FunctionImport): Promise<HandlerResult> {
  const { parts, caller, target } = op;
  const given = functionParameters(fn, target.query.custom);
  const parameters = Object.fromEntries(fn.parameters.map((p) => [p.name, valueAsInstants(parts.index, p.type, given[p.name], op.wallClock) as EdmValue]));
  const result = await parts.dataSource.invoke(caller, fn, parameters);
  const set = fn.entitySet === undefined ? undefined : parts.index.entitySet(fn.entitySet);
  if (set === undefined) {
    return { status: 200, representation: parts.representations.functionResult(target.response, fn, result as EdmValue | EdmRecord) };
  }
  const records = (Array.isArray(result) ? result : [result]) as EdmRecord[];
  const expanded = target.query.expand.length > 0 ? await expandRecords(op, records, target.query.expand) : undefined;
  const select = selectPaths(op);
  const representation = fn.returnType?.startsWith('Collection(')
    ? parts.representations.feed(target.response, set, records, { select, expanded: expanded && ((_r, i) => expanded[i]) })
    : parts.representations.entry(target.response, set, records[0] as EdmRecord, { select, expanded: expanded?.[0] });
  return { status: 200, representation };
}
