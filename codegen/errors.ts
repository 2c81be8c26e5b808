// Every problem codegen reports about its input is one of these, with a stable code and a
// one-line message naming the element or attribute at fault, so the CLI can print it as is.

export type EdmxErrorCode =
  | 'EDMX_NOT_XML'
  | 'EDMX_DOCTYPE'
  | 'EDMX_NAMESPACE'
  | 'EDMX_VERSION'
  | 'EDMX_NO_SCHEMA'
  | 'EDMX_NO_CONTAINER'
  | 'EDMX_UNSUPPORTED'
  | 'EDMX_ALIAS'
  | 'EDMX_MISSING_ATTRIBUTE'
  | 'EDMX_BAD_VALUE'
  | 'EDMX_BOOLEAN'
  | 'EDMX_MISSING_KEY'
  | 'EDMX_KEY_PROPERTY'
  | 'EDMX_UNKNOWN_TYPE'
  | 'EDMX_DUPLICATE_NAME'
  | 'EDMX_DANGLING_RELATIONSHIP'
  | 'EDMX_UNKNOWN_ROLE'
  | 'EDMX_UNKNOWN_ASSOCIATION'
  | 'EDMX_UNKNOWN_ENTITY_SET'
  | 'EDMX_UNKNOWN_PROPERTY'
  | 'EDMX_SCALE_WITHOUT_PRECISION';

export class EdmxError extends Error {
  override readonly name = 'EdmxError';

  constructor(
    readonly code: EdmxErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The EDMX source (file or URL) could not be read at all. */
export class EdmxSourceError extends Error {
  override readonly name = 'EdmxSourceError';
  readonly code = 'EDMX_SOURCE';
}

/** The output directory could not be read or written. */
export class OutputError extends Error {
  override readonly name = 'OutputError';
  readonly code = 'CODEGEN_OUTPUT';
}
