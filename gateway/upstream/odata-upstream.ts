// The OData requests the REST face makes, in Edm terms: read a feed or an entry, create, update,
// delete, call a function import. Builds each request (Accept, Content-Type, If-Match, the call
// that says whose it is), sends it through the one upstream client, and reads the answer with the
// profile's codec; an error answer becomes the upstream's problem, an unreadable one a 502. The
// caller's key is written into the request by the dispatcher's credential policy, not here.
import { randomUUID } from 'node:crypto';
import { writeChangesetBatch } from '../../odata/batch-request-writer.js';
import { DATE_TIME_OFFSETS_HEADER } from '../../odata/wall-clock.js';
import type { EdmRecord } from '../../odata/edm.js';
import { ODataError } from '../../odata/errors.js';
import type { EntitySet, FunctionImport } from '../../odata/model.js';
import type { RequestCredential } from '../auth/request-credential.js';
import type { UpdateMethod } from '../config.js';
import { BadGatewayError } from '../errors.js';
import type { FunctionValue, ODataCodec, UpstreamEntry, UpstreamFeed } from './odata-codec.js';
import type { UpstreamClient, UpstreamMethod, UpstreamResponse } from './upstream-client.js';
import { headerOf } from './upstream-client.js';
import { changesetAnswers } from './changeset-answer.js';
import { newCall } from './upstream-call.js';
import { upstreamError } from './upstream-errors.js';

/** Who the request is for, and how it may be made conditional. */
export interface CallContext {
  /** The caller's key as the gateway read it (none: the upstream decides what an anonymous call gets). */
  readonly credential: RequestCredential;
  /** `If-Match` to send along (only an ETag the upstream itself wrote). */
  readonly ifMatch?: string;
  /** The gateway request's id, sent as X-Request-Id so both logs tell of one request. */
  readonly requestId?: string;
}

interface Call {
  readonly method: UpstreamMethod;
  readonly path: string;
  readonly query?: string;
  readonly body?: string;
  /** The body's media type when it is not an entity in the codec's format. */
  readonly contentType?: string;
}

const USER_AGENT = 'timegate-gateway';

export class ODataUpstream {
  private readonly updateMethod: UpstreamMethod;

  constructor(
    private readonly client: UpstreamClient,
    private readonly codec: ODataCodec,
    updateMethod: UpdateMethod,
  ) {
    this.updateMethod = updateMethod === 'patch' ? 'PATCH' : 'MERGE';
  }

  async feed(set: EntitySet, path: string, query: string, context: CallContext): Promise<UpstreamFeed> {
    const response = await this.send({ method: 'GET', path, query }, context);
    return this.read(() => this.codec.feed(set, response.body));
  }

  /** One entity; `etag` is the upstream's, from the entry or the ETag header. */
  async entry(set: EntitySet, path: string, query: string, context: CallContext): Promise<UpstreamEntry> {
    const response = await this.send({ method: 'GET', path, query }, context);
    return this.entryOf(set, response);
  }

  async create(set: EntitySet, path: string, record: EdmRecord, context: CallContext): Promise<UpstreamEntry> {
    const response = await this.send({ method: 'POST', path, body: this.codec.entityBody(set, record) }, context);
    return this.entryOf(set, response);
  }

  /**
   * Creates every one of `records` in `set`, all or none: one `$batch` of one changeset. The
   * entries in order; a refusal names the index of the record at fault.
   */
  async createAll(set: EntitySet, path: string, records: readonly EdmRecord[], context: CallContext): Promise<UpstreamEntry[]> {
    const id = randomUUID();
    const headers = { Accept: this.codec.accept, 'Content-Type': this.codec.contentType };
    const requests = records.map((record) => ({ method: 'POST' as const, url: path, headers, body: this.codec.entityBody(set, record) }));
    const batch = writeChangesetBatch(requests, `batch_${id}`, `changeset_${id}`);
    const response = await this.send({ method: 'POST', path: '$batch', body: batch.body, contentType: batch.contentType }, context);
    return changesetAnswers(response, records.length).map((answer) => this.entryOf(set, answer));
  }

  async update(set: EntitySet, path: string, record: EdmRecord, context: CallContext): Promise<void> {
    await this.send({ method: this.updateMethod, path, body: this.codec.entityBody(set, record) }, context);
  }

  async remove(path: string, context: CallContext): Promise<void> {
    await this.send({ method: 'DELETE', path }, context);
  }

  /** A function import returning entities of `set` (one entry, or a feed for a collection). */
  async invokeForEntities(fn: FunctionImport, set: EntitySet, query: string, context: CallContext): Promise<UpstreamEntry | UpstreamFeed> {
    const response = await this.send({ method: fn.httpMethod, path: fn.name, query }, context);
    if (fn.returnType?.startsWith('Collection(')) return this.read(() => this.codec.feed(set, response.body));
    return this.entryOf(set, response);
  }

  /** A function import returning complex or primitive values, or nothing. */
  async invokeForValue(fn: FunctionImport, query: string, context: CallContext): Promise<FunctionValue | undefined> {
    const response = await this.send({ method: fn.httpMethod, path: fn.name, query }, context);
    if (fn.returnType === undefined || response.status === 204) return undefined;
    return this.read(() => this.codec.functionValue(fn, response.body));
  }

  private entryOf(set: EntitySet, response: UpstreamResponse): UpstreamEntry {
    const entry = this.read(() => this.codec.entry(set, response.body));
    const etag = entry.etag ?? headerOf(response, 'etag');
    return etag === undefined || entry.etag !== undefined ? entry : { ...entry, etag };
  }

  private async send(call: Call, context: CallContext): Promise<UpstreamResponse> {
    const headers: Record<string, string> = {
      accept: this.codec.accept,
      'maxdataserviceversion': '2.0',
      'user-agent': USER_AGENT,
      // Every Edm.DateTime as its instant and offset, where the upstream can (timegate's service):
      // RFC 3339 needs the offset, and wall-clock digits alone are ambiguous in a repeated hour.
      [DATE_TIME_OFFSETS_HEADER]: '1',
    };
    if (call.body !== undefined) headers['content-type'] = call.contentType ?? this.codec.contentType;
    if (context.ifMatch !== undefined) headers['if-match'] = context.ifMatch;
    if (context.requestId !== undefined) headers['x-request-id'] = context.requestId;
    const { key, partition } = context.credential;
    const response = await this.client.send({
      method: call.method,
      path: call.path,
      query: call.query ?? '',
      headers,
      call: newCall('rest', key, partition),
      ...(call.body === undefined ? {} : { body: call.body }),
    });
    if (response.status >= 400) throw upstreamError(response);
    if (response.status >= 300) throw new BadGatewayError(`the upstream OData service answered ${response.status}, which the gateway does not follow`);
    return response;
  }

  /** Reads a document; one the odata/ readers refuse is the upstream's fault, not the client's. */
  private read<T>(reader: () => T): T {
    try {
      return reader();
    } catch (error) {
      if (error instanceof ODataError) throw new BadGatewayError(`the upstream's answer cannot be read: ${error.message}`);
      throw error;
    }
  }
}
