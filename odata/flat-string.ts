// Writers precompile pieces of text (tags, attribute tails, `,"Name":`) and concatenate them
// into every response. V8 concatenation builds ropes, and a piece that is itself a rope (any
// template literal of 13 characters or more) is walked node by node again each time a response
// holding it is flattened for the socket. A piece made flat once is copied in one step.

/** A flat (sequential) copy of `text`, equal to it; for pieces built once and reused. */
export function flatString(text: string): string {
  // The JSON round trip is exact for every string (lone surrogates are escaped and restored)
  // and its result is always a sequential string.
  return JSON.parse(JSON.stringify(text)) as string;
}
