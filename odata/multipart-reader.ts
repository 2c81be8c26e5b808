// The MIME layer of OData V2 `$batch` (RFC 2046 §5.1 as [MS-ODATA] §2.2.7.6 uses it): splits a
// multipart/mixed body, pushed chunk by chunk, into parts with their headers and their bytes,
// without ever holding the body whole. A nested multipart (a changeset) is read by a second
// reader fed with the bytes of its part, so it streams too.
//
// Our own, not a library's: the multipart parsers on npm are written for multipart/form-data
// (@fastify/busboy and multipasta require Content-Disposition names; @remix-run/multipart-parser
// and multipasta take only CRLF line breaks, refuse a preamble, and take any bytes after a
// boundary string as a delimiter, so `--batch_1` would end a part of boundary `batch`). Batches
// come with LF line breaks too (Olingo and the SAP tools read both), with transport padding after
// a delimiter, and need errors that name the line at fault; and the delimiter check has to stop
// at nesting, header size and part count limits we set. Reading is line by line with
// Buffer.indexOf; a line of body bytes that cannot be a delimiter is passed on as it comes, so a
// 1 MB entity on one line costs no more than its copy.
import { BatchLimitError, BatchSyntaxError } from './errors.js';

/** A part's MIME headers: names lower-cased, repeated headers joined with `, `. */
export type MimeHeaders = ReadonlyMap<string, string>;

/** Receives a multipart body's parts in order. Throwing from a callback stops the reader. */
export interface MultipartHandler {
  /** A part begins; `line` is the line of its first header, `bodyLine` the first of its body. */
  partStart(headers: MimeHeaders, line: number, bodyLine: number): void;
  /** Bytes of the current part's body: a view of a pushed chunk (chunks are never reused). */
  partData(bytes: Buffer): void;
  /** The current part is complete; `line` is the line of the delimiter that ended it. */
  partEnd(line: number): void;
}

export interface MultipartOptions {
  /** Most bytes of one part's header block. */
  readonly maxHeaderBytes: number;
  /** The number of the body's first line among the lines of the whole batch (nested readers). */
  readonly firstLine?: number;
  /** What the body is, for messages: `the batch`, `the changeset of line 4`. */
  readonly name: string;
}

const enum State {
  Preamble,
  Headers,
  Body,
  Epilogue,
}

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const DASH = 45;
/** Transport padding accepted after a delimiter (RFC 2046 allows any amount; we allow this much). */
const MAX_PADDING = 64;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Control characters are refused in header values: a value may be echoed (Content-ID) and must
// not smuggle a line break into the answer.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** The boundary of a `multipart/mixed` Content-Type (quoted or not), or a BatchSyntaxError. */
export function boundaryOf(contentType: string | undefined, line?: number): string {
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';');
  if (mediaType.trim().toLowerCase() !== 'multipart/mixed') {
    throw new BatchSyntaxError(`a batch or changeset is multipart/mixed, not ${contentType === undefined ? 'without a Content-Type' : quote(mediaType.trim())}`, line);
  }
  for (const parameter of parameters) {
    const eq = parameter.indexOf('=');
    if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    let boundary = parameter.slice(eq + 1).trim();
    if (boundary.length >= 2 && boundary.startsWith('"') && boundary.endsWith('"')) boundary = boundary.slice(1, -1);
    // RFC 2046 §5.1.1: 1 to 70 characters of a restricted set, not ending in a space.
    if (!/^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/.test(boundary)) {
      throw new BatchSyntaxError(`the boundary ${quote(boundary)} is not a valid multipart boundary (1 to 70 letters, digits or '()+_,-./:=? )`, line);
    }
    return boundary;
  }
  throw new BatchSyntaxError('the multipart/mixed Content-Type has no boundary parameter', line);
}

const CRLF_BYTES = Buffer.from('\r\n');
const LF_BYTES = Buffer.from('\n');
const NO_BYTES = Buffer.alloc(0);

function lineBreak(length: number): Buffer {
  return length === 2 ? CRLF_BYTES : length === 1 ? LF_BYTES : NO_BYTES;
}

/**
 * Adds one header line (`Name: value`, or a folded continuation of the previous one) to `lines`;
 * a BatchSyntaxError when it is neither.
 */
export function addHeaderLine(lines: string[], text: string, line: number): void {
  const first = text.charCodeAt(0);
  if (first === SPACE || first === TAB) {
    // A folded header line (RFC 5322 §2.2.3) continues the previous one.
    if (lines.length === 0) throw new BatchSyntaxError('headers cannot begin with a continuation line', line);
    lines[lines.length - 1] += ` ${text.trim()}`;
    return;
  }
  const colon = text.indexOf(':');
  if (colon <= 0 || !HEADER_NAME.test(text.slice(0, colon).trim())) {
    throw new BatchSyntaxError(`${quote(text)} is not a header line (Name: value), and no empty line ended the headers before it`, line);
  }
  lines.push(text);
}

/** Header lines as a map; a BatchSyntaxError for a value holding a control character. */
export function headerMap(lines: readonly string[], line: number): MimeHeaders {
  const headers = new Map<string, string>();
  for (const text of lines) {
    const colon = text.indexOf(':');
    const name = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (CONTROL.test(value)) throw new BatchSyntaxError(`the header ${name} of the headers of line ${line} holds a control character`, line);
    const earlier = headers.get(name);
    headers.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
  }
  return headers;
}

/** What an `application/http` part holds: an HTTP message's start line, headers and body. */
export interface HttpMessage {
  readonly startLine: string;
  /** The batch's line the start line is on. */
  readonly line: number;
  readonly headers: MimeHeaders;
  readonly body: Buffer;
}

/**
 * Reads the HTTP message of an `application/http` part (lines end in CRLF or LF; empty lines
 * before the start line are forgiven, as some writers put one too many). `checkStart` sees the
 * start line before the headers are read, so a bad start line is the error named whatever follows
 * it; `what` names the message in the header limit's error ("request", "response").
 */
export function readHttpMessage(
  bytes: Buffer,
  bodyLine: number,
  maxHeaderBytes: number,
  what: string,
  checkStart: (text: string | undefined, line: number) => string,
): HttpMessage {
  let line = bodyLine;
  let start = 0;
  const nextLine = (): string | undefined => {
    if (start >= bytes.length) return undefined;
    const lineFeed = bytes.indexOf(10, start);
    const end = lineFeed < 0 ? bytes.length : lineFeed;
    const text = bytes.toString('utf8', start, end > start && bytes[end - 1] === 13 ? end - 1 : end);
    start = lineFeed < 0 ? bytes.length : lineFeed + 1;
    line++;
    return text;
  };
  let first = nextLine();
  while (first === '') first = nextLine();
  const startLineNumber = line - 1;
  const startLine = checkStart(first, startLineNumber);
  const headerLines: string[] = [];
  let headerBytes = startLine.length;
  for (let text = nextLine(); text !== undefined && text !== ''; text = nextLine()) {
    headerBytes += text.length + 2;
    if (headerBytes > maxHeaderBytes) throw new BatchLimitError(400, `the ${what} of line ${startLineNumber} has headers longer than ${maxHeaderBytes} bytes`);
    addHeaderLine(headerLines, text, line - 1);
  }
  return { startLine, line: startLineNumber, headers: headerMap(headerLines, startLineNumber), body: bytes.subarray(start) };
}

export function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

export class MultipartReader {
  private readonly delimiter: Buffer;
  private state = State.Preamble;
  /** The line being read (1-based, among the lines of the whole batch). */
  private line: number;
  /** The start of an unfinished line, kept until its line break arrives. */
  private pending: Buffer | undefined;
  /** The current line is known not to be a delimiter, and its start has been handled. */
  private midLine = false;
  /** The line break after the last body line, held back: before a delimiter it is the delimiter's. */
  private heldBreak: Buffer | undefined;
  private headerLines: string[] = [];
  private headerBytes = 0;
  private partLine = 0;

  constructor(boundary: string, private readonly handler: MultipartHandler, private readonly options: MultipartOptions) {
    this.delimiter = Buffer.from(`--${boundary}`, 'latin1');
    this.line = options.firstLine ?? 1;
  }

  /** The next bytes of the body; the reader may keep views of `chunk`, so it must not be reused. */
  push(chunk: Buffer): void {
    let data = chunk;
    if (this.pending !== undefined) {
      data = Buffer.concat([this.pending, chunk]);
      this.pending = undefined;
    }
    let start = 0;
    while (start < data.length) {
      const lineFeed = data.indexOf(LF, start);
      if (lineFeed < 0) {
        this.partialLine(data.subarray(start));
        return;
      }
      const end = lineFeed > start && data[lineFeed - 1] === CR ? lineFeed - 1 : lineFeed;
      this.completeLine(data, start, end, lineFeed + 1);
      this.line++;
      start = lineFeed + 1;
    }
  }

  /** The body is complete; a BatchSyntaxError when it does not end with the close delimiter. */
  end(): void {
    if (this.pending !== undefined) {
      const rest = this.pending;
      this.pending = undefined;
      // The last line may lack its line break: `--boundary--` at the very end is common.
      this.completeLine(rest, 0, rest.length, rest.length);
    }
    const { name } = this.options;
    const close = `${this.delimiter.toString('latin1')}--`;
    switch (this.state) {
      case State.Preamble:
        throw new BatchSyntaxError(`${name} holds no delimiter line ${this.delimiter.toString('latin1')}: the boundary of its Content-Type is not in the body`);
      case State.Headers:
        throw new BatchSyntaxError(`${name} ends inside the headers of the part of line ${this.partLine}; a part's headers end with an empty line, the body with ${close}`);
      case State.Body:
        throw new BatchSyntaxError(`${name} ends inside the part of line ${this.partLine}: it is not terminated by the close delimiter ${close}`);
      case State.Epilogue:
        return;
    }
  }

  private completeLine(data: Buffer, start: number, end: number, next: number): void {
    switch (this.state) {
      case State.Preamble:
        if (this.midLine) {
          this.midLine = false;
          return;
        }
        switch (this.delimiterKind(data, start, end)) {
          case 'part':
            this.beginPart();
            return;
          case 'close':
            this.state = State.Epilogue;
            return;
          default:
            return;
        }
      case State.Headers:
        this.headerLine(data, start, end);
        return;
      case State.Body: {
        if (this.midLine) {
          this.midLine = false;
          this.emit(data.subarray(start, end));
          this.heldBreak = lineBreak(next - end);
          return;
        }
        const kind = this.delimiterKind(data, start, end);
        if (kind === undefined) {
          if (this.heldBreak !== undefined) this.emit(this.heldBreak);
          this.emit(data.subarray(start, end));
          this.heldBreak = lineBreak(next - end);
          return;
        }
        this.heldBreak = undefined;
        this.handler.partEnd(this.line);
        if (kind === 'part') this.beginPart();
        else this.state = State.Epilogue;
        return;
      }
      case State.Epilogue:
        return;
    }
  }

  /** The bytes of a line whose break has not arrived yet. */
  private partialLine(rest: Buffer): void {
    switch (this.state) {
      case State.Preamble:
      case State.Body: {
        if (this.midLine || !this.mayBeDelimiter(rest)) {
          // Not a delimiter: body bytes can go on now (a preamble is dropped), all but a final
          // CR, which may begin the line break that belongs to a delimiter.
          const keep = rest[rest.length - 1] === CR ? 1 : 0;
          if (this.state === State.Body) {
            if (this.heldBreak !== undefined) this.emit(this.heldBreak);
            this.heldBreak = undefined;
            this.emit(rest.subarray(0, rest.length - keep));
          }
          this.midLine = true;
          if (keep === 1) this.pending = Buffer.from([CR]);
          return;
        }
        this.pending = Buffer.from(rest);
        return;
      }
      case State.Headers:
        if (this.headerBytes + rest.length > this.options.maxHeaderBytes) throw this.headersTooLarge();
        this.pending = Buffer.from(rest);
        return;
      case State.Epilogue:
        return;
    }
  }

  private emit(bytes: Buffer): void {
    if (bytes.length > 0) this.handler.partData(bytes);
  }

  private beginPart(): void {
    this.state = State.Headers;
    this.headerLines = [];
    this.headerBytes = 0;
    this.partLine = this.line + 1;
  }

  private headerLine(data: Buffer, start: number, end: number): void {
    if (start === end) {
      this.state = State.Body;
      this.heldBreak = undefined;
      this.handler.partStart(headerMap(this.headerLines, this.partLine), this.partLine, this.line + 1);
      return;
    }
    if (this.delimiterKind(data, start, end) !== undefined) {
      throw new BatchSyntaxError(`the part of line ${this.partLine} of ${this.options.name} has no empty line after its headers, so it has no body: a part is headers, an empty line, then its body`, this.line);
    }
    this.headerBytes += end - start + 2;
    if (this.headerBytes > this.options.maxHeaderBytes) throw this.headersTooLarge();
    addHeaderLine(this.headerLines, data.toString('latin1', start, end), this.line);
  }

  private headersTooLarge(): BatchLimitError {
    return new BatchLimitError(400, `the headers of the part of line ${this.partLine} of ${this.options.name} are longer than ${this.options.maxHeaderBytes} bytes`);
  }

  /** Whether bytes[start, end) is a delimiter line: `--boundary` or `--boundary--`, then padding. */
  private delimiterKind(bytes: Buffer, start: number, end: number): 'part' | 'close' | undefined {
    const { delimiter } = this;
    if (end - start < delimiter.length || bytes.compare(delimiter, 0, delimiter.length, start, start + delimiter.length) !== 0) return undefined;
    let i = start + delimiter.length;
    const isClose = end - i >= 2 && bytes[i] === DASH && bytes[i + 1] === DASH;
    if (isClose) i += 2;
    if (end - i > MAX_PADDING) return undefined;
    for (; i < end; i++) {
      if (bytes[i] !== SPACE && bytes[i] !== TAB) return undefined;
    }
    return isClose ? 'close' : 'part';
  }

  /** Whether a line beginning with `bytes` could still turn out to be a delimiter. */
  private mayBeDelimiter(bytes: Buffer): boolean {
    const { delimiter } = this;
    if (bytes.length > delimiter.length + 2 + MAX_PADDING) return false;
    const n = Math.min(bytes.length, delimiter.length);
    return bytes.compare(delimiter, 0, n, 0, n) === 0;
  }
}
