// Tokens of a V2 `$filter` / `$orderby` expression, read on demand so the parser can name
// V4-only syntax (`any(d:...)`) before the lexer trips over characters V2 does not know.
import type { Literal } from './literals.js';
import { isDigit, numberEnd, parseLiteral, quotedEnd, quoteForMessage } from './literals.js';
import { ExpressionError, LimitError, LiteralError } from './errors.js';

export type TokenKind = 'identifier' | 'literal' | 'open' | 'close' | 'comma' | 'slash' | 'minus' | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** 0-based offset of the token in the expression. */
  readonly pos: number;
  readonly text: string;
  /** The parsed value of a `literal` token. */
  readonly literal?: Literal;
}

const NON_ASCII_WORD = /^[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]$/u;

function isWordStart(c: number, text: string, i: number): boolean {
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  return NON_ASCII_WORD.test(text.charAt(i)) && !isDigit(c);
}

function isWordPart(c: number, text: string, i: number): boolean {
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || isDigit(c);
  return !Number.isNaN(c) && NON_ASCII_WORD.test(text.charAt(i));
}

const SPECIAL_LITERALS = new Set(['true', 'false', 'null', 'NaN', 'NaNd', 'NaND', 'NaNf', 'NaNF', 'INF', 'INFd', 'INFD', 'INFf', 'INFF']);
const V4_DOLLAR = new Set(['$it', '$root', '$this', '$count', '$search', '$filter']);

export class FilterLexer {
  private pos = 0;
  private ahead: Token | undefined;

  constructor(
    readonly text: string,
    private readonly maxLiteralLength: number,
  ) {}

  peek(): Token {
    this.ahead ??= this.read();
    return this.ahead;
  }

  next(): Token {
    const token = this.peek();
    this.ahead = undefined;
    return token;
  }

  private read(): Token {
    const { text } = this;
    let i = this.pos;
    while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
    if (i >= text.length) {
      this.pos = i;
      return { kind: 'end', pos: i, text: '' };
    }
    const c = text.charCodeAt(i);
    const single = c === 40 ? 'open' : c === 41 ? 'close' : c === 44 ? 'comma' : c === 47 ? 'slash' : undefined;
    if (single) return this.token(single, i, i + 1);
    if (c === 39) {
      const end = quotedEnd(text, i);
      if (end < 0) throw new ExpressionError('string literal is not closed', i);
      return this.literal(i, end);
    }
    if (isDigit(c) || (c === 45 && isDigit(text.charCodeAt(i + 1)))) return this.number(i);
    if (c === 45) {
      const inf = this.wordEnd(i + 1);
      if (SPECIAL_LITERALS.has(text.slice(i + 1, inf)) && text.startsWith('INF', i + 1)) return this.literal(i, inf);
      return this.token('minus', i, i + 1);
    }
    if (isWordStart(c, text, i)) {
      const end = this.wordEnd(i);
      if (text.charCodeAt(end) === 39) {
        const close = quotedEnd(text, end);
        if (close < 0) throw new ExpressionError('literal is not closed', i);
        return this.literal(i, close);
      }
      if (SPECIAL_LITERALS.has(text.slice(i, end))) return this.literal(i, end);
      return this.token('identifier', i, end);
    }
    if (c === 36 /* $ */) {
      const word = text.slice(i, this.wordEnd(i + 1));
      if (V4_DOLLAR.has(word)) throw new ExpressionError(`${word} is OData V4 only, not part of V2 $filter`, i);
    }
    throw new ExpressionError(`unexpected character ${JSON.stringify(text.charAt(i))}`, i);
  }

  private wordEnd(start: number): number {
    let i = start;
    while (i < this.text.length && isWordPart(this.text.charCodeAt(i), this.text, i)) i++;
    return i;
  }

  private token(kind: TokenKind, start: number, end: number): Token {
    this.pos = end;
    return { kind, pos: start, text: this.text.slice(start, end) };
  }

  private number(start: number): Token {
    const end = numberEnd(this.text, start);
    const after = this.text.charCodeAt(end);
    const digits = end - start;
    if ((digits === 4 && after === 45) || (digits === 2 && after === 58)) {
      throw new ExpressionError("bare date and time literals are OData V4 only; V2 writes datetime'...'", start);
    }
    if (after === 46 || isWordPart(after, this.text, end)) {
      throw new ExpressionError(`malformed number ${quoteForMessage(this.text.slice(start, this.wordEnd(end)))}`, start);
    }
    return this.literal(start, end);
  }

  private literal(start: number, end: number): Token {
    if (end - start > this.maxLiteralLength) {
      throw new LimitError(
        `literal at position ${start} is longer than ${this.maxLiteralLength} characters`,
        String(start),
      );
    }
    const text = this.text.slice(start, end);
    try {
      this.pos = end;
      return { kind: 'literal', pos: start, text, literal: parseLiteral(text) };
    } catch (error) {
      if (error instanceof LiteralError) throw new LiteralError(`${error.message} at position ${start}`, String(start));
      throw error;
    }
  }
}
