// What the REST face's handlers share, built once per gateway: the model's lookups, the upstream,
// the compiled shapes and validators, the cursor signer, and the settings they read.
import type { QueryLimits } from '../../odata/limits.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { ODataUpstream } from '../upstream/odata-upstream.js';
import type { CursorCodec } from './cursor.js';
import type { EntityShapes } from './entity-shapes.js';
import type { RestValidators } from './validation.js';

export interface RestContext {
  readonly index: ModelIndex;
  readonly upstream: ODataUpstream;
  readonly shapes: EntityShapes;
  readonly validators: RestValidators;
  readonly cursors: CursorCodec;
  /** Property that versions an entity when the upstream writes no ETag. */
  readonly versionProperty: string;
  readonly limits: Partial<QueryLimits>;
  /** Where the REST face is served (`/api/v1`), from the contract's `servers`. */
  readonly basePath: string;
}
